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
import lzma
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import BinaryIO

import numpy as np

from progress.errors import UsageError

from .space import Bounds, Candidate
from .store import KeyCodec

FORMAT = "progress-synth-keys"
VERSION = 1


class KeysError(UsageError):
    """A keys file that cannot be read (its message names the file)."""


def mask_bytes(labels: tuple[str, ...]) -> int:
    return max(1, (2 * len(labels) + 7) // 8)


def _header(version: int, bounds: Bounds, labels: tuple[str, ...], count: int) -> dict:
    """The fields both formats' headers share."""
    return {
        "format": FORMAT,
        "version": version,
        "threads": bounds.threads,
        "instructions": bounds.instructions,
        "locations": bounds.locations,
        "values": bounds.values,
        "labels": list(labels),
        "tests": count,
    }


def _read_header(header: dict) -> tuple[Bounds, tuple[str, ...], int]:
    """(bounds, labels, count) of a header; KeyError, TypeError or ValueError when damaged."""
    bounds = Bounds(
        int(header["threads"]), int(header["instructions"]), int(header["locations"]), int(header["values"])
    )
    return bounds, tuple(str(label) for label in header["labels"]), int(header["tests"])


def write(raw: BinaryIO, bounds: Bounds, labels: tuple[str, ...], tests: Iterable[tuple[Candidate, int]]) -> int:
    """Write `tests` ((candidate, mask) in export order) to the binary file
    `raw` (the caller opens it: only the CLI writes files); return how many.
    The count goes in the header, so the keys are packed first (`write_packed`
    streams keys already packed)."""
    codec = KeyCodec(bounds)
    rows = [(codec.pack(candidate), mask) for candidate, mask in tests]
    return write_packed(raw, bounds, labels, len(rows), rows)


def write_packed(
    raw: BinaryIO, bounds: Bounds, labels: tuple[str, ...], count: int, rows: Iterable[tuple[bytes, int]]
) -> int:
    """`write` from keys already packed (`KeyCodec.pack`, as the store holds
    them: `Store.packed_tests`), `count` of them in export order, streamed:
    memory does not grow with the tests, and no candidate is decoded (a
    34M-test suite in about a minute). The same bytes as `write`; fewer or
    more rows than `count` is a ValueError."""
    width = mask_bytes(labels)
    header = _header(VERSION, bounds, labels, count) | {"mask_bytes": width}
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
            self.bounds, self.labels, self.count = _read_header(header)
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


# Format 2: sorted ranked indices, xz


VERSION_XZ = 2
XZ_MAGIC = b"\xfd7zXZ\x00"
BLOCK = 1 << 16
"""Tests per block of format 2 (deltas, then verdict-vector ids)."""


class _Ranks:
    """One partition's tests as integers that sort in export order: the
    mixed-radix number (radices of `stream.PartitionTable`) of each slot's
    option *rank* among the slot's options sorted by their key number, so
    index order is key order (options themselves are location-major only)."""

    def __init__(self, table, codec: KeyCodec):
        self.table = table
        self.codec = codec
        L, V, R, _, _ = codec.radices
        slots, width = table.options.shape[0], table.options.shape[1]
        loc, cmp, target, xchg, val = (table.options[:, :, f] for f in range(5))
        numbers = (((loc * V + cmp) * R + target) * 2 + xchg) * V + val  # [slot, option]
        top = L * V * R * 2 * V
        self.rank_of = np.full((slots, top), -1, dtype=np.int64)  # [slot, key number] -> rank
        self.options = np.zeros_like(table.options)  # [slot, rank, field]
        for s in range(slots):
            radix = int(table.radices[s])
            order = np.argsort(numbers[s, :radix], kind="stable")
            self.rank_of[s, numbers[s, order]] = np.arange(radix)
            self.options[s, :radix] = table.options[s, order]
        self.width = width

    def indices(self, blobs: list[bytes]) -> np.ndarray:
        """The ranked indices of packed keys of this partition."""
        threads, w = len(self.table.lengths), self.codec.width
        data = np.frombuffer(b"".join(blobs), dtype=np.uint8).reshape(len(blobs), -1)[:, threads:]
        numbers = np.zeros((len(blobs), data.shape[1] // w), dtype=np.int64)
        for b in range(w):
            numbers = numbers * 256 + data[:, b::w]
        ranks = self.rank_of[np.arange(numbers.shape[1])[None, :], numbers]
        if (ranks < 0).any():
            raise ValueError("a key that is not an option of its partition")
        return (ranks * self.table.place[None, :]).sum(axis=1)

    def fields(self, indices: np.ndarray) -> np.ndarray:
        """[test, slot, field] of the tests at ranked `indices`."""
        digits = indices[:, None] // self.table.place[None, :] % self.table.radices[None, :]
        return self.options[np.arange(len(self.table.radices))[None, :], digits]


def _varints(values: np.ndarray) -> bytes:
    """LEB128 of non-negative int64s, vectorized."""
    if not len(values):
        return b""
    values = values.astype(np.uint64)
    sizes = np.ones(len(values), dtype=np.int64)
    for k in range(1, 10):
        sizes += values >= np.uint64(1 << (7 * k))
    top = int(sizes.max())
    shifts = np.arange(top, dtype=np.uint64) * np.uint64(7)
    groups = ((values[:, None] >> shifts[None, :]) & np.uint64(0x7F)).astype(np.uint8)
    more = np.arange(top)[None, :] < (sizes[:, None] - 1)
    groups |= np.where(more, 0x80, 0).astype(np.uint8)
    keep = np.arange(top)[None, :] < sizes[:, None]
    return groups[keep].tobytes()


def write_xz(
    raw: BinaryIO,
    bounds: Bounds,
    labels: tuple[str, ...],
    count: int,
    rows: Callable[[], Iterable[tuple[bytes, int]]],
) -> int:
    """Format 2 of the tests that `rows()` yields ((packed key, mask) in
    export order, as `Store.packed_tests` gives them; `count` of them;
    called twice: the header's counts, then the body, so memory stays flat):
    an xz stream (preset 9, deterministic) of a JSON header line (format 1's
    fields less mask_bytes, plus `vectors`: the distinct verdict masks,
    ascending, and `partitions`: [thread lengths, tests] for each non-empty
    partition in export order) and then, partition by partition, blocks of
    at most BLOCK tests: each test's ranked index (`_Ranks`) as the LEB128
    delta from the previous one of its partition (the first from 0), then
    one byte per test naming its verdict vector (two, little-endian, past
    256 vectors). About 0.25-0.3 bytes per test, a tenth of format 1
    (benchmarks/keys_encoding.py)."""
    from .stream import StreamSpace

    codec = KeyCodec(bounds)
    space = StreamSpace(bounds)
    position = {lengths: p for p, lengths in enumerate(space.partitions)}
    counts: dict[int, int] = {}
    seen: set[int] = set()
    written = 0
    for key, mask in rows():
        p = position.get(tuple(key[: bounds.threads]))
        if p is None:
            raise ValueError(f"a key with thread lengths {tuple(key[: bounds.threads])} outside {bounds}")
        counts[p] = counts.get(p, 0) + 1
        seen.add(mask)
        written += 1
    if written != count:
        raise ValueError(f"{written} tests, not the {count} announced")
    if list(counts) != sorted(counts):
        raise ValueError("tests out of export order")
    vectors = sorted(seen)
    number = {mask: i for i, mask in enumerate(vectors)}
    id_type = np.uint8 if len(vectors) <= 256 else np.dtype("<u2")
    header = _header(VERSION_XZ, bounds, labels, count) | {
        "vectors": vectors,
        "partitions": [[list(space.partitions[p]), counts[p]] for p in sorted(counts)],
    }
    with lzma.LZMAFile(raw, "wb", format=lzma.FORMAT_XZ, preset=9) as out:
        out.write(json.dumps(header, sort_keys=True).encode() + b"\n")
        state: dict = {"p": None, "ranks": None, "previous": 0}
        keys_: list[bytes] = []
        masks: list[int] = []

        def flush() -> None:
            if not keys_:
                return
            index = state["ranks"].indices(keys_)
            deltas = np.diff(index, prepend=state["previous"])
            if (deltas[1:] <= 0).any() or deltas[0] < 0 or (state["previous"] and deltas[0] <= 0):
                raise ValueError("tests out of export order")
            out.write(_varints(deltas))
            out.write(np.array([number[m] for m in masks], dtype=id_type).tobytes())
            state["previous"] = int(index[-1])
            keys_.clear()
            masks.clear()

        again = 0
        for key, mask in rows():
            p = position[tuple(key[: bounds.threads])]
            if p != state["p"]:
                flush()
                state.update(p=p, ranks=_Ranks(space.table(p), codec), previous=0)
            keys_.append(key)
            masks.append(mask)
            again += 1
            if len(keys_) >= BLOCK:
                flush()
        flush()
    if again != count:
        raise ValueError("the tests changed between the two passes")
    return written


class KeysFileXz:
    """A format-2 keys file, read like `KeysFile` (`.bounds`, `.labels`,
    `.count`, `.tests()`); checks the header, the partitions, that indices
    ascend within their partition's size, that every test is canonical
    (locations in first-use order), the vector ids and the count."""

    def __init__(self, path: Path):
        self.path = path
        try:
            self._file = lzma.LZMAFile(path, "rb")
            line = self._file.readline(1 << 24)
            header = json.loads(line)
        except (OSError, EOFError, ValueError, UnicodeDecodeError, lzma.LZMAError) as error:
            raise KeysError(f"{path}: not a keys file ({error})") from None
        if not isinstance(header, dict) or header.get("format") != FORMAT or header.get("version") != VERSION_XZ:
            self._file.close()
            raise KeysError(f"{path}: not a keys file of format {VERSION_XZ}")
        try:
            self.bounds, self.labels, self.count = _read_header(header)
            self.vectors = [int(v) for v in header["vectors"]]
            self.partitions = [(tuple(int(n) for n in lengths), int(n)) for lengths, n in header["partitions"]]
        except (KeyError, TypeError, ValueError):
            self._file.close()
            raise KeysError(f"{path}: damaged header {line[:200]!r}") from None
        top = 1 << (2 * len(self.labels))
        if (
            self.count < 0
            or sum(n for _, n in self.partitions) != self.count
            or any(not 0 <= v < top for v in self.vectors)
            or self.vectors != sorted(set(self.vectors))
        ):
            self._file.close()
            raise KeysError(f"{path}: damaged header {line[:200]!r}")
        self.codec = KeyCodec(self.bounds)

    def __enter__(self) -> KeysFileXz:
        return self

    def __exit__(self, *exc: object) -> None:
        self._file.close()

    def _varints(self, count: int, number: int) -> np.ndarray:
        out = np.zeros(count, dtype=np.int64)
        read = self._file.read
        for i in range(count):
            value, shift = 0, 0
            while True:
                byte = read(1)
                if not byte:
                    raise KeysError(f"{self.path}: truncated at test {number + i} of {self.count}")
                value |= (byte[0] & 0x7F) << shift
                shift += 7
                if byte[0] < 0x80:
                    break
                if shift > 63:
                    raise KeysError(f"{self.path}: damaged at test {number + i}")
            out[i] = value
        return out

    def tests(self) -> Iterator[tuple[Candidate, int]]:
        from .stream import StreamSpace

        space = StreamSpace(self.bounds)
        position = {lengths: p for p, lengths in enumerate(space.partitions)}
        id_bytes = 1 if len(self.vectors) <= 256 else 2
        vectors = np.array(self.vectors, dtype=np.int64)
        number = 0
        last_partition = -1
        try:
            for lengths, total in self.partitions:
                p = position.get(lengths)
                if p is None or p <= last_partition:
                    raise KeysError(f"{self.path}: partition {lengths} unknown or out of order")
                last_partition = p
                table = space.table(p)
                ranks = _Ranks(table, self.codec)
                previous = -1
                for lo in range(0, total, BLOCK):
                    size = min(BLOCK, total - lo)
                    index = np.cumsum(self._varints(size, number)) + (previous if previous >= 0 else 0)
                    raw_ids = self._file.read(size * id_bytes)
                    if len(raw_ids) != size * id_bytes:
                        raise KeysError(f"{self.path}: truncated at test {number} of {self.count}")
                    ids = np.frombuffer(raw_ids, dtype="<u2" if id_bytes == 2 else np.uint8).astype(np.int64)
                    if (ids >= len(vectors)).any():
                        raise KeysError(f"{self.path}: a verdict-vector id beyond the header's near test {number}")
                    steps = np.diff(index, prepend=previous)
                    if (steps <= 0).any() or (len(index) and index[-1] >= table.size):
                        raise KeysError(f"{self.path}: tests out of order or outside their partition near {number}")
                    fields = ranks.fields(index)
                    loc = fields[:, :, 0]
                    seen = np.maximum.accumulate(np.concatenate([np.full((size, 1), -1), loc[:, :-1]], axis=1), axis=1)
                    if (loc > seen + 1).any():
                        raise KeysError(f"{self.path}: a test near {number} is not canonical")
                    bounds_ = [(int(a), int(a) + n) for a, n in zip(table.starts, table.lengths)]
                    for row, mask in zip(fields.tolist(), vectors[ids].tolist()):
                        yield (
                            tuple(tuple((a, b, c, bool(d), e) for a, b, c, d, e in row[x:y]) for x, y in bounds_),
                            mask,
                        )
                    number += size
                    previous = int(index[-1]) if size else previous
            if self._file.read(1):
                raise KeysError(f"{self.path}: data after the {self.count} tests of its header")
        except (OSError, EOFError, lzma.LZMAError) as error:
            raise KeysError(f"{self.path}: damaged ({error})") from None


def open_keys(path: Path) -> KeysFile | KeysFileXz:
    """A keys file of either format (format 2 is an xz stream, format 1 gzip)."""
    try:
        with open(path, "rb") as file:
            magic = file.read(len(XZ_MAGIC))
    except OSError as error:
        raise KeysError(f"cannot read {path}: {error.strerror or error}") from None
    return KeysFileXz(path) if magic == XZ_MAGIC else KeysFile(path)
