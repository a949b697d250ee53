"""`python -m progress` runs the command line, like the `progress` script.

Guarded: `synth --engine cuda --workers N` starts its classifying processes
with `spawn`, which imports the main module again under another name."""

from progress.cli import main

if __name__ == "__main__":
    main()
