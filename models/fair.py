"""fair: F = every enabled thread. Every thread that has not terminated is
guaranteed eventual execution."""

from .base import NONE, ProgressModel

MODEL = ProgressModel(
    name="fair",
    definition="F = every enabled thread",
    fair=lambda enabled, memory, n: enabled,
    memory=NONE,
    below=("LOBE",),
    rank=1,
    symmetric=True,
)
