"""Write the corpus section of docs/kernels.md from the checker's own output.

    python benchmarks/kernels_doc.py [--check]

For every kernel under litmus/kernels/: what it is (the first paragraph of
its header comment), its launch, and what one `progress check FILES
--witness` process prints for it: the verdict table and, for every failing
verdict, the lasso in source lines (verdicts with the same lasso share one
block). The section sits between the two marker lines below in
docs/kernels.md and is replaced whole (appended, under its own heading, when
the markers are missing); `--check` writes nothing and exits 1 if the
section is not what the checker says now (tests/test_kernel_corpus.py runs it).
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
KERNELS = REPO / "litmus" / "kernels"
DOC = REPO / "docs" / "kernels.md"
BEGIN = "<!-- corpus: begin (written by benchmarks/kernels_doc.py; do not edit by hand) -->"
END = "<!-- corpus: end -->"
SUFFIXES = (".comp", ".glsl", ".hlsl", ".spvasm")
MODELS = ("fair", "HSA", "OBE", "HSA+OBE", "LOBE")
PROGRESS = str(Path(sys.executable).parent / "progress")


def progress(*args: str) -> str:
    done = subprocess.run([PROGRESS, *args], capture_output=True, text=True, cwd=REPO, timeout=600)
    if done.returncode not in (0, 1) or "Traceback" in done.stderr:
        raise SystemExit(f"progress {' '.join(args)}: exit {done.returncode}\n{done.stderr}")
    return done.stdout


def summary(text: str) -> str:
    """The header comment's first paragraph after the progress/expect lines, as one line."""
    lines = [re.sub(r"^\s*(//|;)\s?", "", line) for line in text.splitlines() if re.match(r"^\s*(//|;)", line)]
    body = [line for line in lines if not re.match(r"(progress|expect|@Input|@Config):", line)]
    paragraph: list[str] = []
    for line in body:
        if not line.strip():
            if paragraph:
                break
            continue
        paragraph.append(line.strip())
    return " ".join(paragraph)


def reports(files: list[Path]) -> dict[str, list[str]]:
    """`progress check FILES --witness`, one process: each test's lines (header, table, lassos) by its file."""
    shown = progress("check", *(f.relative_to(REPO).as_posix() for f in files), "--witness")
    found: dict[str, list[str]] = {}
    current: list[str] = []
    for line in shown.splitlines():
        if line.startswith("checked "):
            break
        if line and not line.startswith(" "):
            current = found.setdefault(line.split()[1], [])
        current.append(line)
    return found


def blocks(lines: list[str]) -> tuple[list[str], dict[str, list[str]]]:
    """The verdict table, and each distinct lasso with the verdicts that share it."""
    table = [line for line in lines[1:] if not _verdict(line)][: len(MODELS) + 2]
    lassos: dict[str, list[str]] = {}
    label, body = "", []
    for line in lines[len(table) + 1 :] + ["  end: may not terminate"]:
        if _verdict(line):
            if body:
                lassos.setdefault("\n".join(body), []).append(label)
            label, body = line.split(":")[0].strip().replace(" none", "").replace(" ", "/"), []
        else:
            body.append(line[4:])
    return table, lassos


def _verdict(line: str) -> bool:
    return line.startswith("  ") and not line.startswith("   ") and line.endswith(": may not terminate")


def kernel_section(path: Path, lines: list[str]) -> list[str]:
    text = path.read_text()
    relative = path.relative_to(REPO).as_posix()
    launch = re.findall(r"^\s*(?://|;)\s*(?:progress:\s*|(@(?:Input|Config):.*))(.*)$", text, re.MULTILINE)
    shown = "` `".join((dat3m or rest).strip() for dat3m, rest in launch) or "(none)"
    table, lassos = blocks(lines)
    out = [f"### `{path.name}`", "", summary(text), ""]
    out += [f"Launch: `{shown}`. Source: [{relative}](../{relative}).", ""]
    out += ["```", *table, "```", ""]
    for body, labels in lassos.items():
        out += [f"{', '.join(labels)}:", "", "```", body, "```", ""]
    return out


def section() -> str:
    files = sorted(f for f in KERNELS.iterdir() if f.suffix in SUFFIXES)
    found = reports(files)
    lines = [
        BEGIN,
        "",
        "Every kernel of `litmus/kernels/` as `progress check FILES --witness` shows it now: its verdict",
        "table and, for every verdict that fails, its lasso in source lines (verdicts whose lassos are",
        "the same share one block). Each step reads `step  workgroup.invocation  F  file:line  source",
        "[shared memory it changed]`. Each file's comments give the reason for every verdict.",
        "Regenerate with `python benchmarks/kernels_doc.py`; `tests/test_kernel_corpus.py` fails when",
        "this section is stale.",
        "",
    ]
    for path in files:
        lines += kernel_section(path, found[path.relative_to(REPO).as_posix()])
    return "\n".join(lines + [END])


def replaced(doc: str, new: str) -> str:
    if BEGIN in doc and END in doc:
        head, _, rest = doc.partition(BEGIN)
        _, _, tail = rest.partition(END)
        return head + new + tail
    return doc.rstrip("\n") + "\n\n## The corpus: every kernel's verdicts and lassos\n\n" + new + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if docs/kernels.md is stale; write nothing")
    args = parser.parse_args()
    doc = DOC.read_text() if DOC.exists() else "# Kernels\n"
    new = replaced(doc, section())
    if args.check:
        sys.exit(0 if new == doc else 1)
    DOC.write_text(new)


if __name__ == "__main__":
    main()
