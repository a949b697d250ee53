"""The playground's request: what it asks for, read from an address's query
or a posted form, with the text's line ends as the user typed them.

A browser sends a textarea's every line end as CRLF (HTML's form
encoding), so a test of 500 lines arrives 500 bytes longer than it was
typed; the text is read back with LF line ends before any limit applies.
Pure: strings in, a `PlayRequest` out.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from urllib.parse import parse_qsl

from progress.web.kernel_check import LaunchFields

FIELDS = ("test", "lang", "view", "example", "suite", "key", *LaunchFields.NAMES)
"""The names the playground reads; anything else in a query or form is ignored."""


@dataclass(frozen=True)
class PlayRequest:
    """The text to check (None: show an example unchecked), its language,
    the verdict to draw, the kernel's launch fields; or an example or a
    suite's test to load instead."""

    text: str | None = None
    language: str = "axb"
    view: str | None = None
    fields: LaunchFields = LaunchFields()
    example: str | None = None
    suite: str | None = None
    key: str | None = None


def typed(text: str) -> str:
    """`text` with the form's CRLF line ends back to LF."""
    return text.replace("\r\n", "\n")


def form_fields(body: bytes) -> dict[str, str]:
    """An `application/x-www-form-urlencoded` body's fields (the first of each
    name); bytes that are not UTF-8 read as U+FFFD, as a query's do."""
    pairs = parse_qsl(body.decode("utf-8", "replace"), keep_blank_values=True, max_num_fields=len(FIELDS) * 4)
    found: dict[str, str] = {}
    for name, value in pairs:
        found.setdefault(name, value)
    return found


def play_request(params: Mapping[str, str]) -> PlayRequest:
    """The request that a query's or a form's fields make."""
    text = params.get("test")
    fields = LaunchFields(*(typed(params.get(name, "")) for name in LaunchFields.NAMES))
    return PlayRequest(
        text=None if text is None else typed(text),
        language=params.get("lang") or "axb",
        view=params.get("view") or None,
        fields=fields,
        example=params.get("example"),
        suite=params.get("suite") or None,
        key=params.get("key") or None,
    )
