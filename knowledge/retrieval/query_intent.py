"""What kind of question is this? Overviews get no entity expansion; the kinds are reported with every search.

Keyword rules (English + Simplified Chinese), precompiled. Precedence:
GLOBAL_SUMMARY > COMPARISON > MULTI_HOP > RELATION > FACT.
"""
from __future__ import annotations

import re
import unicodedata
from enum import Enum
from typing import NamedTuple


class QueryKind(str, Enum):
    FACT = "fact"
    RELATION = "relation"
    MULTI_HOP = "multi_hop"
    COMPARISON = "comparison"
    GLOBAL_SUMMARY = "global_summary"


_GRAPH_KINDS = frozenset({QueryKind.RELATION, QueryKind.MULTI_HOP, QueryKind.COMPARISON})


class _Rule(NamedTuple):
    """A rule's English and Chinese alternatives as two patterns: in one, every alternative is tried at every
    position of the text (the English ones start with a word boundary, which defeats the engine's scan for a
    first character); alone, the Chinese literals are found by that scan, and a rule costs a tenth."""
    english: re.Pattern[str]
    chinese: re.Pattern[str]

    def search(self, text: str) -> re.Match[str] | None:
        return self.english.search(text) or self.chinese.search(text)


# ---------------------------------------------------------------- global summary
_GLOBAL_RE = _Rule(re.compile(
    r"\bthemes?\b|\boverview\b|\boverall\b|\bbig[\s-]picture\b|\bhigh[\s-]level\s+summary\b"
    r"|\b(?:core|main|key|major|central|common|recurring)\s+"
    r"(?:topics?|themes?|ideas?|points?|takeaways?|concepts?|subjects?|findings?)\b"
    r"|\bcore\b(?!\s+(?:developers?|team|members?|maintainers?|contributors?|modules?|library|libraries|engine"
    r"|algorithms?|api|code|components?|services?|database|count|dump))"
    r"|\bsummari[sz]e\s+(?:everything|it\s+all|all\b|the\s+(?:whole|entire)\b)|\bsummary\s+of\s+(?:everything|all\b)"
), re.compile(
    r"主题|概览|总览|概况|概述|综述|总体|整体|全局|大局|总的来说"
    r"|核心(?!开发|成员|代码|模块|组件|算法|团队|人员|作者|贡献者|服务|数据库)"
    r"|总结(?:一下)?(?:所有|全部|整个|一切)"
))

# ---------------------------------------------------------------- comparison
_COMPARISON_RE = _Rule(re.compile(
    r"\bcompar(?:e|es|ed|ing|ison|isons)\b|\bversus\b|\bvs\b\.?|\bv\.\s"
    r"|\bdifferen(?:ce|ces)\b|\bdiffer(?:s|ent\s+from)?\b|\bsimilarit(?:y|ies)\b|\bin\s+common\b"
    r"|\b(?:better|worse|faster|slower|cheaper|larger|smaller|bigger|stronger|weaker|more\s+\w+|less\s+\w+)\s+than\b"
    r"|\bwhich\s+(?:one\s+)?(?:is|are)\s+(?:better|worse|faster|slower|cheaper|preferable)\b"
    r"|\bpros\s+and\s+cons\b|\btrade-?offs?\s+between\b"
    # two things held against one property: "Are X and Y both directors?", "are both dog breeds"
    r"|\b(?:are|were)\s+both\b|^(?:are|were|do|did|have|had)\s[^?]*\s+both\b"
    # a choice between two named things: "Which band was formed first, X or Y?", "Who is the oldest, A or B?"
    r"|^(?:which|who|what)\b[^?]*?(?:,|\b(?:first|earlier|later|older|oldest|younger|youngest|longer|longest"
    r"|taller|tallest|larger|largest|bigger|biggest|smaller|smallest|higher|highest|more|most|fewer|less)\b)"
    r"[^?,]*?\s(?:the\s+)?\S+(?:\s+\S+){0,4}\s+or\s+(?:the\s+)?\S"
    # "X has an OBE. Does Y also have one?"
    r"|[.!]\s+(?:does|did|is|was|are|were|has|have|can)\s[^?]*\balso\b"
), re.compile(
    r"区别|比较|对比|相比|比起|差异|差别|异同|优劣|优缺点|不同之处|不同点|有何不同|有什么不同|哪个更|哪一个更|孰优"
))

# ---------------------------------------------------------------- relation words
_EN_REL_VERBS = (
    r"develop(?:s|ed)?|buil[dt]s?|creat(?:e|es|ed)|wr(?:ite|ites|ote|itten)|authored|maintain(?:s|ed)?"
    r"|found(?:s|ed)|own(?:s|ed)|uses|used|using|depend(?:s|ed)?\s+on|rel(?:y|ies|ied)\s+on|acquir(?:e|es|ed)"
    r"|fund(?:s|ed)|leads|led|manag(?:es|ed)|employ(?:s|ed)|train(?:s|ed)|invent(?:s|ed)?|design(?:s|ed)"
    r"|introduc(?:e|es|ed)|propos(?:e|es|ed)|implement(?:s|ed)|power(?:s|ed)|work(?:s|ed)?\s+(?:at|on|for)"
    r"|belong(?:s|ed)?\s+to|part\s+of|based\s+on|runs|ran|makes|made|publish(?:es|ed)|attend(?:s|ed)"
    r"|stud(?:y|ies|ied)\s+at|graduat(?:e|es|ed)\s+from|born|supervis(?:e|es|ed)|advis(?:e|es|ed)|cit(?:e|es|ed)"
    r"|integrat(?:e|es|ed)\s+with|contribut(?:e|es|ed)\s+to|sponsor(?:s|ed)|host(?:s|ed)|reports?\s+to"
    r"|join(?:s|ed)|hir(?:e|es|ed)|taught|teach(?:es)?|invest(?:s|ed)?\s+in|extends?|forked|inspired"
)
_EN_REL_VERB_RE = re.compile(rf"\b(?:{_EN_REL_VERBS})\b")
_EN_ROLES = (
    r"founders?|authors?|creators?|developers?|maintainers?|owners?|inventors?|designers?|ceos?|leads?|leaders?"
    r"|managers?|parent(?:\s+company)?|successors?|predecessors?|employers?|advisors?|supervisors?|sponsors?"
    r"|vendors?|makers?|publishers?|team|dependency|dependencies|directors?|producers?|composers?|performers?|writers?"
    r"|spouses?"
)
_ROLE_OF_RE = re.compile(rf"\bthe\s+(?:{_EN_ROLES})\s+of\b")
_RELATION_RE = _Rule(re.compile(
    r"\brelationships?\b|\brelations?\b|\brelat(?:ed|es|e)\b|\bconnect(?:s|ed|ion|ions)?\b"
    r"|\blinks?\s+between\b|\blinked\s+(?:to|with)\b|\bdepends?\s+on\b|\bdependen(?:cy|cies)\b|\bused\s+by\b"
    r"|\buses\b|\busing\b|\bpart\s+of\b|\bbelongs?\s+to\b|\bassociated\s+with\b|\bbased\s+on\b"
    r"|\binteracts?\s+with\b|\bintegrates?\s+with\b|\bworks?\s+(?:at|for|with)\b"
    rf"|\bwho\s+(?:{_EN_REL_VERBS})\b|\b(?:which|what)\s+\w+(?:\s+\w+){{0,3}}\s+(?:use|depend\s+on|rely\s+on)\b"
    rf"|\bthe\s+(?:{_EN_ROLES})\s+of\b"
), re.compile(
    r"关系|关联|联系(?!方式|电话|人|邮箱)|依赖|属于|隶属|开发|使用|基于|组成部分|一部分|由谁|相关"
    r"|谁(?:创建|编写|维护|负责|发明|设计|写|创立|领导)"
    r"|(?:创始人|作者|开发者|创建者|负责人|发明者|维护者|设计者|所有者|母公司)"
))

# ---------------------------------------------------------------- multi-hop
_RELATIVE = r"(?:that|which|who|whom|whose)"
_MULTI_HOP_RE = _Rule(re.compile(
    # the X of the Y that ...   ("the author of the engine that Helios depends on")
    rf"\bthe\s+(?!names?\b|titles?\b|lists?\b|numbers?\b|types?\b|kinds?\b|versions?\b)\w+(?:\s+\w+)?\s+of\s+"
    rf"(?:the|a|an)\s+\w+(?:\s+\w+)?\s+{_RELATIVE}\b"
    # possessive chains: "Helios's lead's manager"
    r"|\b\w+'s\s+\w+(?:\s+\w+)?'s\b"
    # role chains: "the founder of the parent company of X"
    rf"|\bthe\s+(?:{_EN_ROLES})\s+of\s+(?:the\s+)?\w+(?:\s+\w+)?\s+of\b"
), re.compile(
    # Chinese 的...的 chains anchored on a relation verb: "开发 Helios 的团队的负责人"
    r"(?:开发|创建|创立|编写|维护|使用|依赖|发明|设计|提出|负责|领导|收购|投资|拥有|属于|资助|发布|采用|基于|训练|培养)"
    r"[^,.;:!?，。；：！？]{0,20}?的[^,.;:!?，。；：！？]{1,15}?的"
    # role-of-role: "Helios 的作者的母校"
    r"|(?:创始人|作者|开发者|创建者|负责人|发明者|维护者|设计者|所有者|母公司|导师|老板|领导)的"
))
_PLACE_OR_GROUP_NOUNS = (
    r"country|countries|city|cities|state|states|county|counties|province|place|region|town|village|district"
    r"|area|location|nation|company|organi[sz]ation|university|school|team|band|group|label|league|party"
)
# Nested descriptions that name one entity through another (typical of 2-4 hop questions):
_NESTED_DESCRIPTION_RE = re.compile(
    # "... the country where the Bubye River is found", "... the county in which X is located"
    r"(?<=\w)\s+(?:of|in|on|at|from|with|by|for|to|near|when|did|does|do|is|was|owns?|became)\s+(?:the|a|an)\s+"
    r"(?:[\w-]+\s+){0,3}?(?:where|in\s+which|from\s+which|at\s+which|of\s+which|that|which|who|whose|when)\s"
    # "... on Akinoshu Kenji's birthplace", "the spouse of Big Eye's main director"
    r"|\b(?:of|on|in|from|with|for|at|to|by)\s+(?:[\w.-]+\s+){0,3}?[\w.-]+'s\s+(?:[\w-]+\s+){0,2}?"
    r"(?:performers?|composers?|directors?|authors?|writers?|founders?|creators?|producers?|owners?|spouse|wife"
    r"|husband|birthplace|city\s+of\s+birth|place\s+of\s+birth|country|team|label|headquarters|capital)\b"
    # "the Diocese of the birthplace of X", "the district of the place of birth of X"
    r"|\bof\s+the\s+(?!names?\b|titles?\b|lists?\b|numbers?\b|types?\b|kinds?\b)(?:[\w-]+\s+){0,3}?of\s+"
    # reduced relatives: "the country Signmark is from", "the country Ceelmakoile is located in"
    rf"|\bthe\s+(?:{_PLACE_OR_GROUP_NOUNS})\s+(?:[\w.'-]+\s+){{1,4}}?(?:is|was|are|were)\s+"
    r"(?:from|located|born|based|found|in|part)\b"
    # "in the same county as McRae"
    r"|\bthe\s+same\s+\w+\s+as\b"
)
# Descriptions that name an entity by what someone did with it, then ask about that entity:
_CHOICE_VERBS = (r"picked|chose|chosen|selected|hired|signed|bought|adopted|acquired|built|developed|created"
                 r"|designed|wrote|written|founded|funded|made|used|owned|named|recommended|evaluated")
_REFERRING_DESCRIPTION_RE = re.compile(
    # reduced relatives: "the labeling vendor the Atlas team picked", "the annotation vendor selected by the team"
    rf"\bthe\s+(?:[\w-]+\s+){{0,2}}?[\w-]+\s+(?:the|a|an|our|their|his|her)\s+(?:[\w.'-]+\s+){{0,3}}?"
    rf"(?:{_CHOICE_VERBS})\b"
    rf"|\bthe\s+(?:[\w-]+\s+){{0,2}}?[\w-]+\s+(?:{_CHOICE_VERBS})\s+by\s+(?:the|a|an|our|their)\b"
    # a second clause pointing back at the first: "X chose a vendor. Who is that vendor's parent company?",
    # "Helios relies on a system; which researcher is its creator?"
    rf"|[.;:]\s+[^.;:]*\b(?:its|their|that\s+[\w-]+'s|this\s+[\w-]+'s)\s+(?:[\w-]+\s+)?(?:{_EN_ROLES})\b"
    # an attribute of a role holder named through something else: "the X paper's lead author is based in ..."
    rf"|\b[\w-]+'s\s+(?:[\w-]+\s+)?(?:{_EN_ROLES})\s+(?:is|was|are|were)\s+(?:based|located|born|from|in|at)\b"
)
# "Where was the founder of X born?" - a question about the role holder, not the role itself.
_ROLE_QUESTION_RE = re.compile(
    rf"\b(?:where|when|which|what|how)\b[^?]{{0,80}}?\bthe\s+(?:[\w-]+\s+)?(?:{_EN_ROLES})\s+of\b")
_DIRECT_ROLE_RE = re.compile(
    rf"^(?:who|what|which(?:\s+\w+){{0,2}})(?:'s|\s+(?:is|was|are|were))\s+the\s+(?:{_EN_ROLES})\s+of\b"
)
# A relative clause after a noun (not sentence-initial, not after a comma): "the engine that ..."
_RELATIVE_CLAUSE_RE = re.compile(rf"(?<=[a-z0-9])\s+{_RELATIVE}\s+\w")
_ZH_REL_WORD_RE = re.compile(
    r"开发|创建|创立|编写|维护|使用|依赖|发明|设计|提出|负责|领导|收购|投资|拥有|属于|资助|发布|采用|基于|训练|培养|毕业"
)


def _normalize(text: str) -> str:
    return unicodedata.normalize("NFKC", text or "").casefold().replace("’", "'").strip()


def is_global_summary(text: str) -> bool:
    return _GLOBAL_RE.search(_normalize(text)) is not None


def _is_multi_hop(text: str) -> bool:
    if _MULTI_HOP_RE.search(text) or _NESTED_DESCRIPTION_RE.search(text) or _REFERRING_DESCRIPTION_RE.search(text):
        return True
    if _ROLE_QUESTION_RE.search(text) and not _DIRECT_ROLE_RE.search(text):
        return True
    relation_words = len(_EN_REL_VERB_RE.findall(text))
    if relation_words >= 2 and _RELATIVE_CLAUSE_RE.search(text):
        return True
    return len(_ZH_REL_WORD_RE.findall(text)) >= 2 and ("的" in text or "所" in text)


def classify_query(text: str) -> QueryKind:
    norm = _normalize(text)
    if _GLOBAL_RE.search(norm):
        return QueryKind.GLOBAL_SUMMARY
    if _COMPARISON_RE.search(norm):
        return QueryKind.COMPARISON
    if _is_multi_hop(norm):
        return QueryKind.MULTI_HOP
    if _RELATION_RE.search(norm):
        return QueryKind.RELATION
    return QueryKind.FACT


def follows_entities(kind: QueryKind | str) -> bool:
    """Whether retrieval follows the specific entities of its best chunks: for every question but an overview
    (whose answer is the corpus's themes, not a chain of facts). Whether a hop matters is then decided by the
    evidence at rerank, not by the wording."""
    try:
        return QueryKind(kind) is not QueryKind.GLOBAL_SUMMARY
    except ValueError:
        return False


def needs_graph_expansion(kind: QueryKind | str, effective_corpus_count: int) -> bool:
    """Whether the question reads as connective over two or more corpora (the context router's cue to add a
    library for the bridges; the planner itself follows evidence, see ``follows_entities``)."""
    try:
        kind = QueryKind(kind)
    except ValueError:
        return False
    return effective_corpus_count >= 2 and kind in _GRAPH_KINDS
