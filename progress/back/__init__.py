"""Back ends: writers from the core's Program to other languages (CUDA, C, WGSL, Promela, DOT)."""
