"""Loop exits in naga's WGSL against the SPIR-V the checker reads, per kernel of litmus/kernels/.

For each kernel the runner takes (`progress.cli.kernel_run.prepared`, leave
"return"), the module wgpu is handed goes through naga's SPIR-V reader and
WGSL writer (naga-wasm, as `progress/front/wgsl/naga.py` pins it). SPIR-V
side: loops (OpLoopMerge), loop exits (edges to a loop's merge block), and
the exits from a switch construct other than to its merge
(`progress.back.spirv_naga.switch_exits`) in the module as loaded, before
`for_naga` rewrote them. WGSL side (`breaks`): `loop {` statements, and each
`break;` by the construct it leaves, the innermost `loop` or `switch`
around it (`break if` leaves its loop). A `break;` whose innermost
breakable is a switch but is not the last statement of its case is a loop
exit naga put inside a switch, where it leaves only the switch
(gfx-rs/naga#1575). Usage (the kernels default to litmus/kernels/*):

    python benchmarks/naga_loop_exits.py [KERNEL...] > docs/results/gpu/kernels/naga_loop_exits.txt
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


@dataclass(frozen=True)
class Break:
    """A `break;` (or `break if`) of naga's WGSL: its 1-based line, the construct it
    leaves ("loop" or "switch"), and whether it ends its switch case."""

    line: int
    leaves: str
    ends_case: bool

    @property
    def misplaced(self) -> bool:
        """A break that leaves a switch from the middle of a case: a loop exit naga moved into it."""
        return self.leaves == "switch" and not self.ends_case


def breaks(wgsl: str) -> list[Break]:
    """Every break of `wgsl` (naga's writer: one statement per line, braces at line ends)."""
    lines = wgsl.splitlines()
    stack: list[str] = []
    found = []
    for number, text in enumerate(lines, 1):
        stripped = text.strip()
        if stripped.startswith("}"):
            stack.pop()
            stripped = stripped[1:].strip()
        if stripped in ("break;",) or stripped.startswith("break if"):
            leaves = "loop" if stripped.startswith("break if") else _innermost(stack)
            closing = lines[number].strip() if number < len(lines) else ""
            ends_case = leaves == "switch" and stack[-1] == "case" and closing == "}"
            found.append(Break(number, leaves, ends_case))
        if stripped.endswith("{"):
            word = stripped.split()[0] if stripped.split() else ""
            stack.append(
                "loop"
                if word == "loop"
                else "switch"
                if word == "switch"
                else "case"
                if word in ("case", "default:")
                else "block"
            )
    return found


_KINDS = {"loop": "loop", "switch": "switch", "case": "case", "default:": "case"}


def loops(wgsl: str) -> int:
    return sum(1 for line in wgsl.splitlines() if line.strip() == "loop {")


def _innermost(stack: list[str]) -> str:
    return next((kind for kind in reversed(stack) if kind in ("loop", "switch")), "none")


def main(paths: list[str]) -> int:
    from progress.back.spirv_edit import Draft
    from progress.back.spirv_naga import switch_exits
    from progress.cli.kernel_run import prepared
    from progress.errors import ProgressError
    from progress.front.header import LaunchSettings
    from progress.front.wgsl.naga import NagaRefusal, spirv_to_wgsl, version

    print(f"# naga's WGSL loop exits per kernel ({version()}); see benchmarks/naga_loop_exits.py")
    print("# kernel: SPIR-V loops/loop-exit edges/switch exits (as loaded) | WGSL loops/loop breaks/misplaced breaks")
    for path in paths:
        name = Path(path).name
        try:
            loaded, launch, _ = prepared(path, LaunchSettings(), check=False)
        except ProgressError as error:
            print(f"{name}: not taken by the runner: {str(error).splitlines()[0][:160]}")
            continue
        draft = Draft(loaded.module)
        merges = {i.operands[0] for f in draft.functions for b in f.blocks for i in b.body if i.opcode == "OpLoopMerge"}
        edges = sum(
            1 for f in draft.functions for b in f.blocks for t in b.successors() if any(t == m.value for m in merges)
        )
        exits = [e for f in draft.functions for e in switch_exits(f)]
        said = ", ".join(f"%{e.switch.label}->%{e.target} ({e.kind})" for e in exits)
        try:
            wgsl = spirv_to_wgsl(launch.binary)
        except NagaRefusal as refusal:
            why = refusal.formatted.strip().splitlines()[0][:120]
            print(f"{name}: spirv {len(merges)}/{edges}/{len(exits)} | naga refuses: {why}")
            continue
        found = breaks(wgsl)
        out = sum(1 for b in found if b.leaves == "loop")
        bad = [b.line for b in found if b.misplaced]
        print(
            f"{name}: spirv {len(merges)}/{edges}/{len(exits)}{' [' + said + '] rewritten' if exits else ''}"
            f" | wgsl {loops(wgsl)}/{out}/{len(bad)}{' at lines ' + str(bad) if bad else ''}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:] or sorted(str(p.relative_to(REPO)) for p in (REPO / "litmus" / "kernels").iterdir())))
