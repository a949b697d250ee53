"""DOT text to SVG through Graphviz's `dot -Tsvg`, bounded in time.

The one place the server runs a program. Graphviz's layout grows much faster
than linearly in the states drawn, so callers draw small LTSs only, and a
layout that outlives `timeout_s` is abandoned (the process is killed).
"""

from __future__ import annotations

import shutil
import subprocess


class DrawError(Exception):
    """Graphviz is missing, failed, or took too long; the message says which."""


def dot_to_svg(dot: str, timeout_s: float) -> str:
    """The SVG text of `dot`, without the XML prolog (it is inlined in a page)."""
    program = shutil.which("dot")
    if program is None:
        raise DrawError("Graphviz's `dot` is not installed on the server (Debian: apt-get install graphviz)")
    try:
        done = subprocess.run(
            [program, "-Tsvg"], input=dot.encode(), capture_output=True, check=False, timeout=timeout_s
        )
    except subprocess.TimeoutExpired:
        raise DrawError(f"Graphviz took more than {timeout_s:g} s to lay the picture out") from None
    if done.returncode != 0:
        raise DrawError(f"dot -Tsvg failed: {done.stderr.decode(errors='replace').strip()}")
    text = done.stdout.decode("utf-8", errors="replace")
    start = text.find("<svg")
    return text[start:] if start >= 0 else text
