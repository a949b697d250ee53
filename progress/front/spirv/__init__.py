"""SPIR-V kernels: decode a module, attach source lines, run the toolchain."""
