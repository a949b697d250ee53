"""HTML building blocks: escaping, the page frame, tables. Pure: strings in, a string out.

Everything that comes from a request, a test file or a submission goes
through `esc` (or `attr`) before it reaches a page.
"""

from __future__ import annotations

import html
from collections.abc import Iterable, Sequence
from urllib.parse import urlencode

NAV = (
    ("/", "home"),
    ("/playground", "playground"),
    ("/devices", "devices"),
    ("/summary", "summary"),
    ("/glossary", "glossary"),
    ("/docs", "docs"),
)


def esc(text: object) -> str:
    return html.escape(str(text), quote=True)


def attr(text: object) -> str:
    return '"' + html.escape(str(text), quote=True) + '"'


def link(href: str, text: object, query: dict[str, str] | None = None) -> str:
    target = href + ("?" + urlencode(query) if query else "")
    return f"<a href={attr(target)}>{esc(text)}</a>"


def page(title: str, body: str, scripts: Sequence[str] = (), lead: str = "") -> str:
    """A whole document: the navigation bar, the title, `lead` (a sentence
    under it, HTML), `body` (already HTML)."""
    nav = " ".join(f"<a href={attr(href)}>{esc(name)}</a>" for href, name in NAV)
    tags = "".join(f'<script src="/static/{esc(s)}" defer></script>' for s in scripts)
    intro = f"<p class=lead>{lead}</p>" if lead else ""
    return (
        "<!doctype html>\n<html lang=en><head><meta charset=utf-8>"
        '<meta name=viewport content="width=device-width, initial-scale=1">'
        f'<title>{esc(title)} · progress</title><link rel=icon href="/static/favicon.svg" type="image/svg+xml">'
        f'<link rel=stylesheet href="/static/style.css">{tags}</head>'
        f"<body><header><a class=brand href=/>progress</a> <nav>{nav}</nav></header>"
        f"<main><h1>{esc(title)}</h1>{intro}\n{body}\n</main>"
        "<footer>progress: GPU forward progress, checked and run · "
        "<a href=/docs/web>about these pages</a></footer></body></html>\n"
    )


def not_found_page(path: str, what: str = "") -> str:
    """The page for an address that names nothing (HTTP 404)."""
    said = f"<p class=error id=missing>{esc(what)}</p>" if what else ""
    body = (
        f"{said}<p>Nothing is served at <code>{esc(path)}</code>. You may want:</p><ul class=links>"
        "<li><a href=/>the suites</a>: every test checked under every progress model</li>"
        "<li><a href=/playground>the playground</a>: check a test or a kernel you write</li>"
        "<li><a href=/devices>the devices</a> and <a href=/summary>their summary</a>: GPU runs</li>"
        "<li><a href=/glossary>the glossary</a> and <a href=/docs>the documentation</a></li></ul>"
    )
    return page("Page not found", body)


def table(head: Sequence[str], rows: Iterable[Sequence[str]], cls: str = "") -> str:
    """A table; `head` is plain text, cells are HTML already (escape first)."""
    top = "".join(f"<th>{esc(h)}</th>" for h in head)
    body = "".join("<tr>" + "".join(f"<td>{c}</td>" for c in row) + "</tr>" for row in rows)
    klass = f" class={attr(cls)}" if cls else ""
    return f"<div class=fit><table{klass}><thead><tr>{top}</tr></thead><tbody>{body}</tbody></table></div>"


def verdict_cell(letter: str) -> str:
    """`P` / `F` / `?` as a coloured cell."""
    kind = {"P": "pass", "F": "fail"}.get(letter, "unknown")
    return f"<span class={attr(kind)}>{esc(letter)}</span>"


def result_cell(cell: str) -> str:
    """A GPU result `P` or `F (k/N)` coloured."""
    return f"<span class={attr('pass' if cell == 'P' else 'fail')}>{esc(cell)}</span>"
