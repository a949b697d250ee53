"""LOBE (linear OBE): F = enabled threads t with t <= some thread that has
taken a step. Starting a workgroup implies every lower-id one was started too."""

from .base import STARTED, ProgressModel, up_to_highest

MODEL = ProgressModel(
    name="LOBE",
    definition="F = enabled threads t with t <= some thread that has taken a step",
    fair=lambda enabled, started, n: enabled & up_to_highest(started),
    memory=STARTED,
    below=("HSA+OBE",),
    rank=5,
    view=lambda started, n: up_to_highest(started),
    contains=("OBE",),
)
