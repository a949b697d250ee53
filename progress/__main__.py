"""`python -m progress` runs the command line, like the `progress` script."""

from .cli import main

main()
