"""An independent reading of SPIR-V binaries: `spirv-dis --raw-id`, parsed.

The decoder's tests compare its instructions with this one: opcode names and
operands as spirv-dis (SPIRV-Tools) prints them, with the few differences in
notation normalised (signed and float literals, OpSpecConstantOp's operation
written without "Op").
"""

from __future__ import annotations

import math
import re
import struct
import subprocess
from pathlib import Path

from progress.front.spirv import tools
from progress.front.spirv.ir import Id, Module

TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|\n|[^\s"]+|[ \t\r]+')


def disassemble(binary: bytes, work: Path) -> list[tuple] | None:
    """spirv-dis's instructions as (result, opcode, operands) tuples, or None when it refuses the binary."""
    source = work / "module.spv"
    source.write_bytes(binary)
    argv, env = tools.command("spirv-dis")  # the project's SPIRV-Tools, whose grammar the decoder reads
    done = subprocess.run(
        [*argv, "--raw-id", "--no-header", "--no-indent", "--no-color", str(source)],
        capture_output=True,
        timeout=60,
        env=env,
    )
    if done.returncode != 0:
        return None
    return parse(done.stdout.decode("utf-8", errors="replace"))


def parse(text: str) -> list[tuple]:
    instructions, line = [], []
    for token in TOKEN.findall(text):
        if token == "\n":
            if line:
                instructions.append(_instruction(line))
            line = []
        elif not token.isspace():
            line.append(token)
    if line:
        instructions.append(_instruction(line))
    return instructions


def _instruction(tokens: list[str]) -> tuple:
    result = None
    if len(tokens) > 1 and tokens[1] == "=":
        result, tokens = int(tokens[0][1:]), tokens[2:]
    return (result, tokens[0], tuple(_operand(t) for t in tokens[1:]))


def _operand(token: str):
    if token.startswith('"'):
        return re.sub(r"\\(.)", r"\1", token[1:-1], flags=re.S)
    if token.startswith("%"):
        return Id(int(token[1:]))
    if re.fullmatch(r"-?\d+", token):
        return int(token)
    if re.fullmatch(r"-?(0x[0-9a-fA-F.]+p[-+]?\d+|[\d.]+(e[-+]?\d+)?)", token):
        return float.fromhex(token) if "0x" in token else float(token)
    return token


def ours(module: Module) -> list[tuple]:
    """The decoder's instructions in the same form, literals as spirv-dis writes them."""
    types = {
        i.result: (i.opcode, i.operands)
        for i in module.instructions
        if i.opcode in ("OpTypeInt", "OpTypeFloat") and i.result is not None
    }
    value_types = {i.result: i.result_type for i in module.instructions if i.result is not None}
    found = []
    for inst in module.instructions:
        operands = list(inst.operands)
        if inst.opcode in ("OpConstant", "OpSpecConstant"):
            operands[0] = _as_printed(operands[0], types.get(inst.result_type))
        elif inst.opcode == "OpSwitch":
            kind = types.get(value_types.get(operands[0].value))
            operands[2::2] = [_as_printed(v, kind) for v in operands[2::2]]
        elif inst.opcode == "OpSpecConstantOp":
            operands[0] = operands[0][2:]
        head = (Id(inst.result_type),) if inst.result_type is not None else ()
        found.append((inst.result, inst.opcode, head + tuple(operands)))
    return found


def _as_printed(value, kind):
    if kind is None:
        return value
    opcode, (width, *rest) = kind
    if opcode == "OpTypeFloat":
        code = {16: "e", 32: "f", 64: "d"}[width]
        return struct.unpack("<" + code, value.to_bytes(width // 8, "little"))[0]
    if rest and rest[0] == 1 and value >= 1 << (width - 1):
        return value - (1 << width)
    return value


def same(left: list[tuple], right: list[tuple]) -> bool:
    """Equal instruction lists, floats compared at the precision spirv-dis prints (9 digits)."""
    return len(left) == len(right) and all(_same(a, b) for a, b in zip(left, right))


def _same(a, b) -> bool:
    if isinstance(a, tuple) and isinstance(b, tuple):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    if isinstance(a, float) or isinstance(b, float):
        return isinstance(a, int | float) and isinstance(b, int | float) and math.isclose(a, b, rel_tol=1e-8)
    return type(a) is type(b) and a == b
