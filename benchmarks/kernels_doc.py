"""Write the corpus section of docs/kernels.md from the checker's own output.

    python benchmarks/kernels_doc.py [--check]

For every kernel under litmus/kernels/: what it is (the first paragraph of
its header comment), its launch, its 11 verdicts as `progress check --format
json` gives them, and for every failing verdict the lasso `progress check
FILE --model M --weak|--strong` prints, in source lines (verdicts with the
same lasso share one block). The section sits between the two marker lines
below in docs/kernels.md and is replaced whole; `--check` writes nothing and
exits 1 if the section is not what the checker says now (the test suite runs it).
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
KERNELS = REPO / "litmus" / "kernels"
DOC = REPO / "docs" / "kernels.md"
BEGIN = "<!-- corpus: begin (written by benchmarks/kernels_doc.py; do not edit by hand) -->"
END = "<!-- corpus: end -->"
SUFFIXES = (".comp", ".hlsl", ".spvasm")
MODELS = ("fair", "HSA", "OBE", "HSA+OBE", "LOBE")
PROGRESS = str(Path(sys.executable).parent / "progress")


def progress(*args: str) -> subprocess.CompletedProcess[str]:
    done = subprocess.run([PROGRESS, *args], capture_output=True, text=True, cwd=REPO, timeout=600)
    if done.returncode not in (0, 1) or "Traceback" in done.stderr:
        raise SystemExit(f"progress {' '.join(args)}: exit {done.returncode}\n{done.stderr}")
    return done


def summary(text: str) -> str:
    """The header comment's first paragraph after the progress/expect lines, as one line."""
    lines = [re.sub(r"^\s*(//|;)\s?", "", line) for line in text.splitlines() if re.match(r"^\s*(//|;)", line)]
    body = [line for line in lines if not re.match(r"(progress|expect):", line)]
    paragraph = []
    for line in body:
        if not line.strip():
            if paragraph:
                break
            continue
        paragraph.append(line.strip())
    return " ".join(paragraph)


def verdict_table(results: list[dict]) -> list[str]:
    cell = {(r["model"], r["fairness"]): "P" if r["terminates"] else "**F**" for r in results}
    lines = ["| | unfair | " + " | ".join(MODELS) + " |", "|---|---|" + "---|" * len(MODELS)]
    for fairness in ("weak", "strong"):
        row = [cell.get(("unfair", "none"), "?")] + [cell.get((m, fairness), "?") for m in MODELS]
        lines.append(f"| {fairness} | " + " | ".join(row) + " |")
    return lines


def lassos(path: Path, results: list[dict]) -> list[str]:
    """One block per distinct lasso of the failing verdicts, headed by the verdicts that share it."""
    blocks: dict[str, list[str]] = {}
    relative = path.relative_to(REPO).as_posix()
    for r in results:
        if r["terminates"]:
            continue
        args = ["check", relative, "--model", r["model"], "--witness"]
        if r["fairness"] != "none":
            args.append(f"--{r['fairness']}")
        shown = progress(*args).stdout.rstrip()
        label = r["model"] if r["fairness"] == "none" else f"{r['model']}/{r['fairness']}"
        blocks.setdefault(shown, []).append(label)
    lines = []
    for shown, labels in blocks.items():
        lines += [f"{', '.join(labels)}:", "", "```", shown, "```", ""]
    return lines


def kernel_section(path: Path) -> list[str]:
    text = path.read_text()
    relative = path.relative_to(REPO).as_posix()
    record = json.loads(progress("check", relative, "--format", "json").stdout.splitlines()[0])
    launch = re.search(r"^\s*(?://|;)\s*progress:(.*)$", text, re.MULTILINE)
    lines = [f"### `{path.name}`", "", summary(text), ""]
    lines += [f"Launch: `{launch.group(1).strip() if launch else '(none)'}`. Source: [{relative}](../{relative}).", ""]
    lines += verdict_table(record["results"]) + [""]
    return lines + lassos(path, record["results"])


def section() -> str:
    files = sorted(f for f in KERNELS.iterdir() if f.suffix in SUFFIXES)
    lines = [
        BEGIN,
        "",
        "Every kernel of `litmus/kernels/` as `progress check` sees it now: its verdicts (P: guaranteed",
        "to terminate, **F**: may not terminate) and, for each failing verdict, the lasso it prints.",
        "Each file's comments give the reason for every verdict. Regenerate with",
        "`python benchmarks/kernels_doc.py`; `tests/test_kernel_corpus.py` fails when this section is stale.",
        "",
    ]
    for path in files:
        lines += kernel_section(path)
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
