"""The external SPIR-V tools: compile, assemble, optimize, validate.

- GLSL: `glslangValidator -V -g --target-env vulkan1.1 -S comp` (OpLine per
  statement and the source embedded, which `lines.py` reads);
  HLSL: Slang (`progress.front.spirv.slang`) as `slangc kernel.hlsl -target
  spirv -O0 -g2 -lang slang -entry ENTRY -stage compute` (ENTRY `main` unless
  given): no optimization or legalization that could delete a wait, DebugLine
  per statement; the temporary file's path in the module becomes `kernel.hlsl`.
  HLSL as DXC reads it (docs/kernels.md, "HLSL"): `-lang slang` scopes a `for`
  variable to its loop (HLSL 2021, DXC's default; Slang's `-lang hlsl` calls two
  loops' `j` ambiguous), and `SLANG_PRELUDE`, before the kernel's line 1, gives
  the explicit cast of a vector to its scalar type (`(uint) WaveActiveBallot(t)`)
  DXC's meaning: the first component;
  `preprocessed`: the source as `glslangValidator -E` leaves it (for the
  guard, `kept.py`);
  SPIR-V assembly: `spirv-as --target-env spv1.N` at the version its header
  comment states (`; Version: 1.N`, as spirv-dis writes it), else
  `--target-env vulkan1.1` (SPIR-V 1.3): a module is assembled at its own
  version, so 1.4's rules (every global variable in the entry point's
  interface) hold where the module was written for them;
  `--optimize`: `spirv-opt -O`; every module: `spirv-val --target-env vulkan1.3`.
- Where the tools are and which versions: `tools.py`. A missing tool is an
  InputError (exit 2) naming what to install. A
  source the tool rejects is an InputError at `file:line:col` (glslang's
  `ERROR: file:LINE: ...`, spirv-as's `error: LINE: COL: ...`), the source
  line shown. A tool that runs past its `ToolLimits` (`TOOL_TIMEOUT_S` and
  no memory limit unless the caller gives others: the playground's are
  tighter) is an InputError too.
- Outputs are cached by the hash of (tool versions, flags, input bytes) in
  the per-user private cache (`progress.cache`, `~/.cache/progress/spirv`):
  entries are moved in atomically and checked (owner, mode, SPIR-V magic)
  before use. Without a usable cache directory the tools simply run.
"""

from __future__ import annotations

import hashlib
import os
import re
import subprocess
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from progress.cache import CacheUnavailable, cache_root, check_entry, install, private_dir, trusted_file
from progress.errors import InputError, InputErrors, SourcePosition
from progress.front.spirv import tools
from progress.front.spirv.glslang_fixes import fixed
from progress.front.spirv.slang import renamed_source
from progress.source import source_lines

TOOL_TIMEOUT_S = 60
GLSL_FLAGS = ("-V", "-g", "--target-env", "vulkan1.1", "-S", "comp")
SLANG_FLAGS = ("-target", "spirv", "-O0", "-g2")
SLANG_LANGUAGE = ("-lang", "slang")
"""Before the file name: `-lang` applies to the files after it."""
SLANG_PRELUDE = (
    "extension uint { __init<let N : int>(vector<uint, N> v) { this = v[0]; } }\n"
    "extension int { __init<let N : int>(vector<int, N> v) { this = v[0]; } }\n"
    '#line 1 "kernel.hlsl"\n'
)
"""What Slang is given before an HLSL kernel: DXC's vector-to-scalar cast (the first component)."""
PREPROCESS_FLAGS = ("-E",)
AS_FLAGS = ("--target-env", "vulkan1.1")
"""Assembly without a `; Version:` comment (SPIR-V 1.3, what glslang writes for vulkan1.1)."""
VERSIONS = range(0, 7)
"""The minor versions of SPIR-V 1.x the tools assemble (1.0 to 1.6)."""
OPT_FLAGS = ("-O",)
VAL_FLAGS = ("--target-env", "vulkan1.3", "--scalar-block-layout")
MAGIC_BYTES = (b"\x03\x02\x23\x07", b"\x07\x23\x02\x03")

_GLSLANG_ERROR = re.compile(r"^ERROR: ([^:\n]*):(\d+): (.*)$", re.MULTILINE)
_GLSLANG_GLOBAL = re.compile(r"^ERROR: (?!\d+ compilation errors)(.*)$", re.MULTILINE)
_AS_ERROR = re.compile(r"^error: (\d+): (\d+): (.*)$", re.MULTILINE)
_QUOTED = re.compile(r"'([^']+)'")
_SLANG_ERROR = re.compile(
    r"^error(?:\[\w+\])?: (.*)\n\s*--> ([^\n]*?):(\d+):(\d+)\n(?:.*\n)*?\s*\|\s*\^+ ?(.*)$", re.MULTILINE
)
_SLANG_BARE = re.compile(r"^(?:.*: )?error(?:\[\w+\])?:? (.*)$", re.MULTILINE)
_VERSION = re.compile(r"^\s*;\s*Version:\s*(\S*)\s*$")
_STATED = re.compile(r"1\.(\d)")


@dataclass(frozen=True)
class ToolLimits:
    """What one tool run may take: `timeout_s` seconds, and `memory_bytes`
    of address space (None: no limit; set through the shell's `ulimit -v`)."""

    timeout_s: float = TOOL_TIMEOUT_S
    memory_bytes: int | None = None


DEFAULT_LIMITS = ToolLimits()
"""The command line's: 60 s, memory unlimited."""


Defines = tuple[tuple[str, str | None], ...]


def compile_shader(
    source: bytes,
    kind: str,
    name: str,
    entry: str | None = None,
    limits: ToolLimits = DEFAULT_LIMITS,
    defines: Defines = (),
) -> bytes:
    """The SPIR-V of a GLSL (`kind` "glsl") or HLSL ("hlsl") compute shader;
    `name` is how messages show the file. Every function here runs its tool
    within `limits` (an InputError past them)."""
    if kind == "hlsl":
        flags = SLANG_FLAGS + _slang_defines(as_dxc(defines)) + ("-entry", entry or "main", "-stage", "compute")
        return _cached(
            "slang",
            SLANG_LANGUAGE + flags,
            SLANG_PRELUDE.encode() + source,
            lambda work: _slang(source, flags, name, work, limits),
        )
    flags = GLSL_FLAGS + _glslang_defines(defines)
    binary = _cached(
        "glslangValidator", flags, source, lambda work: _glslang(source, "comp", flags, name, work, limits)
    )
    return fixed(binary)  # what glslang 13 writes and spirv-val refuses (glslang_fixes.py)


def as_dxc(defines: Defines) -> Defines:
    """`defines` with the macros DXC defines when it writes SPIR-V and Slang does not (`DXC_PREDEFINED`),
    where they do not name them."""
    given = {name for name, _ in defines}
    return tuple((name, value) for name, value in DXC_PREDEFINED.items() if name not in given) + tuple(defines)


def _glslang_defines(defines: Defines) -> tuple[str, ...]:
    return tuple(f"-D{name}" if value is None else f"-D{name}={value}" for name, value in defines)


def _slang_defines(defines: Defines) -> tuple[str, ...]:
    return tuple(part for name, value in defines for part in ("-D", name if value is None else f"{name}={value}"))


def glslang_hlsl(
    source: bytes, name: str, entry: str | None = None, limits: ToolLimits = DEFAULT_LIMITS, defines: Defines = ()
) -> bytes:
    """glslang's HLSL front end (`-D -e ENTRY`, legalization on): not the path (it drops
    atomics and waits, docs/kernels.md); kept so that tests show the guard refusing it."""
    flags = GLSL_FLAGS + ("-D", "-e", entry or "main") + _glslang_defines(defines)
    return _cached("glslangValidator", flags, source, lambda work: _glslang(source, "hlsl", flags, name, work, limits))


def preprocessed(
    source: bytes, kind: str, name: str, limits: ToolLimits = DEFAULT_LIMITS, defines: Defines = ()
) -> str:
    """The source as glslang's preprocessor leaves it, lines where they were (`-E`; HLSL with `-D`),
    `#line` directives kept."""
    suffix = "comp" if kind == "glsl" else "hlsl"
    if kind == "hlsl":  # what the compiler defines
        dxc = as_dxc(defines)
        defines = tuple((name, v) for name, v in SLANG_PREDEFINED.items() if name not in dict(dxc)) + dxc
    else:
        defines = tuple(PREDEFINED.items()) + tuple(defines)
    flags = PREPROCESS_FLAGS + (("-D", "-S", "comp") if kind == "hlsl" else ()) + _glslang_defines(defines)
    key = _key("glslangValidator", flags, source)
    entry = _entry(key, ".txt")
    if entry is not None and trusted_file(entry):
        return entry.read_text(encoding="utf-8", errors="replace")
    with tempfile.TemporaryDirectory(prefix="progress-spirv-") as work:
        (Path(work) / f"kernel.{suffix}").write_bytes(source)
        done = _run(["glslangValidator", *flags, f"kernel.{suffix}"], "glslangValidator", work, limits)
    if done.returncode != 0:
        raise _glslang_error(done.stdout + done.stderr, source, name)
    if entry is not None:
        _store(entry, done.stdout.encode())
    return done.stdout


def assemble(source: bytes, name: str, limits: ToolLimits = DEFAULT_LIMITS) -> bytes:
    """The binary of a SPIR-V assembly text, at the version it states (`assembly_flags`)."""
    flags = assembly_flags(source, name)
    return _cached("spirv-as", flags, source, lambda work: _spirv_as(source, flags, name, work, limits))


def assembly_flags(source: bytes, name: str) -> tuple[str, ...]:
    """spirv-as's target for an assembly text: `spv1.N` when a comment line of its
    header (the comments before the first instruction) says `; Version: 1.N`, else
    AS_FLAGS. Another version (2.0, 1.7, garbage) is an InputError at that line."""
    lines = source_lines(source.decode("utf-8", errors="replace"))
    for number, line in enumerate(lines, 1):
        stripped = line.strip()
        if stripped and not stripped.startswith(";"):
            break
        match = _VERSION.match(line)
        if match is None:
            continue
        stated = _STATED.fullmatch(match.group(1))
        if stated is None or int(stated.group(1)) not in VERSIONS:
            column = line.index(match.group(1)) + 1 if match.group(1) else len(line) + 1
            raise InputError(
                f"SPIR-V version {match.group(1)!r}: the assembler takes 1.0 to 1.6",
                SourcePosition(name, number, column, line),
            )
        return ("--target-env", f"spv1.{stated.group(1)}")
    return AS_FLAGS


def optimize(binary: bytes, name: str, limits: ToolLimits = DEFAULT_LIMITS) -> bytes:
    """`spirv-opt -O` of a module."""
    return _cached("spirv-opt", OPT_FLAGS, binary, lambda work: _spirv_opt(binary, name, work, limits))


def validation_errors(binary: bytes, limits: ToolLimits = DEFAULT_LIMITS) -> str:
    """spirv-val's complaint about a module, "" when it is valid (cached when valid)."""
    key = _key("spirv-val", VAL_FLAGS, binary)
    marker = _entry(key, ".valid")
    if marker is not None and trusted_file(marker):
        return ""
    with tempfile.TemporaryDirectory(prefix="progress-spirv-") as work:
        module = Path(work) / "module.spv"
        module.write_bytes(binary)
        done = _run(["spirv-val", *VAL_FLAGS, str(module)], "spirv-val", limits=limits)
    if done.returncode != 0:
        return (done.stderr + done.stdout).strip() or f"spirv-val exited with status {done.returncode}"
    if marker is not None:
        _store(marker, b"")
    return ""


def validator_instruction(message: str) -> int | None:
    """The 1-based instruction number spirv-val's `error: line N:` names, if any (0 = the module)."""
    match = re.search(r"error: line (\d+):", message)
    return int(match.group(1)) if match else None


# --- running the tools ---------------------------------------------------------


def _run(
    argv: list[str], tool: str, cwd: str | None = None, limits: ToolLimits = DEFAULT_LIMITS
) -> subprocess.CompletedProcess[str]:
    if tool == "slang":
        prefix, env = [*tools.slang_command(), str(tools.slang_library())], None
    else:
        prefix, env = tools.command(tool)
    command = [*prefix, *argv[1:]]
    if limits.memory_bytes is not None:  # the shell sets the limit, then becomes the tool (no preexec_fn in threads)
        command = ["/bin/sh", "-c", 'ulimit -v "$0" && exec "$@"', str(limits.memory_bytes // 1024), *command]
    try:
        done = subprocess.run(
            command,
            capture_output=True,
            text=True,
            errors="replace",
            timeout=limits.timeout_s,
            cwd=cwd,
            env=env,
            stdin=subprocess.DEVNULL,
        )
    except subprocess.TimeoutExpired:
        raise InputError(f"{tool} did not finish within {limits.timeout_s:g} s") from None
    except OSError as error:
        raise InputError(f"cannot run {tool}: {error.strerror or error}") from None
    if limits.memory_bytes is not None and done.returncode < 0:
        raise InputError(
            f"{tool} was stopped by signal {-done.returncode}: it may use at most "
            f"{limits.memory_bytes >> 20} MiB of memory here"
        )
    return done


def _glslang(source: bytes, suffix: str, flags: tuple[str, ...], name: str, work: Path, limits: ToolLimits) -> bytes:
    (work / f"kernel.{suffix}").write_bytes(source)
    argv = ["glslangValidator", *flags, f"kernel.{suffix}", "-o", "kernel.spv"]
    done = _run(argv, "glslangValidator", str(work), limits)
    output = done.stdout + done.stderr
    if done.returncode != 0 or not (work / "kernel.spv").is_file():
        raise _glslang_error(output, source, name)
    return (work / "kernel.spv").read_bytes()


def _glslang_error(output: str, source: bytes, name: str) -> InputError:
    lines = source_lines(source.decode("utf-8", errors="replace"))
    located = [e[1:] for e in _GLSLANG_ERROR.findall(output) if "compilation terminated" not in e[2]]
    files = [e[0] for e in _GLSLANG_ERROR.findall(output) if "compilation terminated" not in e[2]]
    if not located:
        problems = [m.strip() for m in _GLSLANG_GLOBAL.findall(output)] or [output.strip() or "no output"]
        return InputError(f"{name}: glslangValidator rejects the shader: " + "; ".join(problems))
    errors = []
    for file, (number, message) in zip(files, located):
        if file == DEFINES_FILE:
            errors.append(InputError(f"{name}: a -D given for it: {message.strip()}{_predefined(message)}"))
            continue
        shown, shown_lines = _included(file, name, lines)
        line, message = int(number), message.strip()
        text = shown_lines[line - 1] if 0 < line <= len(shown_lines) else ""
        token = _QUOTED.search(message)
        column = text.find(token.group(1)) + 1 if token and token.group(1) in text else 1
        errors.append(InputError(message, SourcePosition(shown, line, column, text)))
    return InputErrors.joined(errors)


DEFINES_FILE = "-1"
"""The file name glslang gives the -D definitions (its preamble) in its errors."""
PREDEFINED = {"VULKAN": "100"}
"""Macros glslang -V defines itself (SPIR-V for Vulkan); the guard's preprocessor (-E) is given them."""
SLANG_PREDEFINED = {"__SLANG__": "0", "__SLANG_COMPILER__": "1", "__HLSL_VERSION": "2018"}
"""Macros Slang 2026.12 defines for HLSL (`#if`-probed), given to the guard's HLSL preprocessor too."""
DXC_PREDEFINED = {"__spirv__": "1", "__HLSL_VERSION": "2021"}
"""What DXC defines, writing SPIR-V (`-spirv`; its tests CodeGenSPIRV/ifdef.spirv.hlsl and, for the default
language version 2021, the __HLSL_VERSION preprocessor test), where Slang does not or says 2018: given to
Slang and to the guard's preprocessor, so a kernel takes the branches it takes under DXC."""


def _predefined(message: str) -> str:
    named = [macro for macro in PREDEFINED if message.rstrip().endswith(f": {macro}")]
    return f" (glslang defines {named[0]} {PREDEFINED[named[0]]} itself for Vulkan)" if named else ""


def _slang(source: bytes, flags: tuple[str, ...], name: str, work: Path, limits: ToolLimits) -> bytes:
    (work / "kernel.hlsl").write_bytes(SLANG_PRELUDE.encode() + source)
    done = _run(["slang", "kernel.spv", *SLANG_LANGUAGE, "kernel.hlsl", *flags], "slang", str(work), limits)
    if done.returncode != 0 or not (work / "kernel.spv").is_file():
        raise _slang_error(done.stderr + done.stdout, source, name)
    binary = (work / "kernel.spv").read_bytes()
    return renamed_source(binary, str((work / "kernel.hlsl").resolve()), "kernel.hlsl")


def _slang_error(output: str, source: bytes, name: str) -> InputError:
    found = list(_SLANG_ERROR.finditer(output))
    if not found:
        problems = [m.strip() for m in _SLANG_BARE.findall(output)] or [output.strip() or "no output"]
        return InputError(f"{name}: Slang rejects the shader: " + "; ".join(problems))
    lines = source_lines(source.decode("utf-8", errors="replace"))
    errors = []
    for located in found:
        headline, file, detail = located.group(1), located.group(2), located.group(5)
        line, column = int(located.group(3)), int(located.group(4))
        shown, shown_lines = _included(file, name, lines)
        text = shown_lines[line - 1] if 0 < line <= len(shown_lines) else ""
        errors.append(InputError(detail.strip() or headline.strip(), SourcePosition(shown, line, column, text)))
    return InputErrors.joined(errors)


def _included(file: str, name: str, lines: list[str]) -> tuple[str, list[str]]:
    """Where a compiler error is: the kernel (`kernel.*`, its lines), else an included file
    (`#line` names it as `include.py` shows it), read for its line."""
    if not file or Path(file).name in ("kernel.comp", "kernel.hlsl"):
        return name, lines
    try:
        return file, source_lines(Path(file).read_text(encoding="utf-8", errors="replace"))
    except OSError:
        return file, []


def _spirv_as(source: bytes, flags: tuple[str, ...], name: str, work: Path, limits: ToolLimits) -> bytes:
    (work / "kernel.spvasm").write_bytes(source)
    done = _run(["spirv-as", *flags, "kernel.spvasm", "-o", "kernel.spv"], "spirv-as", str(work), limits)
    if done.returncode != 0 or not (work / "kernel.spv").is_file():
        output = (done.stderr + done.stdout).strip()
        match = _AS_ERROR.search(output)
        if match is None:
            raise InputError(f"{name}: spirv-as rejects the assembly: {output or 'no output'}")
        line, column = int(match.group(1)), int(match.group(2))
        lines = source_lines(source.decode("utf-8", errors="replace"))
        text = lines[line - 1] if 0 < line <= len(lines) else ""
        raise InputError(match.group(3).strip(), SourcePosition(name, line, max(column, 1), text))
    return (work / "kernel.spv").read_bytes()


def _spirv_opt(binary: bytes, name: str, work: Path, limits: ToolLimits) -> bytes:
    (work / "in.spv").write_bytes(binary)
    done = _run(["spirv-opt", *OPT_FLAGS, "in.spv", "-o", "out.spv"], "spirv-opt", str(work), limits)
    if done.returncode != 0 or not (work / "out.spv").is_file():
        raise InputError(f"{name}: spirv-opt -O fails: {(done.stderr + done.stdout).strip() or 'no output'}")
    return (work / "out.spv").read_bytes()


# --- the cache ---------------------------------------------------------------


@lru_cache(maxsize=8)
def tool_version(tool: str) -> str:
    """The tool's `--version` output (part of every cache key)."""
    return _run([tool, "--version"], tool).stdout.strip()


def _key(tool: str, flags: tuple[str, ...], data: bytes) -> str:
    digest = hashlib.sha256()
    for part in (tool, tool_version(tool), "\0".join(flags)):
        digest.update(part.encode() + b"\0")
    digest.update(data)
    return digest.hexdigest()


def _cache_dir() -> Path | None:
    try:
        return private_dir(cache_root() / "spirv")
    except CacheUnavailable:
        return None


def _entry(key: str, suffix: str) -> Path | None:
    directory = _cache_dir()
    if directory is None:
        return None
    entry = directory / f"{key[:40]}{suffix}"
    check_entry(entry)
    return entry


def _cached(tool: str, flags: tuple[str, ...], data: bytes, build: Callable[[Path], bytes]) -> bytes:
    entry = _entry(_key(tool, flags, data), ".spv")
    if entry is not None and trusted_file(entry):
        cached = entry.read_bytes()
        if len(cached) >= 20 and len(cached) % 4 == 0 and cached[:4] in MAGIC_BYTES:
            return cached
    with tempfile.TemporaryDirectory(prefix="progress-spirv-") as work:
        made = build(Path(work))
    if entry is not None:
        _store(entry, made)
    return made


def _store(entry: Path, data: bytes) -> None:
    """Write `data` beside `entry` and move it in atomically; a full disk or
    a read-only cache only loses the cache entry."""
    try:
        handle, temporary = tempfile.mkstemp(dir=entry.parent, prefix=".build-")
    except OSError:
        return
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(data)
        install(Path(temporary), entry)
    except OSError:
        Path(temporary).unlink(missing_ok=True)
