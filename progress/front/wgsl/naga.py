"""naga, wgpu's shader translator, as the npm package naga-wasm under Node.

The one module that runs it. `translate(source, limits)` hands WGSL to
`naga_run.mjs` (parse, validate, SPIR-V with debug names) and returns the
binary, or raises `NagaRefusal` with naga's own report; `spirv_to_wgsl`
the other way (naga's SPIR-V reader and WGSL writer: what the kernel run
page hands WebGPU); `refusal_error`
turns that report into an InputError at the WGSL `file:line:col` naga names
(its columns count characters, as the project's do).

Where naga-wasm lives: `$PROGRESS_NAGA_DIR` when set, else `npm/` beside
this file, the folder `.ci/system-deps` fills from the committed
package-lock.json (`npm ci`: the pinned version, its integrity hash
checked). A missing Node, a missing package or another version is an
InputError (exit 2) naming what to install. Node runs within the caller's
`ToolLimits`: the time-out, and the memory limit as the data segment limit
(`ulimit -d`; V8 reserves gigabytes of address space it never touches, so
an address-space limit would stop Node before it starts).

Outputs are cached in the per-user private cache (`~/.cache/progress/wgsl`)
keyed by the runner script, the WebAssembly binary and the source.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
import tempfile
from functools import lru_cache
from pathlib import Path

from progress.cache import CacheUnavailable, cache_root, check_entry, install, private_dir, trusted_file
from progress.errors import InputError, SourcePosition
from progress.front.spirv.toolchain import DEFAULT_LIMITS, ToolLimits
from progress.source import source_lines

PINNED = "30.1.0"
"""The naga-wasm version package-lock.json pins (tests/test_wgsl_naga.py checks they agree)."""
NPM_DIR = Path(__file__).parent / "npm"
RUNNER = Path(__file__).parent / "naga_run.mjs"
ENVIRONMENT = "PROGRESS_NAGA_DIR"
MAGIC = b"\x03\x02\x23\x07"

_AT = re.compile(r"┌─ wgsl:(\d+):(\d+)")
_LABEL = re.compile(r"^\s*│\s*[\^\-][\^\-\s]*?([^\^\-\s].*)?$")
_NOTE = re.compile(r"^\s*= (.*)$")


class NagaRefusal(Exception):
    """naga rejected the source: `kind` ("parse", "validation", "write") and its report."""

    def __init__(self, kind: str, formatted: str):
        super().__init__(formatted)
        self.kind = kind
        self.formatted = formatted


def naga_dir() -> Path:
    """The folder whose node_modules/ holds naga-wasm."""
    given = os.environ.get(ENVIRONMENT)
    return Path(given) if given else NPM_DIR


def translate(source: str, limits: ToolLimits = DEFAULT_LIMITS) -> bytes:
    """naga's SPIR-V for the WGSL `source` (see the module's contract)."""
    wasm = _wasm_path()
    key = _key(wasm, source)
    entry = _entry(key)
    if entry is not None and trusted_file(entry):
        cached = entry.read_bytes()
        if len(cached) >= 20 and len(cached) % 4 == 0 and cached[:4] == MAGIC:
            return cached
    binary = _run(source.encode("utf-8"), limits)
    if entry is not None:
        _store(entry, binary)
    return binary


def spirv_to_wgsl(binary: bytes, limits: ToolLimits = DEFAULT_LIMITS) -> str:
    """naga's WGSL for the SPIR-V `binary` (its SPIR-V reader, then its WGSL
    writer: what a WebGPU page can run), or NagaRefusal. Cached as `translate` is."""
    wasm = _wasm_path()
    key = _key(wasm, binary.hex(), "spirv")
    entry = _entry(key, ".wgsl")
    if entry is not None and trusted_file(entry):
        try:
            return entry.read_bytes().decode("utf-8")
        except UnicodeDecodeError:
            pass
    text = _run(binary, limits, "spirv").decode("utf-8")
    if entry is not None:
        _store(entry, text.encode("utf-8"))
    return text


def version() -> str:
    """ "naga-wasm X" as installed (the npm package's version)."""
    return f"naga-wasm {_installed_version(_package_dir())}"


def refusal_error(refusal: NagaRefusal, source: str, name: str) -> InputError:
    """naga's report as an InputError at the WGSL line and column it names."""
    lines = refusal.formatted.splitlines()
    message = lines[0].removeprefix("error: ").strip() if lines else "naga rejects the shader"
    labels = [m.group(1).strip() for m in map(_LABEL.match, lines) if m and m.group(1)]
    notes = [m.group(1).strip() for m in map(_NOTE.match, lines) if m]
    if labels:
        message += f": {labels[0]}"
    if notes:
        message += f" ({'; '.join(notes)})"
    at = _AT.search(refusal.formatted)
    if at is None:
        return InputError(f"{name}: naga: {message}")
    line, column = int(at.group(1)), int(at.group(2))
    texts = source_lines(source)
    text = texts[line - 1] if 0 < line <= len(texts) else ""
    return InputError(f"naga: {message}", SourcePosition(name, line, max(column, 1), text))


# --- running Node ----------------------------------------------------------------


def _package_dir() -> Path:
    return naga_dir() / "node_modules" / "naga-wasm"


def _wasm_path() -> Path:
    """naga-wasm's WebAssembly binary, after checking the install (InputError naming the fix)."""
    package = _package_dir()
    installed = _installed_version(package)
    if installed != PINNED:
        raise InputError(
            f"naga-wasm {installed} is installed in {naga_dir()}, progress reads WGSL with {PINNED}: "
            f"run `npm ci` in {NPM_DIR} (.ci/system-deps does)"
        )
    wasm = package / "dist" / "wasm" / "naga_bg.wasm"
    if not wasm.is_file():
        raise InputError(f"naga-wasm in {naga_dir()} has no {wasm.name}: run `npm ci` in {NPM_DIR}")
    return wasm


def _installed_version(package: Path) -> str:
    try:
        return str(json.loads((package / "package.json").read_text(encoding="utf-8"))["version"])
    except (OSError, ValueError, KeyError, TypeError):
        raise InputError(
            f"naga-wasm {PINNED} is not installed (no {package}): reading WGSL needs it; "
            f"run .ci/system-deps, or `npm ci` in {NPM_DIR}"
        ) from None


def _run(data: bytes, limits: ToolLimits, mode: str = "wgsl") -> bytes:
    """naga_run.mjs on `data` in `mode` ("wgsl": WGSL in, SPIR-V out; "spirv": the other way)."""
    node = shutil.which("node") or shutil.which("nodejs")
    if node is None:
        raise InputError(
            "node is not installed (or not on PATH): reading WGSL needs it; install the Debian package nodejs"
        )
    command = [node, str(RUNNER), str(naga_dir()), mode]
    if limits.memory_bytes is not None:  # the shell sets the limit, then becomes Node
        command = ["/bin/sh", "-c", 'ulimit -d "$0" && exec "$@"', str(limits.memory_bytes // 1024), *command]
    try:
        done = subprocess.run(command, input=data, capture_output=True, timeout=limits.timeout_s)
    except subprocess.TimeoutExpired:
        raise InputError(f"naga did not finish within {limits.timeout_s:g} s") from None
    except OSError as error:
        raise InputError(f"cannot run node: {error.strerror or error}") from None
    if done.returncode == 0 and (mode == "spirv" or (len(done.stdout) >= 20 and done.stdout[:4] == MAGIC)):
        return done.stdout
    if done.returncode == 1:
        try:
            report = json.loads(done.stdout)
            raise NagaRefusal(str(report["kind"]), str(report["formatted"]))
        except (ValueError, KeyError, TypeError):
            pass
    return _failed(done, limits)


def _failed(done: subprocess.CompletedProcess[bytes], limits: ToolLimits) -> bytes:
    said = done.stderr.decode("utf-8", errors="replace").strip().splitlines()
    last = next((line for line in reversed(said) if "Error" in line), said[-1] if said else "")
    how = (
        f"was stopped by signal {-done.returncode}" if done.returncode < 0 else f"exited with status {done.returncode}"
    )
    if limits.memory_bytes is not None:
        how += f" (it may use at most {limits.memory_bytes >> 20} MiB of memory here)"
    raise InputError(f"naga under node {how}" + (f": {last.strip()}" if last else ""))


# --- the cache ---------------------------------------------------------------------


@lru_cache(maxsize=4)
def _tool_digest(wasm: Path, stamp: tuple[int, int]) -> bytes:
    digest = hashlib.sha256(RUNNER.read_bytes())
    digest.update(wasm.read_bytes())
    return digest.digest()


def _key(wasm: Path, source: str, mode: str = "wgsl") -> str:
    info = wasm.stat()
    digest = hashlib.sha256(_tool_digest(wasm, (info.st_mtime_ns, info.st_size)))
    digest.update(mode.encode() + b"\0" + source.encode("utf-8"))
    return digest.hexdigest()


def _entry(key: str, suffix: str = ".spv") -> Path | None:
    try:
        directory = private_dir(cache_root() / "wgsl")
    except CacheUnavailable:
        return None
    entry = directory / f"{key[:40]}{suffix}"
    check_entry(entry)
    return entry


def _store(entry: Path, data: bytes) -> None:
    """Move `data` in atomically; a full disk or a read-only cache only loses the entry."""
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
