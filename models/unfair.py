"""unfair: F = {} in every state. No thread is ever guaranteed to run, so a
test terminates iff its reachable LTS has no cycle at all."""

from .base import NONE, ProgressModel

MODEL = ProgressModel(
    name="unfair",
    definition="F = {}: no thread is guaranteed to run",
    fair=lambda enabled, memory, n: 0,
    memory=NONE,
    below=(),
    rank=0,
    has_fairness=False,
    symmetric=True,
)
