"""The checker core: a Program, its LTS under a progress model, and the weak and strong fair-cycle checks.

Imports only the standard library, the package root (errors, jit) and the models.
"""
