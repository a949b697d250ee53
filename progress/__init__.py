"""progress: GPU forward-progress litmus tests.

The checker core (parse, program, semantics, lts, check, witness, analyze) is
pure: it never reads files, prints, or imports z3, CUDA, click or plotting.
"""

__version__ = "0.1.0"
