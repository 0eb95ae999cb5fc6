"""Encodings the charset tests read documents in: legacy multi-byte, single-byte and UTF-16/32."""

from __future__ import annotations

ENCODINGS = {
    "GBK": ("gbk", "中文/目录"),
    "GB18030": ("gb18030", "中文/\U00020bb7"),  # a 4-byte GB18030 character
    "Big5": ("big5", "中文/繁體"),
    "Shift_JIS": ("shift_jis", "日本語/東京"),
    "EUC-JP": ("euc_jp", "日本語/大阪"),
    "EUC-KR": ("euc_kr", "한국어/서울"),
    "windows-1252": ("cp1252", "café/€uro"),
    "ISO-8859-2": ("iso8859_2", "Łódź/Kraków"),
    "KOI8-R": ("koi8_r", "Москва/Кремль"),
}
WIDE = "日本/한국/ж/\U0001f600"  # for UTF-16, which writes every character
# How each UTF-16 / UTF-32 variant is written: (declared name, codec, byte-order mark).
WIDE_FORMS = {
    "utf-16le-bom": ("UTF-16", "utf-16-le", b"\xff\xfe"),
    "utf-16be-bom": ("UTF-16", "utf-16-be", b"\xfe\xff"),
    "utf-16le": ("UTF-16", "utf-16-le", b""),
    "utf-16be": ("UTF-16", "utf-16-be", b""),
    "utf-32le-bom": ("UTF-32", "utf-32-le", b"\xff\xfe\x00\x00"),
    "utf-32be": ("UTF-32", "utf-32-be", b""),
}
