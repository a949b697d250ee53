"""Keys files: a run's tests in compact form, from which the export is rebuilt.

`progress synth ... --save-keys FILE` writes one; `progress synth --from-keys
FILE --export DIR` writes the same `.axb` files and `verdicts.csv` as
`--export` on the run itself (byte for byte: tests/test_synth_cli.py).

Format (version 1): a gzip stream (mtime 0, no file name, so the same tests
give the same bytes) holding

- one line of JSON, UTF-8, ending in a newline: `{"format":
  "progress-synth-keys", "version": 1, "threads": T, "instructions": I,
  "locations": L, "values": V, "labels": [verdict names in bit order],
  "tests": N, "mask_bytes": M}`;
- N records, in export order (strictly increasing keys): one byte K, then
  the K-byte canonical key (`store.KeyCodec(bounds).pack`: one byte per
  thread length, then each instruction as a big-endian mixed-radix number of
  (loc, cmp, target, xchg, val)), then the verdict mask (`store.pack_verdicts`:
  verdict i in bits 2i..2i+1, 0 = F, 1 = P, 2 = ?) as M little-endian bytes,
  M = ceil(2 * len(labels) / 8).

The verdicts are the run's: reading does not re-check them. Reading checks
the header, every key (it must decode to a candidate within the bounds), the
order and the count; anything else is a KeysError (exit 2 in the CLI).
Pure: no printing; memory does not grow with the tests.
"""

from __future__ import annotations

import gzip
import json
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import BinaryIO

from progress.errors import UsageError

from .space import Bounds, Candidate
from .store import KeyCodec

FORMAT = "progress-synth-keys"
VERSION = 1


class KeysError(UsageError):
    """A keys file that cannot be read (its message names the file)."""


def mask_bytes(labels: tuple[str, ...]) -> int:
    return max(1, (2 * len(labels) + 7) // 8)


def write(raw: BinaryIO, bounds: Bounds, labels: tuple[str, ...], tests: Iterable[tuple[Candidate, int]]) -> int:
    """Write `tests` ((candidate, mask) in export order) to the binary file
    `raw` (the caller opens it: only the CLI writes files); return how many.
    The count goes in the header, so the records are buffered first (about
    10 bytes per test before compression)."""
    codec = KeyCodec(bounds)
    width = mask_bytes(labels)
    body = bytearray()
    count = 0
    for candidate, mask in tests:
        key = codec.pack(candidate)
        body.append(len(key))
        body += key
        body += mask.to_bytes(width, "little")
        count += 1
    header = {
        "format": FORMAT,
        "version": VERSION,
        "threads": bounds.threads,
        "instructions": bounds.instructions,
        "locations": bounds.locations,
        "values": bounds.values,
        "labels": list(labels),
        "tests": count,
        "mask_bytes": width,
    }
    with gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0, compresslevel=9) as out:
        out.write(json.dumps(header, sort_keys=True).encode() + b"\n")
        out.write(bytes(body))
    return count


def write_packed(
    raw: BinaryIO, bounds: Bounds, labels: tuple[str, ...], count: int, rows: Iterable[tuple[bytes, int]]
) -> int:
    """`write` from keys already packed (`KeyCodec.pack`, as the store holds
    them: `Store.packed_tests`), `count` of them in export order, streamed:
    memory does not grow with the tests, and no candidate is decoded (a
    34M-test suite in about a minute). The same bytes as `write`; fewer or
    more rows than `count` is a ValueError."""
    width = mask_bytes(labels)
    header = {
        "format": FORMAT,
        "version": VERSION,
        "threads": bounds.threads,
        "instructions": bounds.instructions,
        "locations": bounds.locations,
        "values": bounds.values,
        "labels": list(labels),
        "tests": count,
        "mask_bytes": width,
    }
    written = 0
    with gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0, compresslevel=9) as out:
        out.write(json.dumps(header, sort_keys=True).encode() + b"\n")
        body = bytearray()
        for key, mask in rows:
            body.append(len(key))
            body += key
            body += mask.to_bytes(width, "little")
            written += 1
            if len(body) >= 1 << 20:
                out.write(bytes(body))
                body.clear()
        out.write(bytes(body))
    if written != count:
        raise ValueError(f"{written} tests, not the {count} announced")
    return written


class KeysFile:
    """An open keys file: `.bounds`, `.labels`, `.count`, and `.tests()`
    streaming (candidate, mask) in export order. Use as a context manager."""

    def __init__(self, path: Path):
        self.path = path
        try:
            raw = open(path, "rb")  # noqa: SIM115 (closed with the gzip stream)
        except OSError as error:
            raise KeysError(f"cannot read {path}: {error.strerror or error}") from None
        try:
            self._file = gzip.GzipFile(fileobj=raw, mode="rb")
            line = self._file.readline(1 << 20)
            header = json.loads(line)
        except (OSError, EOFError, ValueError, UnicodeDecodeError) as error:
            raw.close()
            raise KeysError(f"{path}: not a keys file ({error})") from None
        self._raw = raw
        if not isinstance(header, dict) or header.get("format") != FORMAT:
            raise KeysError(f"{path}: not a keys file (no {FORMAT!r} header)")
        if header.get("version") != VERSION:
            raise KeysError(f"{path}: keys format version {header.get('version')!r}, this reads {VERSION}")
        try:
            self.bounds = Bounds(
                int(header["threads"]), int(header["instructions"]), int(header["locations"]), int(header["values"])
            )
            self.labels = tuple(str(label) for label in header["labels"])
            self.count = int(header["tests"])
            self.width = int(header["mask_bytes"])
        except (KeyError, TypeError, ValueError):
            raise KeysError(f"{path}: damaged header {line[:200]!r}") from None
        if self.width != mask_bytes(self.labels) or self.count < 0:
            raise KeysError(f"{path}: damaged header {line[:200]!r}")
        self.codec = KeyCodec(self.bounds)

    def __enter__(self) -> KeysFile:
        return self

    def __exit__(self, *exc: object) -> None:
        self._file.close()
        self._raw.close()

    def _read(self, size: int, number: int) -> bytes:
        data = self._file.read(size)
        if len(data) != size:
            raise KeysError(f"{self.path}: truncated at test {number} of {self.count}")
        return data

    def tests(self) -> Iterator[tuple[Candidate, int]]:
        previous = b""
        top = 1 << (2 * len(self.labels))
        try:
            for number in range(self.count):
                key = self._read(self._read(1, number)[0], number)
                mask = int.from_bytes(self._read(self.width, number), "little")
                if key <= previous:
                    raise KeysError(f"{self.path}: test {number} is out of order")
                if mask >= top:
                    raise KeysError(f"{self.path}: test {number} has a verdict mask beyond {len(self.labels)} verdicts")
                previous = key
                yield self._candidate(key, number), mask
            if self._file.read(1):
                raise KeysError(f"{self.path}: data after the {self.count} tests of its header")
        except (OSError, EOFError) as error:
            raise KeysError(f"{self.path}: damaged ({error})") from None

    def _candidate(self, key: bytes, number: int) -> Candidate:
        bounds = self.bounds
        lengths = key[: bounds.threads]
        if len(lengths) != bounds.threads or len(key) != bounds.threads + sum(lengths) * self.codec.width:
            raise KeysError(f"{self.path}: test {number} has a malformed key")
        candidate = self.codec.unpack(key)
        for code in candidate:
            for loc, cmp, target, _, val in code:
                if (
                    loc >= bounds.locations
                    or cmp >= bounds.values
                    or val >= bounds.values
                    or target > bounds.instructions
                ):
                    raise KeysError(f"{self.path}: test {number} is outside its bounds")
        if not 0 < sum(lengths) <= bounds.instructions or 0 in lengths:
            raise KeysError(f"{self.path}: test {number} is outside its bounds")
        return candidate
