"""OBE (occupancy-bound execution): F = enabled threads that have taken at
least one step. A workgroup that has started keeps being scheduled."""

from .base import STARTED, ProgressModel

MODEL = ProgressModel(
    name="OBE",
    definition="F = enabled threads that have taken at least one step",
    fair=lambda enabled, started, n: enabled & started,
    memory=STARTED,
    below=("unfair",),
    rank=3,
    symmetric=True,
)
