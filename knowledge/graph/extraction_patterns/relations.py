"""Typed relation predicates between two mentions of one sentence, English and Chinese."""
from __future__ import annotations

import re

_ADV = (r"(?:(?:has|have|had|also|recently|reportedly|officially|formally|quietly|publicly|finally|"
        r"successfully|later|then|just|now|already|previously|first|originally|eventually|subsequently|"
        r"jointly|initially|will|would|could|may|might|can|did|does|do|agreed\s+to|plans\s+to|"
        r"planned\s+to|decided\s+to|announced\s+(?:that\s+)?(?:it\s+)?(?:has\s+|had\s+|will\s+)?|"
        r"said\s+(?:that\s+)?(?:it\s+)?(?:has\s+|had\s+|will\s+)?)\s+)*")
_APPOS = r"(?:\s*,\s*[^,;]{1,60}?,)?"
_DET = r"(?:(?:the|a|an|its|their|his|her|our|this|that|these|those|some)\s+)?"
_FILL = (r"(?:(?!(?:from|in|at|of|with|by|for|to|on|into|and|or|but|than|as|is|was|are|were|which|"
         r"who|that|after|before|while|because)\s)[a-z][\w-]*\s+){0,3}?")
_DET_FILL = _DET + _FILL


def _en(pred: str, *, lead_comma: bool = False, tail: str = _DET_FILL) -> re.Pattern:
    """Between-text regex: [appositive] [adverbs] PREDICATE [determiner + up to 3 filler words]."""
    if lead_comma:
        head = r"\s*,\s*(?:(?:which|that|who)\s+)?"
    else:
        head = _APPOS + r"\s+"
    return re.compile(head + _ADV + r"(?:" + pred + r")\s+" + tail, re.IGNORECASE)


# Each entry: (relation type, between-regex (fullmatch on text between the two mentions),
#              after-regex or None (match right after the second mention), reversed, constraint)
# constraint: name of a check in extraction/assembly.py (None = no type constraint).
EN_RELATIONS: list[tuple[str, re.Pattern, re.Pattern | None, bool, str | None]] = [
    ("ACQUIRED", _en(r"acquired|acquires|acquire|acquiring|bought|buys|buy|purchased|purchases|"
                     r"took\s+over|takes\s+over|(?:completed|announced|finalized|closed)\s+(?:the|its)\s+"
                     r"acquisition\s+of"), None, False, "not_place_source"),
    ("ACQUIRED", _en(r"(?:(?:was|were|has\s+been|had\s+been|is|got|being|will\s+be)\s+)(?:\w+\s+)?"
                     r"(?:acquired|bought|purchased|taken\s+over)\s+by", tail=_DET), None, True, None),
    ("ACQUIRED", _en(r"(?:was\s+)?(?:acquired|bought|purchased)\s+by", lead_comma=True, tail=_DET),
     None, True, None),
    ("PART_OF", _en(r"(?:is|are|was|were|became|becomes|remains)\s+(?:now\s+|still\s+)?(?:a\s+|an\s+|the\s+)?"
                    r"(?:\w+\s+)?(?:part|subsidiary|division|unit|component|module|member|subproject|"
                    r"branch|sub-project|subsystem|arm|brand)\s+of|belongs?\s+to|belonged\s+to|"
                    r"(?:is|are|was|were)\s+(?:wholly\s+)?(?:owned|operated)\s+by", tail=_DET), None, False, None),
    ("PART_OF", _en(r"(?:now\s+)?(?:a|an|the)?\s*(?:\w+\s+)?(?:part|subsidiary|division|unit|component|"
                    r"module|member|subproject|branch|arm|brand)\s+of|(?:wholly\s+)?owned\s+by",
                    lead_comma=True, tail=_DET), None, False, None),
    ("PART_OF", _en(r"owns|owned|includes|include|included|contains|contain|comprises|consists\s+of|"
                    r"acquired\s+a\s+stake\s+in"), None, True, None),
    ("DEVELOPED", _en(r"developed|develops|develop|developing|built|builds|build|building|created|creates|"
                      r"create|designed|designs|design|invented|invents|authored|engineered|"
                      r"open-sourced|open\s+sourced|released|releases|launched|launches|unveiled|"
                      r"unveils|introduced|introduces|trained|trains|maintains|maintained|wrote|writes|"
                      r"shipped|ships|pioneered"), None, False, None),
    ("DEVELOPED", _en(r"(?:(?:was|were|is|are|has\s+been|had\s+been|being)\s+)(?:originally\s+|initially\s+|"
                      r"jointly\s+|first\s+|primarily\s+|largely\s+)?(?:developed|built|created|designed|"
                      r"invented|made|released|launched|engineered|maintained|written|trained|"
                      r"introduced|pioneered)\s+by", tail=_DET), None, True, None),
    ("DEVELOPED", _en(r"(?:(?:was|were|is|are)\s+)?(?:originally\s+|initially\s+|jointly\s+|first\s+)?"
                      r"(?:developed|built|created|designed|invented|made|released|launched|"
                      r"engineered|maintained|written|trained|introduced)\s+by",
                      lead_comma=True, tail=_DET), None, True, None),
    ("USES", _en(r"uses|use|used|using|relies\s+on|rely\s+on|relied\s+on|relying\s+on|depends\s+on|"
                 r"depend\s+on|depended\s+on|leverages|leverage|leveraged|utilizes|utilises|utilize|"
                 r"utilized|employs|employ|adopted|adopts|adopt|runs\s+on|run\s+on|integrates(?:\s+with)?|"
                 r"(?:is|are|was|were)\s+(?:built|based|running)\s+on(?:\s+top\s+of)?|"
                 r"(?:is|are|was|were)\s+powered\s+by|builds\s+on|calls|invokes|queries|"
                 r"stores\s+(?:\w+\s+){0,2}in|indexes\s+(?:\w+\s+){0,2}with|embeds|combines"),
     None, False, None),
    ("USES", _en(r"(?:(?:is|are|was|were|has\s+been|being)\s+)(?:\w+\s+)?(?:used|adopted|leveraged|employed|"
                 r"utilized|utilised|consumed|called|invoked)\s+by", tail=_DET), None, True, None),
    ("USES", _en(r"(?:built|based|running)\s+on(?:\s+top\s+of)?|powered\s+by|using|backed\s+by",
                 lead_comma=True, tail=_DET), None, False, None),
    ("LOCATED_IN", _en(r"(?:(?:is|are|was|were|remains)\s+)?(?:located|based|headquartered|situated|"
                       r"incorporated|registered|hosted|deployed)\s+in|(?:has|had)\s+(?:its\s+)?"
                       r"(?:headquarters|offices?|campus)\s+in|moved\s+to|relocated\s+to|sits\s+in|"
                       r"lives\s+in|lived\s+in|opened\s+(?:an?\s+)?(?:office|lab|campus)\s+in",
                       tail=_DET), None, False, "located"),
    ("LOCATED_IN", _en(r"(?:located|based|headquartered|situated|hosted)\s+in|(?:with\s+)?headquarters\s+in",
                       lead_comma=True, tail=_DET), None, False, "located"),
    ("LOCATED_IN", re.compile(r"\s+in\s+(?:the\s+)?|\s*,\s*"), None, False, "weak_in"),
    ("DEVELOPED", re.compile(r"(?:['’]s)?\s"), None, False, "org_product"),    # "Anthropic('s) Claude"
    ("WORKS_AT", _en(r"(?:works|work|worked|working)\s+(?:at|for|with|in)|joined|joins|join|joining|"
                     r"(?:is|was)\s+employed\s+(?:at|by)|teaches\s+at|taught\s+at|studies\s+at|studied\s+at|"
                     r"interned\s+at|leads|led|heads|headed|runs|founded|co-founded|cofounded|"
                     r"(?:is|was|became|becomes|serves\s+as|served\s+as)\s+(?:a\s+|an\s+|the\s+)?"
                     r"(?:[\w-]+\s+){0,3}?(?:at|of|with|for)",
                     tail=_DET), None, False, "person_source"),
    ("WORKS_AT", _en(r"(?:(?:a|an|the)\s+)?(?:[\w-]+\s+){0,2}?(?:ceo|cto|cfo|coo|founder|co-founder|"
                     r"cofounder|professor|researcher|scientist|engineer|director|president|chairman|"
                     r"head|lead|manager|employee|intern|student|fellow|lecturer|postdoc|member|"
                     r"vp|vice\s+president|partner)\s+(?:at|of|with|for)",
                     lead_comma=True, tail=_DET), None, False, "person_source"),
    ("WORKS_AT", _en(r"hired|hires|appointed|appoints|employs|employed|recruited|recruits|named",
                     tail=_DET), None, True, "person_target"),
    ("PARTNERED_WITH", _en(r"(?:partnered|partners|partner|partnering|teamed\s+up|teams\s+up|team\s+up|"
                           r"collaborated|collaborates|collaborate|collaborating|allied|cooperated|"
                           r"cooperates|cooperate|works\s+together|joined\s+forces)\s+with|"
                           r"(?:signed|formed|announced|entered(?:\s+into)?|struck|forged)\s+(?:a\s+|an\s+)?"
                           r"(?:\w+\s+)?(?:partnership|collaboration|alliance|agreement|deal)\s+with|"
                           r"(?:is|are)\s+partnering\s+with", tail=_DET), None, False, None),
    ("PARTNERED_WITH", re.compile(r"\s+(?:and|&)\s+", re.IGNORECASE),
     re.compile(r"\s+(?:(?:have|has|had|recently|officially|will|also)\s+)*(?:partnered|teamed\s+up|"
                r"collaborated|collaborate|are\s+partnering|are\s+collaborating|formed\s+(?:a|an)\s+"
                r"(?:\w+\s+)?(?:partnership|alliance)|announced\s+(?:a|an)\s+(?:\w+\s+)?(?:partnership|"
                r"collaboration|alliance)|signed\s+(?:a|an)\s+(?:\w+\s+)?(?:partnership|agreement)|"
                r"joined\s+forces|work\s+together|are\s+partners)\b", re.IGNORECASE), False, None),
]

_ZH_ADV = r"(?:已经|已|正式|近日|最近|日前|今天|今年|去年|成功|宣布|也|还|将|曾经|曾|共同|首次|率先|全资|主要|自主|独立|联合|于|均|都|早在|目前)*"  # noqa: E501
_ZH_TITLE = (r"(?:博士|教授|先生|女士|老师|院士|研究员|工程师|同学|总裁|经理|主任|所长|院长|校长|团队|"
             r"公司|集团|总部|本人|等人|等)?")
_ZH_OBJ = r"(?:了|过|出)?(?:一家|一个|一款|一套|一种|该|名为|叫做|称为|新的|新一代的?)*"


def _zh(between: str) -> re.Pattern:
    return re.compile(_ZH_TITLE + _ZH_ADV + r"(?:" + between + r")" + _ZH_OBJ)


# Chinese: matched against the between text with whitespace removed.
ZH_RELATIONS: list[tuple[str, re.Pattern, re.Pattern | None, bool, str | None]] = [
    ("LOCATED_IN", _zh(r"总部位于|总部设在|总部在|位于|坐落于|坐落在|地处|设在|设于|落户于?|扎根于?|地址在"),
     None, False, "located"),
    ("ACQUIRED", _zh(r"收购|并购|买下|购入|收编|吞并"), None, False, "not_place_source"),
    ("ACQUIRED", re.compile(_ZH_TITLE + _ZH_ADV + r"(?:被|由)"),
     re.compile(r"^" + _ZH_ADV + r"(?:收购|并购|买下|吞并)"), True, None),
    ("DEVELOPED", _zh(r"开发|研发|研制|发布|推出|打造|设计|创建|构建|发明|开源|训练|提出|搭建|编写"),
     None, False, None),
    ("DEVELOPED", re.compile(_ZH_TITLE + r"(?:是|系)?" + _ZH_ADV + r"由"),
     re.compile(r"^" + _ZH_ADV + r"(?:开发|研发|研制|设计|创建|构建|打造|推出|发布|提出|训练|编写)"), True, None),
    ("DEVELOPED", re.compile(r"(?:是|系)" + _ZH_ADV),
     re.compile(r"^" + _ZH_ADV + r"(?:开发|研发|研制|设计|创建|构建|打造|推出|发布|提出)的"), True, None),
    ("PART_OF", _zh(r"属于|隶属于|隶属|归属于|从属于|并入|加入了?"), None, False, "not_person_source"),
    ("PART_OF", re.compile(_ZH_TITLE + r"(?:是|为|成为)"),
     re.compile(r"^(?:的|旗下的?)(?:一部分|子公司|组成部分|下属|分支|成员|一个模块|模块|子项目|部门)"), False, None),
    ("PART_OF", re.compile(r"(?:旗下的?|下属的?|的子公司)"), None, True, None),
    ("LOCATED_IN", _zh(r"部署在|部署于|托管在|托管于|设立在|驻扎在"), None, False, "weak_in"),
    ("USES", _zh(r"使用|采用|利用|依赖于|依赖|基于|借助|调用|运用|应用|集成|接入|运行在|运行于|构建在|建立在"),
     None, False, None),
    ("PARTNERED_WITH", re.compile(_ZH_TITLE + _ZH_ADV + r"(?:与|和|同|跟|联合)"),
     re.compile(r"^" + _ZH_ADV + r"(?:达成|签署|签订|建立|开展|展开|宣布|进行|深化)?(?:了)?(?:战略|深度|全面|长期|"
                r"紧密)?(?:合作|携手|联手|结盟|合作伙伴)"), False, None),
    ("PARTNERED_WITH", _zh(r"携手|联手|牵手|联合|合作"), None, False, None),
    ("WORKS_AT", re.compile(_ZH_TITLE + _ZH_ADV + r"(?:在|于)"),
     re.compile(r"^" + _ZH_ADV + r"(?:工作|任职|就职|任教|供职|担任|从事|读书|学习|做研究|研究|实习|攻读|任)"),
     False, "person_source"),
    ("WORKS_AT", _zh(r"加入|加盟|就职于|任职于|供职于|任教于|受雇于|效力于|入职"), None, False, "person_source"),
    ("WORKS_AT", re.compile(_ZH_TITLE + r"(?:是|为|担任)"),
     re.compile(r"^的?(?:教授|研究员|工程师|员工|首席[\u4e00-\u9fff]{1,4}|CEO|CTO|总裁|创始人|联合创始人|"
                r"科学家|博士后?|讲师|院长|所长|主任|董事长|经理|成员|学生)"), False, "person_source"),
]
