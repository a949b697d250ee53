"""The reruns of call F and G against call E's whole 3t5i run: which failures repeat.

    python docs/results/gpu/interp/rerun_summary.py   # prints the table in report.md
"""

import csv
import re
from collections import Counter
from pathlib import Path

HERE = Path(__file__).parent
RERUNS = {"chunked": "t3t5i_rerun_chunked.csv", "plain": "t3t5i_rerun_plain.csv", "rr": "t3t5i_rerun_rr.csv"}


def failed(cell: str) -> int:
    match = re.match(r"F \((\d+)/\d+\)", cell)
    return int(match[1]) if match else 0


def main() -> None:
    with open(HERE / "t3t5i.csv", newline="") as file:
        first = {row["test"]: row for row in csv.DictReader(file)}
    print("| heuristic | failed in the whole run | rerun iterations | failed again | by k of F (k/5) in the whole run: failed again / tests |")
    print("|---|---:|---:|---:|---|")
    for heuristic, name in RERUNS.items():
        with open(HERE / name, newline="") as file:
            rows = list(csv.DictReader(file))
        wanted = {key for key, row in first.items() if row[heuristic].startswith("F")}
        assert {row["test"] for row in rows} == wanted, f"{name} is not the set of {heuristic} failures"
        iterations = {re.search(r"/(\d+)\)", row[heuristic])[1] for row in rows if row[heuristic].startswith("F")}
        again = Counter(failed(first[row["test"]][heuristic]) for row in rows if row[heuristic].startswith("F"))
        total = Counter(failed(first[row["test"]][heuristic]) for row in rows)
        by_k = ", ".join(f"{k}: {again[k]}/{total[k]}" for k in sorted(total))
        repeated = sum(again.values())
        print(f"| {heuristic} | {len(rows)} | {'/'.join(sorted(iterations))} | {repeated} | {by_k} |")


if __name__ == "__main__":
    main()
