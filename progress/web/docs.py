"""The project's documentation (docs/*.md, docs/results/*.md) served as
pages: Markdown through markdown-it (raw HTML in the sources is not
passed on), headings given GitHub's anchors so that links between the
files keep working, links to `x.md` turned into the page `x`. Only names
of files in the folder are served; the images come from docs/images/.
"""

from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path
from typing import Any

from markdown_it import MarkdownIt

from progress.web.html import attr, esc, page

FOLDER = Path(__file__).with_name("docs")
"""docs/ of the checkout (`progress/web/docs` links to it; package data in an install)."""
NAME = re.compile(r"^(results/)?[A-Za-z0-9_][A-Za-z0-9_-]*$")
IMAGE = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.-]*\.(png|svg)$")
MD_LINK = re.compile(r"^(?![a-z][a-z0-9+.-]*:|/|#)(?P<path>[^#?]*?)\.md(?P<rest>#.*)?$")


def slug(text: str) -> str:
    """GitHub's heading anchor: lower case, punctuation dropped, spaces to hyphens."""
    return re.sub(r"[^\w\- ]", "", text.strip().lower()).replace(" ", "-")


def _renderer() -> MarkdownIt:
    md = MarkdownIt("commonmark", {"html": False, "linkify": False}).enable("table")
    return md


def render(text: str) -> tuple[str, str]:
    """The title (the first heading) and the HTML of a Markdown text, links
    to other .md files made links to their pages, headings given anchors."""
    md = _renderer()
    tokens = md.parse(text)
    title = ""
    for index, token in enumerate(tokens):
        if token.type == "heading_open":
            words = tokens[index + 1].content
            token.attrSet("id", slug(words))
            title = title or words
        for child in token.children or ():
            if child.type == "link_open":
                child.attrSet("href", _href(str(child.attrGet("href") or "")))
    env: dict[str, Any] = {}
    return title, md.renderer.render(tokens, md.options, env)


def _href(href: str) -> str:
    found = MD_LINK.match(href)
    if found is None:
        return href
    return found.group("path") + (found.group("rest") or "")


class Docs:
    """The documentation in `folder`, rendered once per page."""

    def __init__(self, folder: Path = FOLDER):
        self.folder = folder

    def names(self) -> list[tuple[str, str]]:
        """(page name, title) of every top-level document, the results after them."""
        found = []
        for path in sorted(self.folder.glob("*.md")) + sorted(self.folder.glob("results/*.md")):
            name = path.relative_to(self.folder).with_suffix("").as_posix()
            found.append((name, self._rendered(name)[0] or name))
        return found

    def page(self, name: str) -> str | None:
        """The page of docs/NAME.md ("" is the list of them), or None."""
        if name in ("", "/"):
            return self._index()
        name = name.removesuffix(".md")
        if not NAME.match(name) or not (self.folder / f"{name}.md").is_file():
            return None
        title, body = self._rendered(name)
        return page(title or name, f"<article class=doc>{body}</article>", lead=f"docs/{esc(name)}.md")

    def image(self, name: str) -> Path | None:
        path = self.folder / "images" / name
        return path if IMAGE.match(name) and path.is_file() else None

    def _rendered(self, name: str) -> tuple[str, str]:
        return _render_file(self.folder / f"{name}.md")

    def _index(self) -> str:
        items = "".join(
            f"<li><a href={attr('/docs/' + n)}>{esc(t)}</a> <span class=muted>{esc(n)}.md</span></li>"
            for n, t in self.names()
        )
        return page("Documentation", f"<ul class=links>{items}</ul>", lead="The project's documentation, as in docs/.")


@lru_cache(maxsize=64)
def _render_file(path: Path) -> tuple[str, str]:
    title, body = render(path.read_text(encoding="utf-8"))
    return title.replace("`", "").strip(), _strip_h1(body)


def _strip_h1(body: str) -> str:
    """The body without its first h1 (the page frame shows the title)."""
    return re.sub(r"^<h1[^>]*>.*?</h1>\n?", "", body, count=1, flags=re.S)
