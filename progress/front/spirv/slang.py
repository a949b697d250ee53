"""Slang's compiler (libslang-compiler, shipped in PyPI's slangpy) through ctypes.

slangpy's wheel ships the library but no `slangc`; `progress.cli.slangc` is
one, built on `compile_to(library, out, arguments)`: it loads the library,
hands the arguments to a compile request as `slangc` would read them
(`spProcessCommandLineArguments`), compiles, writes entry point 0's code to
`out`, and returns (0 when written, else 1; the diagnostics). The toolchain
runs it in a child process so that the tool limits (time, memory) apply and
a crash in the library is only a failed run. `build_tag(library)`: Slang's
version.

`renamed_source(binary, old, new)` rewrites the OpString that names the
compiled file (Slang writes the absolute path of a temporary file) so that the
same source gives the same bytes.
"""

from __future__ import annotations

import ctypes
import struct

OP_STRING = 7


def _library(path: str) -> ctypes.CDLL:
    lib = ctypes.CDLL(path)
    pointer, text = ctypes.c_void_p, ctypes.c_char_p
    signatures = {
        "spGetBuildTagString": (text, []),
        "spCreateSession": (pointer, [text]),
        "spCreateCompileRequest": (pointer, [pointer]),
        "spProcessCommandLineArguments": (ctypes.c_int32, [pointer, ctypes.POINTER(text), ctypes.c_int]),
        "spCompile": (ctypes.c_int32, [pointer]),
        "spGetDiagnosticOutput": (text, [pointer]),
        "spGetEntryPointCode": (pointer, [pointer, ctypes.c_int, ctypes.POINTER(ctypes.c_size_t)]),
        "spDestroyCompileRequest": (None, [pointer]),
        "spDestroySession": (None, [pointer]),
    }
    for name, (result, arguments) in signatures.items():
        function = getattr(lib, name)
        function.restype, function.argtypes = result, arguments
    return lib


def build_tag(library: str) -> str:
    """Slang's version, as the library says it ("2026.12")."""
    return str(_library(library).spGetBuildTagString().decode())


def compile_to(library: str, out: str, arguments: list[str]) -> tuple[int, str]:
    """Compile as `slangc ARGUMENTS` would; entry point 0's code to `out`. (Status, diagnostics)."""
    lib = _library(library)
    session = lib.spCreateSession(None)
    request = lib.spCreateCompileRequest(session)
    argv = [a.encode() for a in (*arguments, "-o", out)]  # without -o no code is kept for the entry point
    status = lib.spProcessCommandLineArguments(request, (ctypes.c_char_p * len(argv))(*argv), len(argv))
    if status >= 0:
        status = lib.spCompile(request)
    diagnostics = (lib.spGetDiagnosticOutput(request) or b"").decode("utf-8", errors="replace")
    size = ctypes.c_size_t()
    code = lib.spGetEntryPointCode(request, 0, ctypes.byref(size)) if status >= 0 else None
    written = code is not None and size.value > 0
    if code is not None and written:
        with open(out, "wb") as handle:
            handle.write(ctypes.string_at(code, size.value))
    lib.spDestroyCompileRequest(request)
    lib.spDestroySession(session)
    return (0 if written else 1), diagnostics


def renamed_source(binary: bytes, old: str, new: str) -> bytes:
    """`binary` with every `OpString "old"` made `OpString "new"` (little-endian modules)."""
    words = list(struct.unpack(f"<{len(binary) // 4}I", binary))
    out, at = words[:5], 5
    while at < len(words):
        count, opcode = words[at] >> 16, words[at] & 0xFFFF
        if count == 0:
            return binary
        inst = words[at : at + count]
        if opcode == OP_STRING and len(inst) > 2:
            text = struct.pack(f"<{count - 2}I", *inst[2:]).split(b"\0", 1)[0]
            if text == old.encode():
                data = new.encode() + b"\0"
                data += b"\0" * (-len(data) % 4)
                inst = [((2 + len(data) // 4) << 16) | OP_STRING, inst[1], *struct.unpack(f"<{len(data) // 4}I", data)]
        out.extend(inst)
        at += count
    return struct.pack(f"<{len(out)}I", *out)
