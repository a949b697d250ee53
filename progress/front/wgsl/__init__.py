"""WGSL kernels, read through naga (wgpu's shader translator) into SPIR-V."""
