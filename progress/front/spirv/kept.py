"""The guard: a compiled module must keep the source's synchronization.

A compiler that drops an atomic (glslang's HLSL front end compiles
`InterlockedCompareStore` to two plain loads) or deletes a wait (glslang's
HLSL legalization removes a spin on a plain load) gives a module whose
verdicts are not the source's, silently. `check_kept(module, sources, kind,
compiler)` compares the module, as the compiler produced it (before any
`--optimize`), with the source it came from and refuses the difference:

- every atomic call of the source (GLSL `atomicAdd`... `atomicStore`,
  `imageAtomic*`; HLSL `Interlocked*`) must have an `OpAtomic*` instruction
  at the lines of its statement, as many as the statement has calls;
- every loop (`while`, `for`, `do ... while`) whose condition names a
  memory variable (a global that is not `const` or `static`, and in GLSL has
  a storage qualifier: a buffer, its members, `shared`/`groupshared`, a
  uniform; an HLSL resource parameter or
  local, `void wait(RWStructuredBuffer<uint> flags)`; a variable of a GLSL
  buffer reference type) other than in an array's
  `.length()` (which reads no memory), or calls a function of the source
  that names one (itself or through the functions it calls: `while
  (load_flag(i) == 0)`), must keep a read of memory (an `OpLoad` not from a
  function-local variable, an `OpAtomic*`, or an `OpFunctionCall` of a
  function whose code keeps such a read, itself or through its calls) at the
  lines of its condition, inside the loop: in a block of the innermost loop
  (OpLoopMerge: the blocks its header reaches and that reach it back, not
  through its merge block) with code at the condition's lines (its
  instructions' own lines; failing that, the lines carried over from the
  block before), so a read the compiler hoisted out of the loop, still at the
  condition's line, does not count (where no loop is left at those lines, as
  for a loop unrolled, a read at them anywhere does); a compiler that inlined the call leaves the read at
  the called function's lines, which count when they are in a block of that
  loop that also has code at the condition's lines.

`sources` maps each file name the module's lines use to that file's text and
the text as the preprocessor leaves it (inactive `#if` branches blank, macros
expanded, line numbers kept: `glslangValidator -E`). The guard reads the
latter, so a line blank there is not asked for and an atomic or a wait written
through a macro is asked for at the line that uses the macro (the file's own
text only where the preprocessor's lines are not the file's).
Only functions the module has code of are checked (a function nobody calls
may be left out). Lines come from the module's debug lines (an instruction
without one takes the last line before it in its function); a module
without any is not checked. Every problem is an InputError at its line,
together in one InputErrors (exit 2). Code a macro expands to counts at the
lines of the macro's `#define` too (and of the macros it uses): Slang puts it
there, glslang at the line that uses the macro (`macros.py`). Pure.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass

from progress.errors import InputError, InputErrors, SourcePosition
from progress.front.spirv.ir import Id, Instruction, Module, SourceLine
from progress.front.spirv.macros import Macro, definitions, spans

ATOMIC_CALL = {
    "glsl": re.compile(r"\b(atomic(?:Add|Min|Max|And|Or|Xor|Exchange|CompSwap|Load|Store)|imageAtomic\w+)\s*\("),
    "hlsl": re.compile(r"\b(Interlocked\w+)\s*\("),
}
LOOP = re.compile(r"\b(while|for)\s*\(")
IDENTIFIER = re.compile(r"(?<![\w.])([A-Za-z_]\w*)")
LOCAL_CLASSES = frozenset({"Function", "Private"})
_DIRECTIVE = re.compile(r"^[ \t]*#.*$", re.MULTILINE)
_COMMENT = re.compile(r"//[^\n]*|/\*.*?\*/", re.DOTALL)
_NOT_MEMORY = re.compile(r"\b(const|static|struct|in|out|precision)\b")
_BLOCK = re.compile(r"\b(buffer|uniform|cbuffer|tbuffer|shared)\b")
_INSTANCE = re.compile(r"\s*([A-Za-z_]\w*)?\s*(?:\[[^\]]*\]\s*)*;")
_ATTRIBUTES = re.compile(r"\b(?:layout|register|packoffset)\s*\([^)]*\)|\[\[.*?\]\]")
_LENGTH = re.compile(r"[A-Za-z_][\w.]*(?:\[[^\]]*\][\w.]*)*\s*\.\s*length\s*\(\s*\)")
"""`buffer.values.length()`: a runtime array's length (OpArrayLength), no read of memory."""
_RESOURCE = re.compile(
    r"\b(?:globallycoherent\s+)?(?:RW|RasterizerOrdered)?(?:StructuredBuffer|ByteAddressBuffer|Buffer|"
    r"Texture[123]D(?:Array)?|ConsumeStructuredBuffer|AppendStructuredBuffer|ConstantBuffer)\b\s*(?:<[^<>]*>)?"
    r"\s*(?:&\s*)?([A-Za-z_]\w*)\s*[,)=;:\[]"
)
"""An HLSL resource declared anywhere (a parameter, a local): its name is memory."""
_REFERENCE_TYPE = re.compile(r"\blayout\s*\([^)]*\bbuffer_reference\b[^)]*\)\s*(?:\w+\s+)*?buffer\s+([A-Za-z_]\w*)")
"""A GLSL buffer reference type (GL_EXT_buffer_reference): a variable of it points to memory."""
_DECLARED = re.compile(r"([A-Za-z_]\w*)\s*(?:\[[^\]]*\]\s*)*(?::[^;]*)?(?:=[^;]*)?;")


@dataclass(frozen=True)
class _Statement:
    first: int  # 1-based lines
    last: int
    start: int  # offsets into the text
    text: str


def check_kept(module: Module, sources: Mapping[str, tuple[str, str]], kind: str, compiler: str) -> None:
    """Refuse (InputErrors) what `compiler` dropped; see the module's contract.
    `sources`: file name -> (its text, its text as the preprocessor leaves it)."""
    lines = _module_lines(module)
    if not lines:
        return
    atomics = _atomic_lines(module)
    loops = _Loops(_read_blocks(module), _loop_bodies(module))
    texts = {file: _scanned(raw, active) for file, (raw, active) in sources.items()}
    table = definitions({file: raw for file, (raw, _) in sources.items()})
    declared = (_declared_memory(text, kind) | _aliased_memory(text) for text in texts.values())
    memory = _memory_names(module).union(*declared)
    functions = [(file, *found) for file, text in texts.items() for found in _functions(text)]
    present = _present(functions, texts, lines)
    readers = _readers(functions, texts, memory)
    inlined = _Inlined(functions, texts)
    problems: list[InputError] = []
    for file, name, _first, _last, body in functions:
        if name not in present:
            continue
        raw, text = sources[file][0], texts[file]
        written = _Written(file, raw, text, table)
        problems += _missing_atomics(written, body, atomics, kind, compiler)
        wait = _Wait(loops, memory, readers, inlined)
        problems += _deleted_waits(written, body, wait, compiler)
    if problems:
        raise InputErrors.joined(problems)


def _present(
    functions: list[tuple[str, str, int, int, tuple[int, int]]], texts: Mapping[str, str], lines: Mapping[str, set[int]]
) -> set[str]:
    """The functions the module has code of, and those they call (inlined, or deleted with
    what the compiler dropped), by name."""
    present = {name for file, name, first, last, _ in functions if any(first <= n <= last for n in lines.get(file, ()))}
    bodies = {name: texts[file][body[0] : body[1]] for file, name, _, _, body in functions}
    calls = {name: set(re.findall(r"\b([A-Za-z_]\w*)\s*\(", body)) & bodies.keys() for name, body in bodies.items()}
    pending = list(present)
    while pending:
        for callee in calls.get(pending.pop(), set()) - present:
            present.add(callee)
            pending.append(callee)
    return present


def _readers(
    functions: list[tuple[str, str, int, int, tuple[int, int]]], texts: Mapping[str, str], memory: set[str]
) -> dict[str, str]:
    """Function name -> the memory it names (the first), itself or through the functions
    of the source it calls, transitively; functions that name none are left out."""
    bodies = {name: texts[file][body[0] : body[1]] for file, name, _, _, body in functions if name}
    found = {name: _named_memory(body, memory) for name, body in bodies.items()}
    readers = {name: named[0] for name, named in found.items() if named}
    calls = {name: _called(body) & bodies.keys() for name, body in bodies.items()}
    changed = True
    while changed:  # each round adds a function or ends: at most one round per function
        changed = False
        for name in sorted(bodies.keys() - readers.keys()):
            through = sorted(calls[name] & readers.keys())
            if through:
                readers[name], changed = readers[through[0]], True
    return readers


@dataclass(frozen=True)
class _Block:
    """A block of the module: its label, the (file, line) of its code and of its reads of memory."""

    label: int
    code: frozenset[tuple[str, int]]
    reads: frozenset[tuple[str, int]]
    carried: frozenset[tuple[str, int]] = frozenset()
    """The lines of its code as `_located` gives them (a line carried over from the block before)."""


class _Loops:
    """The module's blocks and loops: where a wait's condition has to keep its read."""

    def __init__(self, blocks: list[_Block], bodies: list[frozenset[int]]):
        self.blocks = blocks
        self.bodies = bodies

    def scope(self, file: str, first: int, last: int) -> list[_Block]:
        """The blocks of the innermost loop with code at `file` lines `first..last` (a read
        hoisted out of it does not count); every block where no loop has (a loop the
        compiler unrolled keeps no loop)."""
        for lines in ("code", "carried"):  # a loop left without lines of its own: by the lines carried
            at = {b.label for b in self.blocks if any(f == file and first <= n <= last for f, n in getattr(b, lines))}
            holding = [body for body in self.bodies if body & at]
            if holding:
                break
        else:
            return self.blocks
        inner = min(holding, key=len)
        return [b for b in self.blocks if b.label in inner]


class _Inlined:
    """Whether a call's reads were inlined into a block: the functions' line ranges, the
    functions each calls (transitively), and the module's blocks."""

    def __init__(
        self,
        functions: list[tuple[str, str, int, int, tuple[int, int]]],
        texts: Mapping[str, str],
    ):
        self.ranges: dict[str, list[tuple[str, int, int]]] = {}
        bodies: dict[str, str] = {}
        for file, name, first, last, body in functions:
            self.ranges.setdefault(name, []).append((file, first, last))
            bodies[name] = bodies.get(name, "") + texts[file][body[0] : body[1]]
        self.calls = {name: _called(body) & bodies.keys() for name, body in bodies.items()}

    def kept(self, file: str, first: int, last: int, called: set[str], blocks: list[_Block]) -> bool:
        """Whether one of `blocks` with code at `file` lines `first..last` reads memory at a
        line of a function in `called` or of one they call."""
        reached, pending = set(called), list(called)
        while pending:
            for callee in self.calls.get(pending.pop(), set()) - reached:
                reached.add(callee)
                pending.append(callee)
        spans = [span for name in sorted(reached) for span in self.ranges.get(name, [])]
        return any(
            any(f == file and first <= n <= last for f, n in block.code)
            and any(f == g and a <= n <= b for f, n in block.reads for g, a, b in spans)
            for block in blocks
        )


@dataclass(frozen=True)
class _Wait:
    """What deciding whether a wait was kept needs: the module's blocks and loops, the
    memory's names, the functions that name memory, inlined reads."""

    loops: _Loops
    memory: set[str]
    readers: Mapping[str, str]
    inlined: _Inlined

    def kept(self, file: str, first: int, last: int, called: set[str]) -> bool:
        """Whether the innermost loop at the condition's lines `first..last` reads memory
        there, or (an inlined call of `called`) at a called function's line in a block
        with code at the condition's lines."""
        blocks = self.loops.scope(file, first, last)
        if any(f == file and first <= n <= last for block in blocks for f, n in block.reads):
            return True
        return bool(called) and self.inlined.kept(file, first, last, called, blocks)


def _named_memory(text: str, memory: set[str]) -> list[str]:
    """The memory names `text` uses, in order (not in a runtime array's `.length()`)."""
    return [n for n in IDENTIFIER.findall(_LENGTH.sub(" ", text)) if n in memory]


def _called(text: str) -> set[str]:
    return set(re.findall(r"\b([A-Za-z_]\w*)\s*\(", text))


# --- the module -----------------------------------------------------------------


def _module_lines(module: Module) -> dict[str, set[int]]:
    found: dict[str, set[int]] = {}
    for inst in module.instructions:
        if inst.source is not None and inst.source.line > 0:
            found.setdefault(inst.source.file, set()).add(inst.source.line)
    return found


def _located(module: Module) -> Iterator[tuple[Instruction, SourceLine]]:
    """Each instruction of a function with its source line; one without a line takes the
    last line before it in its function. A line applies only to its own block, and Slang
    writes none in the merge block of a `?:`: `InterlockedExchange(b[i], c ? 1 : 2, t)`
    has its OpAtomicExchange there, after the branches, and would count as dropped."""
    last: SourceLine | None = None
    for inst in module.instructions:
        if inst.opcode == "OpFunction":
            last = None
        last = inst.source or last
        if last is not None:
            yield inst, last


def _atomic_lines(module: Module) -> dict[str, list[int]]:
    found: dict[str, list[int]] = {}
    for inst, source in _located(module):
        if inst.opcode.startswith("OpAtomic"):
            found.setdefault(source.file, []).append(source.line)
    return found


def _read_blocks(module: Module) -> list[_Block]:
    """Each block of the module's functions: its label, the lines of its code (those its
    instructions have) and of its reads of memory (a load not rooted in a local variable,
    an atomic, or a call of a function that reads memory; lines as `_located` gives them)."""
    definitions = {i.result: i for i in module.instructions if i.result is not None}
    readers = _module_readers(module, definitions)
    blocks: list[_Block] = []
    label, code, reads, carried = 0, set[tuple[str, int]](), set[tuple[str, int]](), set[tuple[str, int]]()
    last: SourceLine | None = None
    for inst in module.instructions:
        if inst.opcode in ("OpFunction", "OpLabel", "OpFunctionEnd"):
            blocks.append(_Block(label, frozenset(code), frozenset(reads), frozenset(carried)))
            label = (inst.result or 0) if inst.opcode == "OpLabel" else 0
            code, reads, carried = set(), set(), set()
        last = None if inst.opcode == "OpFunction" else inst.source or last
        if inst.source is not None:  # a line carried into the next block is not code there
            code.add((inst.source.file, inst.source.line))
        if last is not None and inst.opcode != "OpLabel":
            carried.add((last.file, last.line))
            if _reads(inst, definitions, readers):
                reads.add((last.file, last.line))
    blocks.append(_Block(label, frozenset(code), frozenset(reads), frozenset(carried)))
    return [block for block in blocks if block.carried]


def _loop_bodies(module: Module) -> list[frozenset[int]]:
    """For each OpLoopMerge, the labels of its loop: the blocks its header reaches and that
    reach the header back, neither through the loop's merge block."""
    successors: dict[int, list[int]] = {}
    headers: list[tuple[int, int]] = []
    label = 0
    for inst in module.instructions:
        if inst.opcode == "OpLabel" and inst.result is not None:
            label = inst.result
            successors[label] = []
        elif inst.opcode == "OpLoopMerge" and label:
            headers.append((label, _ref(inst.operands[0])))
        elif inst.opcode in ("OpBranch", "OpBranchConditional", "OpSwitch") and label:
            first = 0 if inst.opcode == "OpBranch" else 1  # a condition or a selector first
            successors[label] += [op.value for op in inst.operands[first:] if isinstance(op, Id)]
    predecessors: dict[int, list[int]] = {}
    for source, targets in successors.items():
        for target in targets:
            predecessors.setdefault(target, []).append(source)
    return [
        frozenset(_reached(header, successors, merge) & _reached(header, predecessors, merge) | {header})
        for header, merge in headers
    ]


def _reached(start: int, edges: Mapping[int, list[int]], wall: int) -> set[int]:
    """The blocks reached from `start` along `edges`, not through `wall`."""
    seen: set[int] = set()
    pending = [start]
    while pending:
        for following in edges.get(pending.pop(), []):
            if following != wall and following not in seen:
                seen.add(following)
                pending.append(following)
    return seen


def _reads(inst: Instruction, definitions: Mapping[int, Instruction], readers: set[int]) -> bool:
    """Whether `inst` reads memory: an atomic, a load not rooted in a local variable, or a
    call of a function in `readers`."""
    if inst.opcode.startswith("OpAtomic"):
        return True
    if inst.opcode == "OpLoad":
        return not _local(inst.operands[0], definitions)
    return inst.opcode == "OpFunctionCall" and bool(inst.operands) and _ref(inst.operands[0]) in readers


def _module_readers(module: Module, definitions: Mapping[int, Instruction]) -> set[int]:
    """The ids of the module's functions whose code reads memory, itself or through its calls."""
    bodies: dict[int, list[Instruction]] = {}
    current: list[Instruction] | None = None
    for inst in module.instructions:
        if inst.opcode == "OpFunction" and inst.result is not None:
            current = bodies.setdefault(inst.result, [])
        elif inst.opcode == "OpFunctionEnd":
            current = None
        elif current is not None:
            current.append(inst)
    readers: set[int] = set()
    changed = True
    while changed:  # each round adds a function or ends
        changed = False
        for function, body in bodies.items():
            if function not in readers and any(_reads(inst, definitions, readers) for inst in body):
                readers.add(function)
                changed = True
    return readers


def _ref(operand: object) -> int:
    return operand.value if isinstance(operand, Id) else 0


def _local(pointer: object, definitions: Mapping[int, Instruction]) -> bool:
    """Whether a pointer is rooted in a Function or Private variable (unknown roots are not)."""
    seen = 0
    while isinstance(pointer, Id) and seen < 64:
        inst = definitions.get(pointer.value)
        if inst is None or not inst.operands:
            return False
        if inst.opcode == "OpVariable":
            return inst.operands[0] in LOCAL_CLASSES
        if inst.opcode not in ("OpAccessChain", "OpInBoundsAccessChain", "OpPtrAccessChain", "OpCopyObject"):
            return False
        pointer, seen = inst.operands[0], seen + 1
    return False


def _memory_names(module: Module) -> set[str]:
    view = module.view
    names: set[str] = set()
    for var in view.variables.values():
        if var.storage_class in LOCAL_CLASSES or var.storage_class == "Input":
            continue
        names.add(view.names.get(var.id, ""))
        names |= {name for (struct, _), name in view.member_names.items() if struct == var.pointee}
    return names - {""}


# --- the source -----------------------------------------------------------------


def _blank(text: str) -> str:
    """`text` without comments and preprocessor lines, every line kept where it was."""

    def spaces(match: re.Match[str]) -> str:
        return re.sub(r"[^\n]", " ", match.group(0))

    return _DIRECTIVE.sub(spaces, _COMMENT.sub(spaces, text))


def _scanned(raw: str, active: str) -> str:
    """The text the guard reads: the preprocessor's output (macros expanded, so an atomic
    or a wait written through a macro is seen at the line that uses it) when its lines are
    the file's; else the file's text without the lines the preprocessor left blank."""
    if len(active.split("\n")) >= len(raw.split("\n")) - 1 and active.strip():
        return _blank(active)
    return _inactive_blank(_blank(raw), active)


def _inactive_blank(text: str, active: str) -> str:
    """`text` with the lines blank in the preprocessor's output blanked too."""
    kept = active.split("\n")
    return "\n".join(
        line if number < len(kept) and kept[number].strip() else " " * len(line)
        for number, line in enumerate(text.split("\n"))
    )


def _line(text: str, offset: int) -> int:
    return text.count("\n", 0, offset) + 1


def _functions(text: str) -> Iterator[tuple[str, int, int, tuple[int, int]]]:
    """(name, first line, last line, body offsets) of each top-level `name(...) {...}`."""
    for header, open_at, close_at in _top_blocks(text):
        head = header.rstrip()
        head = re.sub(r"\s*:\s*\w+\s*$", "", head)  # an HLSL semantic after the parameters
        if head.endswith(")") and "=" not in head and not re.search(r"\b(buffer|uniform|shared|struct)\b", head):
            name = re.search(r"([A-Za-z_]\w*)\s*\([^()]*\)$", head)
            name_at = open_at - len(header) + len(header) - len(header.lstrip())
            yield (name.group(1) if name else ""), _line(text, name_at), _line(text, close_at), (open_at + 1, close_at)


def _top_blocks(text: str) -> Iterator[tuple[str, int, int]]:
    """(the text since the previous top-level `;` or `}`, `{` offset, matching `}` offset)."""
    depth, start, open_at = 0, 0, 0
    for at, char in enumerate(text):
        if char == "{":
            if depth == 0:
                open_at = at
            depth += 1
        elif char == "}" and depth > 0:
            depth -= 1
            if depth == 0:
                yield text[start:open_at], open_at, at
                start = at + 1
        elif char == ";" and depth == 0:
            start = at + 1


def _declared_memory(text: str, kind: str) -> set[str]:
    """Names of memory the source declares at the top level (see the module's contract): in
    GLSL only with a storage qualifier (`shared`, `buffer`, `uniform`): a plain global is
    the invocation's own (Private), as HLSL's `static` one is."""
    names: set[str] = set()
    depth, start, header, body_start, skip = 0, 0, "", 0, False
    for at, char in enumerate(text):
        if char == "{":
            if depth == 0:
                header, body_start = text[start:at], at + 1
            depth += 1
        elif char == "}" and depth > 0:
            depth -= 1
            if depth == 0:
                start = at + 1
                if _BLOCK.search(header) and not _NOT_MEMORY.search(header):
                    names |= set(_DECLARED.findall(text[body_start:at]))
                    tail = _INSTANCE.match(text, at + 1)
                    names |= {tail.group(1)} if tail and tail.group(1) else set()
                    skip = tail is not None
        elif char == ";" and depth == 0:
            declaration = text[start : at + 1]
            qualified = kind != "glsl" or _BLOCK.search(declaration)
            if (
                not skip
                and qualified
                and not _NOT_MEMORY.search(declaration)
                and "(" not in _ATTRIBUTES.sub("", declaration)
            ):
                names |= set(_DECLARED.findall(declaration))
            start, skip = at + 1, False
    return names


def _aliased_memory(text: str) -> set[str]:
    """Names that are memory without being a global of it: HLSL resources passed as
    parameters or held in locals, GLSL variables of a buffer reference type."""
    names = set(_RESOURCE.findall(text))
    for kind in set(_REFERENCE_TYPE.findall(text)):
        names |= set(re.findall(rf"\b{kind}\s+([A-Za-z_]\w*)\s*[,)=;\[]", text))
    return names


def _statements(text: str, body: tuple[int, int]) -> Iterator[_Statement]:
    """The pieces of a body between `;`, `{` and `}` outside parentheses."""
    start, depth = body[0], 0
    for at in range(body[0], body[1] + 1):
        char = text[at] if at < body[1] else ";"
        if char == "(":
            depth += 1
        elif char == ")":
            depth = max(depth - 1, 0)
        elif char in ";{}" and depth == 0:
            piece = text[start:at]
            if piece.strip():
                lead = start + len(piece) - len(piece.lstrip())
                end = start + len(piece.rstrip())
                yield _Statement(_line(text, lead), _line(text, end), lead, text[lead:end])
            start = at + 1


@dataclass(frozen=True)
class _Written:
    """A file as written (`raw`) and as scanned (`text`), and the macros of every file: code a
    macro expands to may sit at the lines of its `#define` (Slang's lines, `macros.py`)."""

    file: str
    raw: str
    text: str
    table: Mapping[str, list[Macro]]

    def macro_spans(self, first: int, last: int) -> list[tuple[str, int, int]]:
        """The definitions of the macros the file's lines `first..last` use, as written."""
        return spans(self.table, "\n".join(self.raw.split("\n")[first - 1 : last]))


def _missing_atomics(
    written: _Written, body: tuple[int, int], atomics: Mapping[str, list[int]], kind: str, compiler: str
) -> list[InputError]:
    pattern = ATOMIC_CALL[kind]
    problems: list[InputError] = []
    file, raw, text = written.file, written.raw, written.text
    for group in _overlapping(_statements(text, body)):
        calls = [(s, m) for s in group for m in pattern.finditer(s.text)]
        if not calls:
            continue
        first, last = min(s.first for s in group), max(s.last for s in group)
        found = sum(1 for line in atomics.get(file, []) if first <= line <= last)
        if found < len(calls):  # the atomics of a macro's expansion at the macro's lines count too
            macro = written.macro_spans(first, last)
            found += sum(1 for f, a, b in macro for line in atomics.get(f, []) if a <= line <= b)
        if found < len(calls):
            statement, match = calls[found]
            problems.append(
                InputError(
                    f"{compiler} compiled {match.group(1)} without an atomic instruction "
                    f"({found} of {len(calls)} kept here): the module is not this program, no verdict",
                    _position(file, raw, text, statement.start + match.start(), match.group(1)),
                )
            )
    return problems


def _deleted_waits(written: _Written, body: tuple[int, int], wait: _Wait, compiler: str) -> list[InputError]:
    problems: list[InputError] = []
    file, raw, text = written.file, written.raw, written.text
    for statement in _statements(text, body):
        for loop in LOOP.finditer(statement.text):
            condition = _condition(statement.text, loop.end() - 1, loop.group(1))
            if condition is None:
                continue
            offset, words = statement.start + condition[0], condition[1]
            named = [f"'{n}'" for n in _named_memory(words, wait.memory)]
            called = _called(words) & wait.readers.keys()
            named += [f"'{wait.readers[f]}' (through {f}())" for f in sorted(called)]
            if not named:
                continue
            first, last = _line(text, offset), _line(text, offset + len(words))
            places = [(file, first, last), *written.macro_spans(first, last)]
            if not any(wait.kept(f, a, b, called) for f, a, b in places):
                problems.append(
                    InputError(
                        f"{compiler} left no read of {named[0]} in this loop's condition (the wait was "
                        "deleted or its load dropped): the module is not this program, no verdict",
                        _position(file, raw, text, statement.start + loop.start(), loop.group(1)),
                    )
                )
    return problems


def _condition(statement: str, open_at: int, keyword: str) -> tuple[int, str] | None:
    """(offset, text) of a loop's condition: a `while`'s parentheses, a `for`'s middle part."""
    depth = 0
    for at in range(open_at, len(statement)):
        depth += {"(": 1, ")": -1}.get(statement[at], 0)
        if depth == 0:
            inside = statement[open_at + 1 : at]
            if keyword == "while":
                return open_at + 1, inside
            parts = inside.split(";")
            if len(parts) != 3:
                return None
            return open_at + 1 + len(parts[0]) + 1, parts[1]
    return None


def _overlapping(statements: Iterator[_Statement]) -> Iterator[list[_Statement]]:
    """Statements grouped where their lines overlap (two on one line share its instructions)."""
    group: list[_Statement] = []
    for statement in statements:
        if group and statement.first > max(s.last for s in group):
            yield group
            group = []
        group.append(statement)
    if group:
        yield group


def _position(file: str, raw: str, text: str, offset: int, token: str = "") -> SourcePosition:
    """`offset` of the scanned text at its line of the file; the column is the token's on the
    file's line when it is written there (a macro's expansion is not), else the first word's."""
    line = _line(text, offset)
    column = offset - (text.rfind("\n", 0, offset) + 1) + 1
    lines = raw.split("\n")
    shown = lines[line - 1] if 0 < line <= len(lines) else ""
    if shown and text.split("\n")[line - 1] != shown:
        at = shown.find(token) if token else -1
        column = at + 1 if at >= 0 else len(shown) - len(shown.lstrip()) + 1
    return SourcePosition(file, line, column, shown)
