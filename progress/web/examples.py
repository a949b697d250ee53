"""The playground's examples: the paper's mutex as AXB, and kernels of
`litmus/kernels/` (package data: `examples/` links to those files, so an
example is the corpus's file, whose `expect:` line the corpus test checks).

`EXAMPLES` in the order offered; `default_text(language)` the text an empty
playground shows in that language. Read once, on first use.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from progress.front.spirv.load import KIND_OF_SUFFIX

FOLDER = Path(__file__).with_name("examples")
KERNELS = (
    "tas_spinlock.comp",
    "message_passing.comp",
    "ticket_lock.comp",
    "barrier_divergence.comp",
    "local_livelock.comp",
    "mutual_wait.comp",
    "lookback_scan.comp",
    "occupancy_discovery.comp",
    "hlsl_spinlock.hlsl",
    "wgsl_message_passing.wgsl",
    "wgsl_spec_ticket_lock.wgsl",
    "spvasm_spinlock.spvasm",
)
"""The kernels offered, in order (a WGSL one is the corpus's twin in litmus/wgsl/, its link
named `wgsl_` + the twin's name so that stems stay apart); `occupancy_discovery` is larger than the
playground draws."""
MUTEX = """\
test mutex
# Fig. 2 of the paper: two threads acquire and release one lock.
thread 0
  AXB(m, 1, 0, true, 1)       # acquire: swap 1 in; spin while the old value was 1
  AXB(m, 0, end, true, 0)     # release
thread 1
  AXB(m, 1, 0, true, 1)
  AXB(m, 0, 2, true, 0)
"""


@dataclass(frozen=True)
class Example:
    name: str
    """The URL's `example` (the file's stem)."""
    language: str
    text: str


@lru_cache(maxsize=1)
def examples() -> tuple[Example, ...]:
    """Every example, the mutex first."""
    found = [Example("mutex", "axb", MUTEX)]
    for file_name in KERNELS:
        path = FOLDER / file_name
        found.append(Example(path.stem, KIND_OF_SUFFIX[path.suffix], path.read_text(encoding="utf-8")))
    return tuple(found)


def example(name: str) -> Example | None:
    return next((e for e in examples() if e.name == name), None)


def default_text(language: str) -> str:
    """The first example in `language` (the mutex for an unknown one)."""
    return next((e.text for e in examples() if e.language == language), MUTEX)
