import sys

from progress.cli import main

main(sys.argv[1:])
