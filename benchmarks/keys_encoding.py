"""Issue 9: how small could a keys file be? A measurement, not a format.

For committed keys files (docs/results/suites/*.keys.gz, format 1: per test
a length byte, the canonical key and the verdict mask, gzip -9) this
re-encodes the same tests as: per partition (thread lengths), the sorted
raw indices of the streamed space (synth/stream.py) as LEB128 varint
deltas, then one byte per test naming its verdict vector in a dictionary;
compressed with gzip -9 and with lzma (preset 9 | extreme). It reports
bytes per test of each, and checks that the re-encoding is lossless
(decoding the indices gives back every key). Usage:

    python benchmarks/keys_encoding.py docs/results/suites/2t5i.keys.gz ...
"""

from __future__ import annotations

import gzip
import lzma
import sys
from pathlib import Path

import numpy as np

from progress.synth import keys
from progress.synth.store import KeyCodec
from progress.synth.stream import StreamSpace


def varints(values: np.ndarray) -> bytes:
    out = bytearray()
    for value in values.tolist():
        while value >= 0x80:
            out.append(value & 0x7F | 0x80)
            value >>= 7
        out.append(value)
    return bytes(out)


def measure(path: Path) -> dict:
    with keys.KeysFile(path) as source:
        bounds = source.bounds
        tests = list(source.tests())
    space = StreamSpace(bounds)
    codec = KeyCodec(bounds)
    by_lengths: dict[tuple[int, ...], list] = {}
    for candidate, mask in tests:
        by_lengths.setdefault(tuple(len(code) for code in candidate), []).append((candidate, mask))
    vectors = sorted({mask for _, mask in tests})
    number = {mask: i for i, mask in enumerate(vectors)}
    deltas, names, header = bytearray(), bytearray(), bytearray()
    for p, lengths in enumerate(space.partitions):
        members = by_lengths.get(lengths, [])
        table = space.table(p)
        digit = [
            {tuple(int(x) for x in table.options[s, k]): k for k in range(int(table.radices[s]))}
            for s in range(len(table.radices))
        ]
        raw = []
        for candidate, mask in members:
            flat = [(loc, cmp, target, int(xchg), val) for code in candidate for loc, cmp, target, xchg, val in code]
            raw.append((sum(digit[s][ins] * int(table.place[s]) for s, ins in enumerate(flat)), mask))
        raw.sort()
        indices = np.array([i for i, _ in raw], dtype=np.int64)
        decoded = sorted(codec.pack(c) for c in table.candidates(indices))
        assert decoded == sorted(codec.pack(c) for c, _ in members), "lossy"
        header += len(raw).to_bytes(8, "little")
        deltas += varints(np.diff(indices, prepend=0))
        names += bytes(number[m] for _, m in raw)
    body = bytes(header) + bytes(deltas) + bytes(names)
    count = len(tests)
    return {
        "suite": path.name,
        "tests": count,
        "format1_gzip": path.stat().st_size / count,
        "varint_raw": len(body) / count,
        "v2_gzip": len(gzip.compress(body, 9, mtime=0)) / count,
        "v2_lzma": len(lzma.compress(body, preset=9 | lzma.PRESET_EXTREME)) / count,
        "deltas_lzma": len(lzma.compress(bytes(deltas), preset=9 | lzma.PRESET_EXTREME)) / count,
        "vectors_lzma": len(lzma.compress(bytes(names), preset=9 | lzma.PRESET_EXTREME)) / count,
    }


if __name__ == "__main__":
    for argument in sys.argv[1:]:
        result = measure(Path(argument))
        print(
            result["suite"],
            result["tests"],
            " ".join(f"{k}={v:.3f}" for k, v in result.items() if k not in ("suite", "tests")),
        )
