"""Ctrl-C spread over a cold start of `progress synth` (issue 33), written to
docs/results/ctrl_c.md (and .json).

First one uninterrupted run with empty NUMBA_CACHE_DIR and XDG_CACHE_HOME
measures the cold start (numba compiling the judge and the classifier, the
cache being written) and exports its tests: the reference. Then, for each of
DELAYS fractions of that time, a fresh pair of empty caches: the run gets
SIGINT that long after it printed its first line (the CLI is loaded then),
and must exit 130 with no traceback and at most one line of its own on
standard error; what the numba cache holds then is counted; then the same
command with --resume on the same store and cache must finish and export
exactly the reference's tests.

    python3 benchmarks/ctrl_c_cold.py [--delays 0.1,0.3,0.5,0.7,0.9]
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
OUT = REPO / "docs" / "results"
COMMAND = [sys.executable, "-m", "progress", "synth", "-t", "2", "-i", "3"]


def tree(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def fresh(folder: Path) -> dict[str, str]:
    return dict(os.environ, NUMBA_CACHE_DIR=str(folder / "numba"), XDG_CACHE_HOME=str(folder / "cache"))


def default_sigint() -> None:
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def start(args: list[str], env: dict[str, str]) -> tuple[subprocess.Popen, float, str]:
    """The child, when it printed its first line, and that line."""
    child = subprocess.Popen(
        COMMAND + args,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=default_sigint,
    )
    assert child.stderr is not None
    first = child.stderr.readline()
    return child, time.monotonic(), first


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--delays", default="0.05,0.25,0.45,0.65,0.85")
    fractions = [float(x) for x in parser.parse_args().delays.split(",")]
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)
        env = fresh(base / "ref")
        began = time.monotonic()
        child, first_at, _ = start(["--out", str(base / "ref.db"), "--export", str(base / "ref-export")], env)
        child.communicate(timeout=1800)
        cold = time.monotonic() - first_at
        assert child.returncode == 0
        reference = tree(base / "ref-export")
        print(f"cold start: {time.monotonic() - began:.1f} s in all, {cold:.1f} s after the first line", flush=True)
        for fraction in fractions:
            folder = base / f"d{fraction}"
            env = fresh(folder)
            db = folder / "run.db"
            child, first_at, first = start(["--out", str(db)], env)
            time.sleep(max(0.0, fraction * cold - (time.monotonic() - first_at)))
            sent = time.monotonic()
            child.send_signal(signal.SIGINT)
            out, err = child.communicate(timeout=600)
            err = first + err
            stopped = time.monotonic() - sent
            own = [line for line in err.splitlines() if not line.startswith("progress: ")]
            cached = len(list((folder / "numba").rglob("*.nbi")))
            resumed_at = time.monotonic()
            done = subprocess.run(
                COMMAND + ["--out", str(db), "--resume", "--export", str(folder / "export")],
                env=env,
                capture_output=True,
                text=True,
                timeout=1800,
            )
            resumed = time.monotonic() - resumed_at
            row = {
                "delay_s": round(sent - first_at, 2),
                "fraction": fraction,
                "exit": child.returncode,
                "stopped_after_s": round(stopped, 2),
                "own_lines": own,
                "traceback": "Traceback" in err or "Exception ignored" in err,
                "interrupted_said": "interrupted" in out + err,
                "cache_entries": cached,
                "resume_exit": done.returncode,
                "resume_s": round(resumed, 1),
                "resume_traceback": "Traceback" in done.stderr,
                "same_tests": done.returncode == 0 and tree(folder / "export") == reference,
            }
            rows.append(row)
            print(json.dumps(row), flush=True)
    ok = all(
        r["exit"] == 130
        and not r["traceback"]
        and len(r["own_lines"]) <= 1
        and r["interrupted_said"]
        and r["same_tests"]
        for r in rows
    )
    meta = {
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "commit": subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], cwd=REPO, capture_output=True, text=True
        ).stdout.strip(),
        "cold_start_s": round(cold, 1),
        "load": os.getloadavg(),
        "cpus": os.cpu_count(),
        "all_ok": ok,
    }
    (OUT / "ctrl_c.json").write_text(json.dumps({"meta": meta, "runs": rows}, indent=1) + "\n")
    lines = [
        "# Ctrl-C during a cold start (issue 33)",
        "",
        "`python3 benchmarks/ctrl_c_cold.py`: `progress synth -t 2 -i 3` with empty `NUMBA_CACHE_DIR`",
        "and `XDG_CACHE_HOME`, SIGINT at fractions of the measured cold start (from the run's first",
        "line, when the CLI is loaded), then `--resume` on the same store and cache. Generated.",
        "",
        f"Run {meta['date']} at {meta['commit']}, {meta['cpus']} CPUs, load average {meta['load'][0]:.2f} "
        f"at the end (a shared machine). The uninterrupted cold start took {meta['cold_start_s']} s from "
        "its first line.",
        "",
        "| SIGINT after | exit | stopped in | own lines on stderr | traceback | cache entries then "
        "| resume: exit, wall | same tests as uninterrupted |",
        "|---:|---:|---:|---|---|---:|---|---|",
    ]
    for r in rows:
        said = "; ".join(r["own_lines"]) or "(none: `interrupted: ...` is the summary on stdout)"
        lines.append(
            f"| {r['delay_s']:.1f} s | {r['exit']} | {r['stopped_after_s']:.1f} s | {said} "
            f"| {'YES' if r['traceback'] else 'no'} | {r['cache_entries']} | {r['resume_exit']}, {r['resume_s']:.1f} s "
            f"| {'yes' if r['same_tests'] else 'NO'} |"
        )
    lines += ["", f"All as required: {'yes' if ok else 'NO'}."]
    (OUT / "ctrl_c.md").write_text("\n".join(lines) + "\n")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
