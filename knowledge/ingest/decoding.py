"""Bytes of a text file to str: UTF-8 (with or without a byte-order mark) or the encoding charset-normalizer finds."""
from __future__ import annotations

import codecs
from dataclasses import dataclass

from charset_normalizer import from_bytes


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
    return DecodedText(str(best), best.encoding)
