"""`slangc` for the toolchain: Slang's compiler as a command (slangpy ships none).

    python -m progress.cli.slangc LIBRARY --version
    python -m progress.cli.slangc LIBRARY OUT SLANGC-ARGUMENTS...

`progress.front.spirv.slang` does the work; this prints its diagnostics to
stderr. Exit status 0 when OUT was written, 1 when not, 2 on bad usage.
"""

from __future__ import annotations

import sys

from progress.front.spirv.slang import build_tag, compile_to


def main(argv: list[str]) -> int:
    if len(argv) == 2 and argv[1] == "--version":
        print("slang " + build_tag(argv[0]))
        return 0
    if len(argv) < 3:
        print("usage: python -m progress.cli.slangc LIBRARY OUT ARGUMENTS...", file=sys.stderr)
        return 2
    status, diagnostics = compile_to(argv[0], argv[1], argv[2:])
    sys.stderr.write(diagnostics)
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
