"""Device call E (gfx-rs/naga#1575 fix), here: each HLSL kernel of litmus/kernels/ as `progress run` prepares it
(Slang compile, load, `for_naga`, deadline instrumentation, spirv-val, checker System), for both leave modes,
pickled to ARGV[1]; call_e_run.py runs `progress run` on the device with these, so the device needs neither Slang
nor glslang/SPIRV-Tools (the carry limit holds Slang or the rest, not both). Usage, from the repository root:
    python docs/results/gpu/kernels/call_e_prepare.py prepared.pickle litmus/kernels/*.hlsl
"""

import copyreg
import pickle
import sys
import types
from pathlib import Path

from progress.cli.kernel_run import prepared
from progress.front.header import LaunchSettings

sys.path.insert(0, str(Path(__file__).parent))
from call_e_run import frozen  # noqa: E402

copyreg.pickle(types.MappingProxyType, lambda m: (frozen, (dict(m),)))  # the loader's frozen dicts
table = {
    (path, leave): prepared(path, LaunchSettings(), True, leave)
    for path in sys.argv[2:]
    for leave in ("return", "break")
}
with open(sys.argv[1], "wb") as out:
    pickle.dump(table, out)
print(f"{len(table)} prepared kernels: {sorted(table)}")
