"""What a source may be, and how it is named.

A source is an http(s) URL (named as given), a ``file:`` URL or a path (named by its absolute
path, so a ``sitemap`` field, a Leaf's root and a source column agree), or ``-`` for stdin.
:func:`check_source` refuses anything else before a run starts, with a message that names
the source and says what to write instead: a URL yarl cannot parse, another scheme
(``ftp:``), or a host written without its scheme (``www.example.com``) that is no file.
"""

from __future__ import annotations

import os
import re
from urllib.parse import urlsplit

from yarl import URL

# -- RFC 3986 section 3.1; one letter is a Windows drive ("C:\..."), not a scheme.
_SCHEME = re.compile(r"([A-Za-z][A-Za-z0-9+.-]+):")
# A host as people type it without a scheme: a name with dots, an IPv4 address or localhost,
# with or without a port, then nothing or a path ("www.example.com", "127.0.0.1:8080/x.xml").
_HOST = re.compile(
    r"(?P<host>localhost|[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)+)(?P<port>:\d{1,5})?(?P<rest>[/?#].*)?",
    re.DOTALL,
)
_IPV4 = re.compile(r"\d{1,3}(?:\.\d{1,3}){3}")
# A last label that names a file's type, not a top-level domain: "sitemap.xml" is a file.
_FILE_SUFFIXES = frozenset(
    [
        "xml",
        "gz",
        "txt",
        "rss",
        "atom",
        "json",
        "jsonl",
        "csv",
        "tsv",
        "html",
        "htm",
        "xz",
        "zst",
        "bz2",
        "br",
        "zip",
        "parquet",
        "sqlite",
    ]
)


def is_url(source: str) -> bool:
    return source.lower().startswith(("http://", "https://"))


def is_file_url(source: str) -> bool:
    return source[:5].lower() == "file:"


def check_source(source: str | os.PathLike[str]) -> None:
    """Raise ValueError, naming ``source`` and the cause, unless the walk can read it."""
    if not isinstance(source, str) or source == "-":
        return  # a PathLike is a path; "-" is stdin
    if is_url(source):
        _check_url(source)
    elif is_file_url(source):
        file_path(source)
    elif not os.path.exists(source):
        hint = _hint(source)
        if hint is not None:
            raise ValueError(f"{source}: no such file, and not a URL: did you mean {hint}?")
        scheme = _SCHEME.match(source)
        if scheme is not None:
            raise ValueError(
                f"{source}: {scheme[1]}: URLs are not read; a source is an http(s) URL, "
                "a file: URL, a local path or - (stdin)"
            )


def check_base_url(url: str) -> None:
    """Raise ValueError unless ``url`` is an http(s) URL a local file may stand at."""
    if not is_url(url):
        raise ValueError(f"{url!r} is no http(s) URL")
    _check_url(url)


def file_path(source: str) -> str:
    """The local path a ``file:`` URL names; ValueError for one on another host."""
    parts = urlsplit(source)
    if parts.netloc not in ("", "localhost"):
        raise ValueError(f"{source}: a file: URL on another host ({parts.netloc}) is not read")
    # Here, not at the top: urllib.request loads http.client, email and ssl with it, a tenth
    # of the command line's start, for the rare file: URL.
    from urllib.request import url2pathname

    return url2pathname(parts.path)


def source_name(source: str | os.PathLike[str]) -> str:
    """The name the walk gives ``source``: a URL string as it is, anything else a path."""
    if isinstance(source, str):
        if is_url(source):
            return source
        if is_file_url(source):
            return os.path.abspath(file_path(source))
    name = os.fspath(source)
    return name if name == "-" else os.path.abspath(name)


def _check_url(source: str) -> None:
    try:
        url = URL(source)
        host = url.host  # (decoded lazily: an invalid punycode label raises here)
    except (ValueError, TypeError) as exc:
        raise ValueError(f"{source}: not a valid URL ({exc})") from None
    if not host:
        raise ValueError(f"{source}: not a valid URL (it has no host)")


def _hint(source: str) -> str | None:
    """``https://`` + ``source`` when it reads as a host written without its scheme
    (``http://`` for localhost or an IPv4 address)."""
    match = _HOST.fullmatch(source)
    if match is None:
        return None
    host = match["host"]
    suffix = host.rsplit(".", 1)[-1].lower()
    if not match["port"] and (
        suffix in _FILE_SUFFIXES or (suffix.isdigit() and _IPV4.fullmatch(host) is None)
    ):
        return None  # "sitemap.xml", "sitemap.xml/x", "1.5": a file or folder not there
    # A local address is most often a development server, which speaks plain http.
    local = host.lower() == "localhost" or _IPV4.fullmatch(host) is not None
    scheme = "http" if local else "https"
    return f"{scheme}://{source}" if match["rest"] else f"{scheme}://{source}/"
