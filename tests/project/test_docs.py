"""The documentation's structure: every page mkdocs.yml's nav names exists, every page under
docs/ is in the nav, and the drafts under docs/_notes are kept out of the build."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
MKDOCS = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")


def nav_pages() -> list[str]:
    """The pages of the nav, in order (each a ``title: page.md`` line under ``nav:``)."""
    nav = MKDOCS.split("\nnav:\n", 1)[1].split("\n\n", 1)[0]
    return re.findall(r"^\s+- [^:\n]+: (\S+\.md)$", nav, re.MULTILINE)


def test_every_nav_page_exists() -> None:
    pages = nav_pages()
    assert "index.md" in pages and len(pages) == len(set(pages))
    assert [page for page in pages if not (DOCS / page).is_file()] == []


def test_every_page_is_in_the_nav() -> None:
    """A page left out of the nav would be built but never linked."""
    pages = {p.relative_to(DOCS).as_posix() for p in DOCS.rglob("*.md")}
    drafts = {page for page in pages if page.startswith("_notes/")}
    assert pages - drafts == set(nav_pages())


def test_drafts_are_excluded_from_the_build() -> None:
    """Other engineers' drafts in docs/_notes must never break ``mkdocs build --strict``."""
    excluded = MKDOCS.split("\nexclude_docs: |\n", 1)[1].split("\n\n", 1)[0].split()
    assert "_notes/" in excluded
    assert re.search(r"^strict: true$", MKDOCS, re.MULTILINE)


def test_pages_cite_no_file_outside_the_repository() -> None:
    """The design notes the code relies on are written in docs/, not cited from elsewhere."""
    cited = re.compile(r"PROTOCOL\.md|DESIGN\.md|STYLE\.md|\bSTYLE [C\d]")
    pages = [ROOT / "README.md", *DOCS.rglob("*.md")]
    assert [p.name for p in pages if "_notes" not in p.parts and cited.search(p.read_text())] == []


def test_the_library_reference_names_every_public_name() -> None:
    """docs/library.md has a mkdocstrings entry for each name of ``__all__``, and no other."""
    import sitemap_reader

    page = (DOCS / "library.md").read_text(encoding="utf-8")
    documented = re.findall(r"^::: sitemap_reader\.(\w+)$", page, re.MULTILINE)
    assert len(documented) == len(set(documented))
    assert set(documented) == set(sitemap_reader.__all__) - {"__version__"}
    assert re.findall(r"^::: sitemap_reader\.(dask|dlt|scrapy)\.", page, re.MULTILINE) == [
        "dask",
        "dlt",
        "scrapy",
    ]
