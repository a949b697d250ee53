"""Device call E, on the device: `progress run ARGS...` with `prepared` answered from call_e_prepare.py's pickle
(ARGV[1]) for the paths and leave mode the command names; everything after loading (verdicts, launch, records,
output comparison, the report) is the command's own code. Usage:
    python call_e_run.py prepared.pickle run litmus/kernels/*.hlsl --iterations 20 -o OUT.json
"""

import pickle
import sys
import types


def frozen(items: dict) -> types.MappingProxyType:
    """A pickled mappingproxy (the loader's frozen dicts), rebuilt."""
    return types.MappingProxyType(items)


if __name__ == "__main__":
    import progress.cli.kernel_run as kernel_run
    from progress.cli import main

    with open(sys.argv[1], "rb") as given:
        table = pickle.load(given)
    kernel_run.prepared = lambda path, given, check=True, leave="return": table[(path, leave)]
    main(sys.argv[2:])
