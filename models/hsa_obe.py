"""HSA+OBE: F = HSA's set united with OBE's: the lowest-id enabled thread and
every enabled thread that has taken a step."""

from .base import STARTED, ProgressModel, lowest

MODEL = ProgressModel(
    name="HSA+OBE",
    definition="F = {lowest-id enabled thread} + enabled threads that have taken a step",
    fair=lambda enabled, started, n: lowest(enabled) | (enabled & started),
    memory=STARTED,
    below=("HSA", "OBE"),
    rank=4,
    contains=("HSA", "OBE"),
)
