"""HSA: F = {the lowest-id enabled thread}. The HSA specification guarantees
progress to the workgroup with the lowest id that has not terminated."""

from .base import NONE, ProgressModel, lowest

MODEL = ProgressModel(
    name="HSA",
    definition="F = {the lowest-id enabled thread}",
    fair=lambda enabled, memory, n: lowest(enabled),
    memory=NONE,
    below=("unfair",),
    rank=2,
)
