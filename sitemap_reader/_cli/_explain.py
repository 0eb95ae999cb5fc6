"""``check --explain CODE`` and ``check --codes``: the registry of check's codes, told from
the command line as text or JSON lines, with no source read."""

from __future__ import annotations

import difflib
import json
import textwrap
from typing import IO, Any

import sitemap_reader as sr

from ._options import UsageError

_IN = "  "


def lookup(text: str) -> sr.Code:
    """The code ``text`` names, by its code (P301, p301) or its name (too-many-urls);
    UsageError naming it, with the codes closest to it, otherwise."""
    wanted = text.strip()
    by_word = {c.code.lower(): c for c in sr.CODES.values()}
    by_word.update({c.name: c for c in sr.CODES.values()})
    found = by_word.get(wanted.lower())
    if found is not None:
        return found
    close = difflib.get_close_matches(wanted.lower(), by_word, n=3, cutoff=0.6)
    names = [f"{by_word[w].code} {by_word[w].name}" for w in close]
    said = ", ".join(names[:-1]) + " or " + names[-1] if len(names) > 1 else "".join(names)
    hint = f": did you mean {said}?" if names else " (check --codes lists them)"
    raise UsageError(f"--explain: no code {text!r}{hint}")


def code_to_dict(code: sr.Code) -> dict[str, Any]:
    """The JSON object of a code."""
    return {
        "code": code.code,
        "name": code.name,
        "severity": code.severity.value,
        "summary": code.summary,
        "meaning": code.meaning,
        "fix": code.fix,
        "example": code.example,
    }


def write_codes(out: IO[str], *, json_out: bool) -> None:
    """Every code: one line each (code, severity, name, summary), or one JSON object each."""
    width = max(len(code.name) for code in sr.CODES.values())
    for code in sr.CODES.values():
        if json_out:
            out.write(json.dumps(code_to_dict(code), ensure_ascii=False) + "\n")
        else:
            out.write(
                f"{code.code}  {code.severity.value:<7}  {code.name:<{width}}  {code.summary}\n"
            )


def write_explained(code: sr.Code, out: IO[str], *, json_out: bool) -> None:
    """One code told in full: its name, what it means, how to fix it, an example."""
    if json_out:
        out.write(json.dumps(code_to_dict(code), ensure_ascii=False) + "\n")
        return
    out.write(f"{code.code} {code.name} ({code.severity.value}): {code.summary}\n")
    for title, body in (("What it means", code.meaning), ("How to fix it", _sentence(code.fix))):
        out.write(
            f"\n{title}:\n{textwrap.fill(body, 88, initial_indent=_IN, subsequent_indent=_IN)}\n"
        )
    out.write(f"\nExample:\n{_IN}{code.example}\n")  # verbatim: a snippet is not rewrapped


def _sentence(text: str) -> str:
    return text[:1].upper() + text[1:] + ("" if text.endswith(".") else ".")
