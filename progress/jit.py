"""The one owner of numba (compiled loops for the synthesis judge and the
batch classifier).

Import this module only on paths that need compiled code: it costs about half
a second of start-up, which the `progress check` path must never pay
(tests/test_check_imports.py).
"""

from numba import njit

__all__ = ["njit"]
