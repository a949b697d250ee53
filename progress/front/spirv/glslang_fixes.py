"""Fix-ups of glslang's output where glslang 13.1.1 writes SPIR-V that spirv-val refuses.

Both are known glslang bugs, and neither fix changes what an instruction does:

- Vulkan-memory-model modules (`GL_KHR_memory_scope_semantics`) use Device scope
  without `OpCapability VulkanMemoryModelDeviceScope`, which SPIR-V requires for
  it (KhronosGroup/glslang issue 3441). The capability only permits Device scope:
  it is added after the last OpCapability where `VulkanMemoryModel` is declared.
- A store or load of a whole struct through a buffer reference gets the memory
  operand `Aligned 0` (glslang issue 3893, fixed after 13.1.1); 0 is no alignment.
  It is replaced by the size of the largest scalar of the type accessed (4, or 8
  with a 64-bit member), the least alignment Vulkan allows; the checker ignores
  alignment operands (it checks every buffer-reference access for 4-byte alignment
  itself).

`fixed(binary)` applies both to glslang's GLSL output (a SPIR-V file given as input
is checked as it is). Pure; a binary it cannot read comes back unchanged.
"""

from __future__ import annotations

from array import array

OP_CAPABILITY, OP_LOAD, OP_STORE = 17, 61, 62
VULKAN_MEMORY_MODEL, DEVICE_SCOPE = 5345, 5346
PHYSICAL_STORAGE_BUFFER = 5349
ALIGNED = 0x2
HEADER_WORDS = 5
_SCALARS = {20: None, 21: 1, 22: 1}  # OpTypeBool, OpTypeInt, OpTypeFloat (width operand)
_COMPOSITES = {23: 1, 24: 1, 28: 1, 29: 1}  # vector, matrix, array, runtime array: element operand


def fixed(binary: bytes) -> bytes:
    """`binary` with both fix-ups applied where they are needed (see the module's contract)."""
    if len(binary) % 4 or len(binary) < 4 * HEADER_WORDS:
        return binary
    words = array("I")
    words.frombytes(binary)
    if words[0] != 0x07230203 or not _framed(words):
        return binary
    _align(words)
    return _with_device_scope(words).tobytes()


def _framed(words: array[int]) -> bool:
    at = HEADER_WORDS
    while at < len(words):
        count = words[at] >> 16
        if count == 0 or at + count > len(words):
            return False
        at += count
    return True


def _instructions(words: array[int]) -> list[tuple[int, int, int]]:
    """(opcode, first word, word count) of every instruction."""
    found = []
    at = HEADER_WORDS
    while at < len(words):
        count = words[at] >> 16
        found.append((words[at] & 0xFFFF, at, count))
        at += count
    return found


def _with_device_scope(words: array[int]) -> array[int]:
    capabilities = set()
    after = HEADER_WORDS
    for opcode, at, count in _instructions(words):
        if opcode != OP_CAPABILITY:
            break
        capabilities.add(words[at + 1])
        after = at + count
    if VULKAN_MEMORY_MODEL not in capabilities or DEVICE_SCOPE in capabilities:
        return words
    return words[:after] + array("I", [2 << 16 | OP_CAPABILITY, DEVICE_SCOPE]) + words[after:]


def _align(words: array[int]) -> None:
    """Every `Aligned 0` of an OpLoad/OpStore replaced, in place."""
    types: dict[int, tuple[int, ...]] = {}  # type id -> its opcode and operands
    result_types: dict[int, int] = {}
    for opcode, at, count in _instructions(words):
        operands = tuple(words[at + 1 : at + count])
        if 19 <= opcode <= 39 and operands:  # OpType*: the result id comes first
            types[operands[0]] = (opcode, *operands[1:])
        elif opcode in (OP_LOAD, OP_STORE):
            pointer_at = at + (3 if opcode == OP_LOAD else 1)
            mask_at = pointer_at + 2 if opcode == OP_STORE else pointer_at + 1
            if mask_at + 1 < at + count and words[mask_at] & ALIGNED and words[mask_at + 1] == 0:
                pointer_type = types.get(result_types.get(words[pointer_at], -1), ())
                pointee = pointer_type[2] if len(pointer_type) > 2 else -1
                words[mask_at + 1] = _largest_scalar(types, pointee, set()) or 4
        if opcode not in (OP_STORE,) and count >= 3 and not 19 <= opcode <= 39:
            result_types[words[at + 2]] = words[at + 1]  # (result type, result) for most instructions


def _largest_scalar(types: dict[int, tuple[int, ...]], tid: int, seen: set[int]) -> int:
    """Bytes of the largest scalar in a type (a buffer reference in it: 8)."""
    kind = types.get(tid)
    if kind is None or tid in seen:
        return 0
    seen.add(tid)
    opcode, operands = kind[0], kind[1:]
    if opcode == 20:
        return 4
    if opcode in (21, 22):
        return max(1, operands[0] // 8)
    if opcode == 32:  # a pointer member: 8 bytes if it is a buffer reference
        return 8 if operands[0] == PHYSICAL_STORAGE_BUFFER else 0
    if opcode in _COMPOSITES:
        return _largest_scalar(types, operands[0], seen)
    if opcode == 30:
        return max((_largest_scalar(types, member, seen) for member in operands), default=0)
    return 0
