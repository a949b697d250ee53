"""Load a kernel file: the one entry the CLI calls.

`load_kernel(data, name, kind, given)` turns a kernel's bytes into a
`LoadedKernel`: the header's launch settings overridden by `given` (the
command line's), the SPIR-V binary (compiled, assembled, or as given; after
`spirv-opt -O` when `optimized`), validated by `spirv-val`, decoded, each
instruction with its source line, and checked against the supported
subset. Every problem is an InputError (exit 2) with a position.
`launch_system` makes it the checker's System under its settings.

Kinds by suffix (`KIND_OF_SUFFIX`): `.comp`/`.glsl` GLSL, `.hlsl` HLSL,
`.wgsl` WGSL (through naga: `progress.front.wgsl`, whose notes, such as
naga's loop bounds removed, come with the kernel), `.spvasm` and `.spv.dis`
SPIR-V assembly, `.spv` a binary. A binary has no header of its
own; the header of the source it embeds (glslang -g) is read instead.
Source lines of assembly are the assembly's lines (one instruction a line).
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, replace
from pathlib import Path

from progress.errors import InputError, InputErrors, SourcePosition
from progress.front.dat3m_header import assembly_settings
from progress.front.header import PREPROCESSED, LaunchSettings, launch_settings, not_preprocessed
from progress.front.spirv.asmlines import assembly_lines
from progress.front.spirv.decode import DecodeErrors, decode
from progress.front.spirv.include import expand, missing_message, split_by_file
from progress.front.spirv.inputs import input_launch
from progress.front.spirv.ir import EntryPoint, Module, ModuleView, StructType, Variable
from progress.front.spirv.kept import check_kept
from progress.front.spirv.kernel import KernelSystem, Launch
from progress.front.spirv.layout import runtime_names, shared_variables, variable_name
from progress.front.spirv.lines import attach_lines, embedded_sources
from progress.front.spirv.redefine import redefined
from progress.front.spirv.specialize import specialize
from progress.front.spirv.subset import check_subset, subset_problems
from progress.front.spirv.toolchain import (
    DEFAULT_LIMITS,
    Defines,
    ToolLimits,
    assemble,
    compile_shader,
    optimize,
    preprocessed,
    validation_errors,
    validator_instruction,
)
from progress.front.wgsl.compile import FILE_NAME, wgsl_to_spirv
from progress.source import source_lines

KIND_OF_SUFFIX = {
    ".comp": "glsl",
    ".glsl": "glsl",
    ".hlsl": "hlsl",
    ".wgsl": "wgsl",
    ".spvasm": "spvasm",
    ".spv": "spv",
}
COMPILED_NAME = {"glsl": "kernel.comp", "hlsl": "kernel.hlsl", "wgsl": FILE_NAME}
"""The name the toolchain compiles a source under (its OpString), shown as the kernel's own."""
COMPILER = {"glsl": "glslang", "hlsl": "Slang"}
"""Who compiled a kind (the guard's messages name it)."""


@dataclass(frozen=True)
class LoadedKernel:
    """A kernel ready to check. `source`: the kernel's source text (for a
    binary, the source it embeds, "" if none); `entry`: the entry point to
    run; `notes`: what the user should know about how it was read."""

    module: Module
    settings: LaunchSettings
    source: str
    binary: bytes
    entry: EntryPoint
    removed: frozenset[str] = frozenset()
    """After spirv-opt: the names of shared variables (and of their members) it removed,
    which the launch settings may name without being refused."""
    notes: tuple[str, ...] = ()
    """What the user should know about how the kernel was read (WGSL: naga's loop bounds removed...)."""


def test_name(path: str | Path) -> str:
    """A kernel file's name without its kind's suffix (`mp.spv.dis`, `mp.comp.glsl` -> `mp`), as reports call it."""
    name = Path(path).name
    for double in (".spv.dis", ".comp.glsl"):
        if name.lower().endswith(double):
            return name[: -len(double)]
    return Path(name).stem


def kind_of(path: str | Path) -> str | None:
    """The kernel kind of a file name, None when it is not a kernel."""
    name = Path(path).name.lower()
    if name.endswith(".spv.dis"):  # spirv-dis's output, as Dat3M names its tests
        return "spvasm"
    return KIND_OF_SUFFIX.get(Path(name).suffix)


UTF8_BOM = b"\xef\xbb\xbf"


def load_kernel(
    data: bytes,
    name: str,
    kind: str,
    given: LaunchSettings | None = None,
    optimized: bool = False,
    limits: ToolLimits = DEFAULT_LIMITS,
    origin: Path | None = None,
) -> LoadedKernel:
    """The kernel in `data`, shown as `name` (see the module's contract);
    each external tool runs within `limits`. `origin`: the kernel file's folder,
    where its quoted `#include`s and its header's `-I` folders start; None (the
    playground): `#include` is refused."""
    if kind not in ("glsl", "hlsl", "wgsl", "spvasm", "spv"):
        raise InputError(f"{name}: unknown kernel kind {kind!r}")
    if not data.strip():
        raise InputError(f"{name}: the file is empty")
    if kind != "spv":  # a UTF-8 byte order mark (Windows editors write one) is no part of the text
        data = data.removeprefix(UTF8_BOM)
    given = given or LaunchSettings()
    if kind not in PREPROCESSED and (given.defines or given.include_dirs or given.redefines):
        option = "-D" if given.defines else "-I" if given.include_dirs else "--redefine"
        raise InputError(f"{name}: {not_preprocessed(option, kind)}")
    if kind == "spv":
        return _finish(data, name, "", LaunchSettings(), given, optimized, None, limits)
    text = _text(data, name)
    header = assembly_settings(text, name) if kind == "spvasm" else launch_settings(text, name, kind)
    entry = header.overridden_by(given).entry
    if kind == "wgsl":  # the overrides take --spec (WebGPU's pipeline constants) before naga runs
        wanted = header.overridden_by(given)
        yields = header.spec_over_size(given)
        compiled = wgsl_to_spirv(text, name, limits, wanted.spec, wanted.local_size, wanted.entry, yields)
        header, given = replace(header, spec=()), replace(given, spec=())
        if yields:  # the command line's --spec set the size the header's --local-size named
            header = replace(header, local_size=None)
        loaded = _finish(compiled.binary, name, text, header, given, optimized, kind, limits)
        return replace(loaded, notes=compiled.notes)
    if kind == "spvasm":
        return _finish(assemble(data, name, limits), name, text, header, given, optimized, kind, limits)
    if origin is not None:
        header = replace(header, include_dirs=tuple(str(origin / d) for d in header.include_dirs))
    wanted = header.overridden_by(given)
    dirs = tuple(Path(d) for d in wanted.include_dirs)
    expanded = expand(text, name, COMPILED_NAME[kind], kind, origin, dirs)
    source = expanded.text.encode() if expanded.included else data
    if wanted.redefines:
        source = redefined(source.decode("utf-8"), wanted.redefines, name).encode()
    try:
        binary = compile_shader(source, kind, name, entry if kind == "hlsl" else None, limits, wanted.defines)
    except InputError as error:  # each of the compiler's errors at the kernel's own line, or its include's
        each = error.errors if isinstance(error, InputErrors) else (error,)
        files = tuple(file for file, _ in expanded.files)
        raise InputErrors.joined([missing_message(expanded, _relined(e, name, text)) for e in each], files) from None
    try:
        guard_compiled(binary, source, kind, name, expanded.files, limits, defines=wanted.defines)
    except InputError as dropped:  # reported with every other problem of the module
        _finish(binary, name, text, header, given, optimized, kind, limits, expanded.files[1:], dropped)
        raise
    return _finish(binary, name, text, header, given, optimized, kind, limits, expanded.files[1:])


def _relined(error: InputError, name: str, text: str) -> InputError:
    """`error` with the kernel's own line shown (the compiler saw the source with its includes in place)."""
    position = error.position
    if position is None or position.path != name:
        return error
    lines = source_lines(text)
    shown = lines[position.line - 1] if 0 < position.line <= len(lines) else ""
    token = re.search(r"'([^']+)'", error.message)  # glslang's column: the quoted token's
    column = shown.find(token.group(1)) + 1 if token and token.group(1) in shown else position.column
    return InputError(error.message, replace(position, text=shown, column=column))


def guard_compiled(
    binary: bytes,
    source: bytes,
    kind: str,
    name: str,
    files: tuple[tuple[str, str], ...],
    limits: ToolLimits,
    compiler: str | None = None,
    defines: Defines = (),
) -> None:
    """Refuse a compiled GLSL/HLSL module that lost an atomic or a wait of its source (`kept.py`).
    `source`: what was compiled; `files`: the kernel's text (first) and each file it included."""
    module = _decoded(binary, kind, name, files[0][1], files[1:])
    active = split_by_file(preprocessed(source, kind, name, limits, defines), COMPILED_NAME[kind])
    active[name] = active.pop(COMPILED_NAME[kind], "")
    sources = {file: (text, active.get(file, "")) for file, text in files}
    check_kept(module, sources, kind, compiler or COMPILER[kind])


def _finish(
    binary: bytes,
    name: str,
    text: str,
    header: LaunchSettings,
    given: LaunchSettings,
    optimized: bool,
    kind: str | None,
    limits: ToolLimits,
    included: tuple[tuple[str, str], ...] = (),
    found: InputError | None = None,
) -> LoadedKernel:
    """The loaded kernel, or one error naming every problem found: `found` (the guard's),
    spirv-val's, the launch settings' and every instruction outside the subset."""
    before = _decoded(binary, kind, name, text, included) if optimized else None
    if optimized:
        binary = optimize(binary, name, limits)
    module = _decoded(binary, kind, name, text, included)
    refused = subset_problems(module, name)  # shown with any problem found on the way to check_subset
    files = (name, *(file for file, _ in included))  # the kernel's problems first, then its includes'
    try:
        loaded = _checked(module, binary, before, name, text, header, given, kind, limits)
    except InputError as error:
        raise InputErrors.joined([error, *refused, *([found] if found else [])], files) from None
    if found is not None:
        raise InputErrors.joined([found], files)
    return loaded


def _checked(
    module: Module,
    binary: bytes,
    before: Module | None,
    name: str,
    text: str,
    header: LaunchSettings,
    given: LaunchSettings,
    kind: str | None,
    limits: ToolLimits,
) -> LoadedKernel:
    """`module` (after spirv-opt when `before`, the module it optimized, is given) validated,
    specialized by its launch settings and inside the subset; an InputError otherwise."""
    removed: frozenset[str] = frozenset()
    if before is not None:
        module = _kept_aliases(before, module)
        removed = removed_names(before.view, module.view)
    if kind not in COMPILED_NAME and kind != "spvasm":
        text, header = _embedded_header(module, name)
    if not module.view.entry_points:  # before spirv-val, whose complaint (Linkage) would hide it
        raise InputError(f"{name}: the module has no entry point (OpEntryPoint)")
    _validate(module, binary, name, limits)
    settings = header.overridden_by(given)
    chosen = None if kind == "hlsl" else settings.entry  # Slang compiled only that entry point, and calls it main
    yields = header.spec_over_size(given)
    module = specialize(module, settings.spec, settings.local_size, module.view.entry_point(chosen), name, text, yields)
    entry = check_subset(module, name, chosen)
    return LoadedKernel(module, settings, text, binary, entry, removed)


def _decoded(binary: bytes, kind: str | None, name: str, text: str, included: tuple[tuple[str, str], ...]) -> Module:
    """The binary decoded, with its source lines; a binary the decoder refused: one error of
    each of its problems at the source line in force there, with the subset's refusals of
    the instructions it could read."""
    try:
        module = decode(binary, name)
    except DecodeErrors as refused:
        partial = _with_lines(refused.partial, kind, name, text, included)
        files = (name, *(file for file, _ in included))
        raise InputErrors.joined([*refused.located(partial), *subset_problems(partial, name)], files) from None
    return _with_lines(module, kind, name, text, included)


def _with_lines(
    module: Module, kind: str | None, name: str, text: str, included: tuple[tuple[str, str], ...] = ()
) -> Module:
    """`module` with its source lines: the compiled source's (and its included files'), the
    assembly's, or the embedded source's."""
    if kind in COMPILED_NAME:
        return attach_lines(module, {COMPILED_NAME[kind]: name}, {COMPILED_NAME[kind]: text, **dict(included)})
    if kind == "spvasm":
        return assembly_lines(attach_lines(module), text, name)
    return attach_lines(module)


def _kept_aliases(before: Module, after: Module) -> Module:
    """The optimized module with the assembly's `%names` of the variables it kept (spirv-opt
    keeps ids; the assembly's lines no longer pair with its instructions)."""
    if after.aliases or not before.aliases:
        return after
    kept = tuple((ident, alias) for ident, alias in before.aliases if ident in after.view.variables)
    return replace(after, aliases=kept)


def launch_system(loaded: LoadedKernel, test: str, path: str) -> KernelSystem:
    """The loaded kernel launched by its settings, as the checker's System;
    `test` names it in reports, `path` in errors. Settings that name what
    spirv-opt removed (`loaded.removed`) are left out."""
    launch = launch_of(loaded)
    return KernelSystem(loaded.module, launch, test, path, _digest(loaded.binary, launch, loaded.settings))


def launch_of(loaded: LoadedKernel) -> Launch:
    """The launch the kernel's settings give (Dat3M's inputs as buffer lengths and
    cells); settings that name what spirv-opt removed are left out."""
    settings = loaded.settings
    inputs = tuple(i for i in settings.inputs if not {i.name, i.name[1:]} & loaded.removed)
    given_buffers, given_init = input_launch(loaded.module.view, inputs)
    buffers = given_buffers | {name: n for name, n in settings.buffers.items() if name not in loaded.removed}
    init = tuple(given_init) + tuple(item for item in settings.init if _root(item[0]) not in loaded.removed)
    return Launch(settings.workgroups or 1, buffers, init, loaded.entry.name, settings.push, settings.subgroup_size)


def removed_names(before: ModuleView, after: ModuleView) -> frozenset[str]:
    """The names of the shared variables of `before` that `after` lacks, their members'
    (an anonymous block's cells are its members') and their runtime arrays'."""
    kept = {_identity(after, v) for v in shared_variables(after)}
    aliases = runtime_names(before)
    removed: set[str] = set()
    for var in shared_variables(before):
        name = variable_name(before, var)
        if _identity(before, var) in kept:
            continue
        block = before.types.get(var.pointee)
        members = len(block.members) if isinstance(block, StructType) else 0
        removed |= {name, *aliases.get(var.id, ())}
        removed |= {before.member_names.get((var.pointee, i), "") for i in range(members)} if not name else set()
    kept_aliases = {a for names in runtime_names(after).values() for a in names}
    return frozenset(removed - {""} - kept_aliases)


def _identity(view: ModuleView, var: Variable) -> tuple[object, ...]:
    """What a variable is across spirv-opt: its descriptor set and binding, else its name."""
    found = [view.decoration(var.id, d) for d in ("DescriptorSet", "Binding")]
    if all(d is not None for d in found):
        return tuple(d.value for d in found if d is not None)
    return (var.storage_class, variable_name(view, var))


def _root(cell: str) -> str:
    """The variable (or anonymous block member) a cell name starts with."""
    return cell.split("[")[0].split(".")[0]


def _digest(binary: bytes, launch: Launch, settings: LaunchSettings) -> str:
    """16 hex digits of the SPIR-V binary and the launch: the kernel test's hash."""
    hasher = hashlib.sha256(binary)
    hasher.update(repr((launch.workgroups, sorted(launch.buffers.items()), launch.init, launch.entry)).encode())
    if settings.spec or settings.push or settings.local_size:  # a launch without them keeps its old hash
        hasher.update(repr((sorted(settings.spec), settings.push, settings.local_size)).encode())
    if settings.subgroup_size:
        hasher.update(repr(settings.subgroup_size).encode())
    return hasher.hexdigest()[:16]


def _text(data: bytes, name: str) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        line = data.count(b"\n", 0, error.start) + 1
        column = error.start - (data.rfind(b"\n", 0, error.start) + 1) + 1
        raise InputError("the file is not UTF-8 text", SourcePosition(name, line, column)) from None


def _embedded_header(module: Module, name: str) -> tuple[str, LaunchSettings]:
    """A binary's source text (the first it embeds) and that source's header."""
    sources = embedded_sources(module)
    if not sources:
        return "", LaunchSettings()
    file_name, text = next(iter(sources.items()))
    return text, launch_settings(text, f"{name} (embedded {file_name})", "glsl")


def _validate(module: Module, binary: bytes, name: str, limits: ToolLimits) -> None:
    complaint = validation_errors(binary, limits)
    if not complaint:
        return
    first = complaint.splitlines()[0].removeprefix("error: ")
    number = validator_instruction(complaint)
    if number is not None and 0 < number <= len(module.instructions):
        inst = module.instructions[number - 1]
        if inst.source is not None:
            raise InputError(f"{inst.opcode}: spirv-val: {first}", inst.source.position())
        raise InputError(f"{name}: word {inst.word_offset}: {inst.opcode}: spirv-val: {first}")
    raise InputError(f"{name}: spirv-val: {first}")
