"""Bytes of a text file to str: UTF-8 (with or without a byte-order mark), else the encoding charset-normalizer finds,
with cp1252 preferred when it reads the bytes as cleanly as that guess."""
from __future__ import annotations

import codecs
import unicodedata
from dataclasses import dataclass

from charset_normalizer import from_bytes
from charset_normalizer.md import mess_ratio


class UndecodableTextError(ValueError):
    pass


@dataclass(frozen=True)
class DecodedText:
    text: str
    encoding: str

    @property
    def notice(self) -> str:
        """What the report says about the decoding; empty for plain UTF-8."""
        return "" if self.encoding in _UTF8 else f"not UTF-8: decoded as {self.encoding}"


_UTF8 = ("utf-8", "utf-8-sig")


def decode_text(raw: bytes) -> DecodedText:
    try:
        return DecodedText(raw.decode("utf-8-sig"), _UTF8[raw.startswith(codecs.BOM_UTF8)])
    except UnicodeDecodeError as exc:
        utf8_error = exc
    best = from_bytes(raw).best()
    if best is None:
        raise UndecodableTextError(f"not text: not UTF-8 ({utf8_error.reason} at byte {utf8_error.start}) and no other "
                                   "character encoding fits")
    if best.encoding != _WESTERN and _reads_cleanly_as_western(raw, best.chaos):
        return DecodedText(raw.decode(_WESTERN), _WESTERN)
    return DecodedText(str(best), best.encoding)


# Windows-1252 (a superset of Latin-1's printable characters) is the most common legacy encoding of Western text.
_WESTERN = "cp1252"
_WHITESPACE_CONTROLS = frozenset("\t\n\r\f")


def _reads_cleanly_as_western(raw: bytes, guess_chaos: float) -> bool:
    """cp1252 gives text at least as clean as the guess did (charset-normalizer's mess ratio, 0 = clean).

    On a short text many single-byte code pages read the same bytes with no mess at all (cp1250, cp1257, even
    utf_16_le for six bytes), and the detector's language statistics cannot choose well: "garçon a mangé une
    crème" came back as cp1250's "crčme". Among equally clean readings the most common encoding is the best bet;
    Cyrillic, Greek or CJK bytes read as cp1252 are a mess of accented capitals, so their guess is kept."""
    try:
        text = raw.decode(_WESTERN)
    except UnicodeDecodeError:  # bytes cp1252 leaves undefined (0x81, 0x8D, 0x8F, 0x90, 0x9D)
        return False
    if any(unicodedata.category(c) == "Cc" and c not in _WHITESPACE_CONTROLS for c in text):
        return False
    return mess_ratio(text, maximum_threshold=1.0) <= guess_chaos
