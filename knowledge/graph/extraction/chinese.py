"""Chinese candidates: gazetteers, person patterns and ``jieba`` noun chunks (jieba loaded lazily, once)."""
from __future__ import annotations

import logging
import re
import threading
from collections import Counter
from typing import Any

from knowledge.graph import extraction_patterns as P
from knowledge.graph.extraction.naming import Candidate, type_votes
from knowledge.names import normalize_name

log = logging.getLogger(__name__)

_JIEBA_LOCK = threading.Lock()
_JIEBA: Any = None
_JIEBA_FAILED = False


def _posseg() -> Any:
    """Return ``jieba.posseg`` initialised quietly (once, lazily), or None if jieba is unavailable."""
    global _JIEBA, _JIEBA_FAILED
    if _JIEBA is not None or _JIEBA_FAILED:
        return _JIEBA
    with _JIEBA_LOCK:
        if _JIEBA is None and not _JIEBA_FAILED:
            try:
                import jieba
                import jieba.posseg as posseg

                jieba.setLogLevel(logging.WARNING)
                jieba.initialize()
                _JIEBA = posseg
            except Exception as exc:  # pragma: no cover - depends on the environment
                log.warning("jieba unavailable (%s); Chinese extraction uses regex rules only", exc)
                _JIEBA_FAILED = True
    return _JIEBA


def _oov_flag(word: str) -> str:
    if not P.CJK_RE.search(word):
        return "eng" if word.isascii() and word.strip() and word[0].isalnum() else "x"
    if 2 <= len(word) <= 3 and (word[0] in P.ZH_COMMON_SURNAMES or word[:2] in P.ZH_COMPOUND_SURNAMES) \
            and all(P.CJK_RE.match(ch) for ch in word):
        return "nr"
    return "nz" if len(word) >= 2 else "x"


def _zh_tokens(sentence: str, offset: int) -> list[tuple[int, int, str, str]]:
    """(start, end, word, POS flag) for a Chinese sentence.

    Segmentation is ``jieba.cut`` (HMM on, finds unknown names) and the flags come from the
    ``jieba.posseg`` dictionary tag table; words the HMM discovered get a guessed flag (surname +
    1-2 chars -> nr).  This is ~5x faster than ``jieba.posseg.cut``'s joint Viterbi and gives the
    same tags for dictionary words.  Falls back to ``posseg.cut`` if the table is unavailable.
    """
    ps = _posseg()
    if ps is None:
        return []
    out: list[tuple[int, int, str, str]] = []
    pos = offset
    tab = getattr(getattr(ps, "dt", None), "word_tag_tab", None)
    if isinstance(tab, dict) and tab:
        import jieba

        for w in jieba.cut(sentence, HMM=True):
            flag = tab.get(w) or _oov_flag(w)
            out.append((pos, pos + len(w), w, flag))
            pos += len(w)
    else:  # pragma: no cover - older/newer jieba without the table
        for pair in ps.cut(sentence):
            out.append((pos, pos + len(pair.word), pair.word, pair.flag))
            pos += len(pair.word)
    return out


_ZH_LONG_ORG_SUFFIXES = tuple(sfx for sfx in P.ZH_ORG_SUFFIXES if len(sfx) >= 2)


def _build_zh_gazetteer() -> tuple[re.Pattern, dict[str, str]]:
    types: dict[str, str] = {}
    for words, typ in ((P.ZH_CONCEPT_GAZ, "CONCEPT"), (P.ZH_PRODUCT_GAZ, "PRODUCT"), (P.ZH_PLACE_GAZ, "PLACE"),
                       (P.ZH_FOOD, "FOOD"), (P.ZH_ORG_GAZ, "ORG")):
        for w in words:
            if len(w) >= 2:
                types[w] = typ
    for w in P.ZH_AMBIGUOUS_ORG:
        types[w] = "ORG"
    rx = re.compile("|".join(re.escape(w) for w in sorted(types, key=len, reverse=True)))
    return rx, types


_ZH_GAZ_RE, _ZH_GAZ_TYPE = _build_zh_gazetteer()


def _zh_ambiguous_type(word: str, sentence: str, end: int) -> str:
    """苹果 / 小米: company or food, decided from the sentence."""
    rel_end = end
    tail = sentence[rel_end:rel_end + 4]
    if re.match(r"(?:公司|集团|手机|发布|推出|股价|的CEO|的产品|科技)", tail):
        return "ORG"
    if re.match(r"(?:派|汁|酱|粥|干|片|树|园|醋)", tail):
        return "FOOD"
    rest = sentence.replace(word, "")
    food = bool(P.ZH_FOOD_CONTEXT_RE.search(rest))
    company = bool(P.ZH_COMPANY_CONTEXT_RE.search(rest))
    if food and not company:
        return "FOOD"
    if company and not food:
        return "ORG"
    return "FOOD" if word == "苹果" else "ORG"


def chinese_candidates(text: str, s: int, e: int, si: int, out: list[Candidate]) -> None:
    sentence = text[s:e]
    fixed: list[tuple[int, int, str, str]] = []      # (start, end, kind, type) absolute offsets
    for m in _ZH_GAZ_RE.finditer(sentence):
        word = m.group()
        typ = _ZH_GAZ_TYPE[word]
        if word in P.ZH_AMBIGUOUS_ORG:
            typ = _zh_ambiguous_type(word, sentence, m.end())
        fixed.append((s + m.start(), s + m.end(), "gaz", typ))
    raw = _zh_tokens(sentence, s)
    # a place name inside a longer jieba place/institution token ("深圳" in "深圳大学") yields to it
    fixed = [f for f in fixed if not (f[3] == "PLACE" and any(
        ts <= f[0] and f[1] <= te and (te - ts) > (f[1] - f[0])
        and (flag in ("nt", "ns") or w.endswith(P.ZH_ORG_SUFFIXES)) for ts, te, w, flag in raw))]
    bounds = {t[0] for t in raw} | {t[1] for t in raw}
    for m in P.ZH_PERSON_RE.finditer(sentence):
        ms, me = s + m.start(), s + m.end()
        name = m.group()
        if name in P.ZH_STOP_NOUNS or (raw and (ms not in bounds or me not in bounds)):
            continue
        if any(fs < me and ms < fe for fs, fe, _, _ in fixed):
            continue
        fixed.append((ms, me, "person", "PERSON"))
    fixed.sort()
    # token stream: fixed spans + jieba tokens (pieces) outside them
    stream: list[tuple[int, int, str, str, str | None]] = []    # start, end, word, flag, fixed type
    for fs, fe, kind, typ in fixed:
        stream.append((fs, fe, text[fs:fe], kind, typ))
    for ts, te, w, flag in raw:
        pieces = [(ts, te)]
        for fs, fe, _, _ in fixed:
            nxt = []
            for ps_, pe_ in pieces:
                if fe <= ps_ or fs >= pe_:
                    nxt.append((ps_, pe_))
                    continue
                if ps_ < fs:
                    nxt.append((ps_, fs))
                if fe < pe_:
                    nxt.append((fe, pe_))
            pieces = nxt
        for ps_, pe_ in pieces:
            stream.append((ps_, pe_, text[ps_:pe_], flag if (ps_, pe_) == (ts, te) else "x", None))
    stream.sort()
    _zh_chunks(text, stream, si, out)


def _zh_chunks(text: str, stream: list, si: int, out: list[Candidate]) -> None:
    chunk: list[tuple] = []

    def prev_word(idx: int) -> str:
        k = idx - 1
        while k >= 0 and stream[k][2].strip() in ("", "了", "过", "着", "的"):
            k -= 1
        return stream[k][2] if k >= 0 else ""

    def next_word(idx: int) -> str:
        k = idx + 1
        while k < len(stream) and stream[k][2].strip() in ("", "了", "过", "着"):
            k += 1
        return stream[k][2] if k < len(stream) else ""

    def flush(end_idx: int) -> None:
        if chunk:
            _emit_zh_chunk(text, list(chunk), si, out,
                           marked=prev_word(end_idx - len(chunk)) in P.ZH_PREDICATE_WORDS
                           or next_word(end_idx - 1) in P.ZH_PREDICATE_WORDS)
            chunk.clear()

    k = 0
    while k < len(stream):
        ts, te, w, flag, ftyp = stream[k]
        if ftyp is not None and ftyp != "PLACE" or flag == "person":
            # "北京" + "智源研究院": a place directly before an institution name belongs to it
            if ftyp == "ORG" and chunk and chunk[-1][1] == ts and w.endswith(P.ZH_ORG_SUFFIXES) \
                    and all(c[4] == "PLACE" or c[3] == "ns" for c in chunk):
                ts = chunk[0][0]
                chunk.clear()
            flush(k)
            end = te
            # "阿里巴巴" + "集团" / "苹果" + "公司"
            if ftyp == "ORG" and k + 1 < len(stream) and stream[k + 1][0] == te \
                    and stream[k + 1][2] in P.ZH_ORG_SUFFIX_SET:
                end = stream[k + 1][1]
                k += 1
            surface = text[ts:end]
            votes = type_votes(**{ftyp: 5})
            key = normalize_name(surface)
            if ftyp == "FOOD":
                key = "food:" + key
            out.append(Candidate(ts, end, surface, key, votes, 3, si, english=False))
            k += 1
            continue
        nouny = (ftyp == "PLACE" or (flag in P.ZH_NOUN_FLAGS or flag.startswith("n"))) \
            and P.CJK_RE.search(w) is not None and w not in P.ZH_PREDICATE_WORDS \
            and flag not in ("nr", "nt")
        if nouny and (not chunk or chunk[-1][1] == ts):
            chunk.append(stream[k])
        elif flag in ("nr", "nt") and P.CJK_RE.search(w):
            flush(k)
            chunk.append(stream[k])
            flush(k + 1)
        else:
            flush(k)
            if nouny:
                chunk.append(stream[k])
        k += 1
    flush(len(stream))


def _emit_zh_chunk(text: str, chunk: list[tuple], si: int, out: list[Candidate], *, marked: bool) -> None:
    # trim generic nouns at the front (never the head)
    while len(chunk) > 1 and chunk[0][2] in P.ZH_STOP_NOUNS:
        chunk = chunk[1:]
    chunk = chunk[-4:]
    ts, te = chunk[0][0], chunk[-1][1]
    surface = text[ts:te]
    head, hflag, htyp = chunk[-1][2], chunk[-1][3], chunk[-1][4]
    multi = len(chunk) >= 2
    votes: Counter = Counter()
    weak = False
    org_suffix = head in P.ZH_ORG_SUFFIX_SET or (head.endswith(_ZH_LONG_ORG_SUFFIXES)
                                                 and head not in P.ZH_ORG_SUFFIX_SET)
    if org_suffix and (multi or head not in P.ZH_ORG_SUFFIX_SET):
        votes["ORG"] += 4
    elif multi and head in P.ZH_PRODUCT_HEADS:
        votes["PRODUCT"] += 3
    elif multi and head in P.ZH_CONCEPT_HEADS:
        votes["CONCEPT"] += 3
    elif multi and (head in P.ZH_EVENT_HEADS or (len(head) >= 2 and head.endswith(("大会", "峰会", "论坛")))):
        votes["EVENT"] += 3
    elif multi and head in ("市", "省", "区", "县", "镇", "村", "州", "路", "街", "湾", "岛", "山", "河", "湖"):
        votes["PLACE"] += 3
    elif not multi:
        if htyp == "PLACE" or hflag == "ns":
            if len(surface) < 2:
                return
            votes["PLACE"] += 5 if htyp == "PLACE" else 3
        elif hflag == "nt":
            votes["ORG"] += 3
        elif hflag == "nr":
            if len(surface) < 2:
                return
            surname_ok = surface[0] in P.ZH_SURNAME_SET or surface[:2] in P.ZH_COMPOUND_SURNAMES
            if surname_ok and len(surface) <= 4:
                votes["PERSON"] += 3
            else:
                votes["PERSON"] += 1
                weak = True
            if P.PERSON_VERB_AFTER_ZH.match(text, te):
                votes["PERSON"] += 1
        elif hflag in ("nz", "n", "nrt", "j", "nw", "nrfg"):
            if len(surface) < 2 or surface in P.ZH_STOP_NOUNS:
                return
            votes["OTHER" if hflag == "nrt" else "CONCEPT"] += 1
            weak = True
        else:
            return
    else:
        if chunk[0][4] == "PLACE" or chunk[0][3] == "ns":     # "中国" + "人民..." -> place + rest
            _emit_zh_chunk(text, chunk[:1], si, out, marked=False)
            _emit_zh_chunk(text, chunk[1:], si, out, marked=marked)
            return
        if surface in P.ZH_STOP_NOUNS or all(c[2] in P.ZH_STOP_NOUNS for c in chunk):
            return
        votes["CONCEPT"] += 1
        weak = True
    if surface in P.ZH_STOP_NOUNS:
        return
    out.append(Candidate(ts, te, surface, normalize_name(surface), votes, 1, si, english=False,
                         weak=weak, marked=marked, plain_noun=not multi and hflag in ("n", "vn")))
