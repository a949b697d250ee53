"""tests/brute.py run as a script: the plain brute-force checker in Python
that `progress check` is measured against (benchmarks/bench_scale.py).

    python benchmarks/brute_check.py DIRECTORY

Reads every .axb file under DIRECTORY (sorted), decides all 11 verdicts with
tests/brute.py and prints one line per test: its path and the verdicts
(P = guaranteed to terminate, F = may not), in the order of
`progress check`'s table.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

import brute  # noqa: E402

from progress.front.axb.parse import parse_program  # noqa: E402
from progress.front.axb.quickparse import quick_program  # noqa: E402

ORDER = [("unfair", "none")] + [(m, f) for m in ("fair", "HSA", "OBE", "HSA+OBE", "LOBE") for f in ("weak", "strong")]


def main() -> None:
    for path in sorted(Path(sys.argv[1]).rglob("*.axb")):
        text = path.read_text()
        program = quick_program(text, str(path)) or parse_program(text, str(path))
        found = brute.verdicts(program)
        print(path, "".join("P" if found[key] else "F" for key in ORDER))


if __name__ == "__main__":
    main()
