"""Classify a unit's tests straight from their raw indices, vectorized.

`classify_indices(table, indices)` gives what `verdicts.classify_batch` and
`store.KeyCodec.pack` give for `table.candidates(indices)` (the verdict
masks, the store keys), without building a Python candidate or Program
per test: the compiled batch classifier's records (`progress.core.batch.record_of`:
number of locations, thread lengths, initial values, then (loc, cmp,
target, xchg, val) per instruction) and the keys are built with numpy from
the digits, and `progress.core.fastcheck.check_batch` judges them all in one
call. A candidate of the streamed space is canonical (locations 0..k-1 in
order of first use) and starts from memory 0, so its record's locations
are its own and its k initial values are 0. Programs the kernel cannot take
(TOO_BIG) go through `verdicts.classify_batch`, as `progress.core.batch` does.

Tests compare it with `classify_batch` + `KeyCodec.pack` on every test of
small configurations (tests/test_synth_cuda_engine.py).
"""

from __future__ import annotations

import numpy as np

from progress.core import batch, fastcheck

from .store import KeyCodec
from .stream import PartitionTable
from .verdicts import classify_batch, labels, queries

_CELL = np.array([2, 0, 1], dtype=np.int64)
"""fastcheck code + 1 (INCONCLUSIVE, FAIL, PASS) -> store.CELLS index ('?', 'F', 'P')."""


def fields(table: PartitionTable, indices: np.ndarray) -> np.ndarray:
    """[test, slot, field] (loc, cmp, target, xchg, val) of the candidates at `indices`."""
    indices = np.asarray(indices, dtype=np.int64)
    digits = indices[:, None] // table.place[None, :] % table.radices[None, :]
    return table.options[np.arange(len(table.radices))[None, :], digits]


def keys(table: PartitionTable, codec: KeyCodec, values: np.ndarray) -> list[bytes]:
    """`codec.pack` of each candidate, from its fields."""
    L, V, R, _, _ = codec.radices
    loc, cmp, target, xchg, val = (values[:, :, f] for f in range(5))
    numbers = (((loc * V + cmp) * R + target) * 2 + xchg) * V + val  # [test, slot]
    shifts = 8 * np.arange(codec.width - 1, -1, -1)
    digits = (numbers[:, :, None] >> shifts[None, None, :]) & 0xFF  # big-endian bytes per instruction
    head = np.broadcast_to(np.array(table.lengths, dtype=np.int64), (len(values), len(table.lengths)))
    rows = np.concatenate([head, digits.reshape(len(values), -1)], axis=1).astype(np.uint8)
    return [row.tobytes() for row in rows]


def records(table: PartitionTable, values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The batch classifier's records of the candidates, flat, and their offsets."""
    count, slots = values.shape[0], values.shape[1]
    threads, top = len(table.lengths), table.bounds.locations
    used = values[:, :, 0].max(axis=1) + 1  # canonical: locations 0..k-1
    width = 1 + threads + top + 5 * slots
    full = np.zeros((count, width), dtype=np.int64)
    full[:, 0] = used
    full[:, 1 : 1 + threads] = table.lengths
    full[:, 1 + threads + top :] = values.reshape(count, 5 * slots)
    keep = np.ones((count, width), dtype=bool)
    keep[:, 1 + threads : 1 + threads + top] = np.arange(top)[None, :] < used[:, None]  # k initial zeros
    lengths = width - (top - used)
    offsets = np.zeros(count, dtype=np.int64)
    np.cumsum(lengths[:-1], out=offsets[1:])
    return full[keep], offsets


def classify_indices(
    table: PartitionTable, codec: KeyCodec, indices: np.ndarray
) -> tuple[tuple[str, ...], list[int], list[bytes]]:
    """(labels, verdict masks, store keys) of the tests at raw `indices`, in order."""
    names = labels()
    if len(indices) == 0:
        return names, [], []
    values = fields(table, indices)
    verdict_queries = queries()
    threads = len(table.lengths)
    tabulated = batch.tables(verdict_queries, threads)
    codes = None
    if tabulated is not None:
        data, offsets = records(table, values)
        codes = np.empty((len(indices), len(tabulated.query_model)), np.int8)
        fastcheck.check_batch(
            data,
            offsets,
            threads,
            tabulated.after,
            tabulated.nmem,
            tabulated.fair,
            tabulated.model_mem,
            tabulated.query_model,
            tabulated.query_strong,
            -1,
            batch.CAP,
            codes,
        )
        cells = _CELL[np.clip(codes.astype(np.int64), -1, 1) + 1]
        masks = (cells << (2 * np.arange(len(names)))[None, :]).sum(axis=1).tolist()
        slow = np.nonzero((codes == fastcheck.TOO_BIG).any(axis=1))[0].tolist()
    else:
        masks = [0] * len(indices)
        slow = list(range(len(indices)))
    if slow:
        _, slow_masks = classify_batch(table.candidates(np.asarray(indices)[slow]))
        for i, mask in zip(slow, slow_masks):
            masks[i] = mask
    return names, masks, keys(table, codec, values)
