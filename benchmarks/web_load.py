"""A bounded local load test of `progress serve`: concurrent checks on loopback.

    python benchmarks/web_load.py [--requests 300] [--concurrency 1,4,16] [--seconds 60] [--out docs/results]

Starts `progress serve --host 127.0.0.1 --port 0` on the published suite, then
for each concurrency C sends at most --requests requests from C client
threads, stopping early at --seconds: POST /api/check of the suite's tests
(each thread walks the 483 tests from its own offset) and, every tenth
request, GET /playground of one (the page with its SVG, Graphviz included).
Loopback only; every loop is bounded in count and in time. Records per
request the latency and the status; a status other than 200, a connection
error, or a check whose verdicts differ from the CADP verdicts is an error.
Writes OUT/web_load.json (every figure, with the machine's load) and prints
a summary; docs/results/web_load.md quotes it.
"""

from __future__ import annotations

import argparse
import csv
import json
import statistics
import sys
import tempfile
import threading
import time
import urllib.parse
import urllib.request
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from tests.browser import server  # noqa: E402

OOPSLA = REPO / "litmus" / "oopsla21"
PROGRESS = [str(Path(sys.executable).parent / "progress")]


def expected_verdicts() -> dict[str, dict[str, str]]:
    with open(OOPSLA / "cadp_verdicts.csv", newline="") as handle:
        return {row.pop("test"): row for row in csv.DictReader(handle)}


def one_request(url: str, key: str, text: str, page: bool, expected: dict[str, str]) -> tuple[float, str | None]:
    """(seconds, error or None) of one request."""
    start = time.perf_counter()
    try:
        if page:
            query = urllib.parse.urlencode({"test": text})
            with urllib.request.urlopen(f"{url}/playground?{query}", timeout=60) as answer:
                body = answer.read().decode()
                ok = answer.status == 200 and ("<svg" in body or "pictures are drawn up to" in body)
            return time.perf_counter() - start, None if ok else f"{key}: playground page without a picture"
        request = urllib.request.Request(f"{url}/api/check", data=text.encode(), method="POST")
        with urllib.request.urlopen(request, timeout=60) as answer:
            body = json.loads(answer.read())
        got = {
            f"{r['model']}/{r['fairness']}": "P" if r["terminates"] else "F"
            for r in body["results"]
            if r["fairness"] != "none"
        }
        return time.perf_counter() - start, None if got == expected else f"{key}: verdicts differ from CADP"
    except Exception as error:  # every failure counts as an error of the test
        return time.perf_counter() - start, f"{key}: {type(error).__name__}: {error}"


def level(url: str, tests: list[tuple[str, str]], expected, concurrency: int, requests: int, seconds: float) -> dict:
    latencies: list[float] = []
    errors: list[str] = []
    lock = threading.Lock()
    issued = [0]
    stop_at = time.perf_counter() + seconds

    def client(offset: int) -> None:
        step = 0
        while time.perf_counter() < stop_at:
            with lock:
                if issued[0] >= requests:
                    return
                number = issued[0]
                issued[0] += 1
            key, text = tests[(offset * 37 + step) % len(tests)]
            step += 1
            elapsed, error = one_request(url, key, text, number % 10 == 9, expected[key])
            with lock:
                latencies.append(elapsed)
                if error:
                    errors.append(error)

    start = time.perf_counter()
    threads = [threading.Thread(target=client, args=(i,)) for i in range(concurrency)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    wall = time.perf_counter() - start
    ordered = sorted(latencies)
    return {
        "concurrency": concurrency,
        "requests": len(latencies),
        "errors": len(errors),
        "error_examples": errors[:5],
        "wall_s": round(wall, 2),
        "throughput_per_s": round(len(latencies) / wall, 1),
        "p50_ms": round(1000 * statistics.median(ordered), 1),
        "p99_ms": round(1000 * ordered[min(len(ordered) - 1, int(0.99 * len(ordered)))], 1),
        "max_ms": round(1000 * ordered[-1], 1),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--requests", type=int, default=300)
    parser.add_argument("--concurrency", default="1,4,16")
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--out", type=Path, default=REPO / "docs" / "results")
    args = parser.parse_args()
    expected = expected_verdicts()
    tests = [(key, (OOPSLA / key).read_text()) for key in sorted(expected)]
    loads = [Path("/proc/loadavg").read_text().split()[:3]]
    levels = []
    folder = tempfile.TemporaryDirectory()
    with (
        folder,
        server(PROGRESS, ["--host", "127.0.0.1", "--suite", str(OOPSLA), "--db", f"{folder.name}/r.db"]) as url,
    ):
        assert url.startswith("http://127.0.0.1:"), url  # loopback only
        for concurrency in [int(c) for c in args.concurrency.split(",")]:
            levels.append(level(url, tests, expected, concurrency, args.requests, args.seconds))
            loads.append(Path("/proc/loadavg").read_text().split()[:3])
            print(json.dumps(levels[-1]), flush=True)
    record = {
        "command": f"python benchmarks/web_load.py --requests {args.requests} --concurrency {args.concurrency} "
        f"--seconds {args.seconds:g}",
        "mix": "POST /api/check of the suite's tests; every tenth request GET /playground with its SVG",
        "loadavg_before_and_after_each_level": loads,
        "levels": levels,
    }
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "web_load.json").write_text(json.dumps(record, indent=1) + "\n")


if __name__ == "__main__":
    main()
