"""Verdict counts straight from a format-2 keys file, compared with a suite of docs/results/suites.json:

    python benchmarks/keys_counts.py FILE.keys.xz docs/results/suites.json NAME

Decodes only the varint deltas (to find where each block's ids start) and the verdict-vector ids, so a
34-million-test file takes seconds; builds no candidate (`keys.open_keys(...).tests()` does that, and checks
order and canonical form). Prints the test count, the number of verdict vectors and whether the count and every
P/F count equal the suite's; exit status 0 when they do, 1 when not.
"""

from __future__ import annotations

import json
import lzma
import sys

import numpy as np

from progress.synth.keys import BLOCK, VERSION_XZ
from progress.synth.store import unpack_verdicts


def vector_counts(path: str) -> tuple[dict, np.ndarray]:
    """The file's header and the number of tests carrying each of its verdict vectors."""
    with lzma.open(path, "rb") as file:
        header = json.loads(file.readline())
        data = np.frombuffer(file.read(), dtype=np.uint8)
    if header.get("version") != VERSION_XZ:
        raise SystemExit(f"{path}: not a format-{VERSION_XZ} keys file")
    vectors = header["vectors"]
    id_bytes = 1 if len(vectors) <= 256 else 2
    position, per_vector = 0, np.zeros(len(vectors), dtype=np.int64)
    for _lengths, tests in header["partitions"]:
        for low in range(0, tests, BLOCK):
            size = min(BLOCK, tests - low)
            ends = np.flatnonzero(data[position : position + size * 10] < 0x80)  # a varint's last byte is < 0x80
            position += int(ends[size - 1]) + 1
            ids = np.frombuffer(data[position : position + size * id_bytes].tobytes(), "<u2" if id_bytes == 2 else "u1")
            position += size * id_bytes
            per_vector += np.bincount(ids, minlength=len(vectors))
    if position != len(data):
        raise SystemExit(f"{path}: {len(data) - position} bytes after the last test")
    return header, per_vector


def main(path: str, suites: str, name: str) -> int:
    header, per_vector = vector_counts(path)
    labels = header["labels"]
    counts = {label: {"P": 0, "F": 0, "?": 0} for label in labels}
    for vector, tests in zip(header["vectors"], per_vector.tolist()):
        for label, cell in zip(labels, unpack_verdicts(vector, len(labels))):
            counts[label][cell] += tests
    suite = next(s for s in json.load(open(suites))["suites"] if s["name"] == name)
    total = int(per_vector.sum())
    same = total == suite["tests"] == header["tests"] and all(
        counts[label][cell] == suite["verdicts"][label][cell] for label in labels for cell in "PF"
    )
    print(f"{name}: {total} tests, {int((per_vector > 0).sum())} verdict vectors; counts equal to {suites}: {same}")
    return 0 if same else 1


if __name__ == "__main__":
    raise SystemExit(main(*sys.argv[1:4]))
