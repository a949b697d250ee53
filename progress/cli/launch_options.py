"""The kernel launch options that set what a kernel reads as constants:
`--spec`, `--push`, `--local-size` (docs/kernels.md, "Launch settings"),
as one decorator for the commands that launch kernels (`check`, `show`);
and how a GLSL/HLSL kernel is compiled, `-D`, `--redefine` and `-I` (`compile_options`).
Light: the SPIR-V front end is imported only when a kernel is read."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import click

OPTIONS = (
    click.option(
        "--spec",
        "specs",
        multiple=True,
        metavar="ID=V|NAME=V",
        help="Kernels: a specialization constant's value, by SpecId (constant_id) or name (repeatable).",
    ),
    click.option(
        "--push",
        "pushes",
        multiple=True,
        metavar="NAME=V|NAME[i]=V|NAME=@BUF[+BYTES]",
        help="Kernels: a push constant's value, or a buffer's address (repeatable; 0 otherwise).",
    ),
    click.option(
        "--local-size",
        metavar="X[,Y,Z]",
        help="Kernels: the workgroup size, where it is a specialization constant or read as gl_WorkGroupSize.",
    ),
    click.option(
        "--subgroup-size",
        metavar="N",
        help="Kernels: invocations per subgroup (default: the whole workgroup; docs/semantics.md section 10).",
    ),
)


COMPILE_OPTIONS = (
    click.option(
        "-D",
        "--define",
        "defines",
        multiple=True,
        metavar="NAME[=VALUE]",
        help="GLSL/HLSL kernels: a preprocessor macro, as for the compiler (repeatable).",
    ),
    click.option(
        "--redefine",
        "redefines",
        multiple=True,
        metavar="NAME=VALUE",
        help="GLSL/HLSL kernels: give the kernel's own '#define NAME' this value (its sizes, say; repeatable).",
    ),
    click.option(
        "-I",
        "--include-dir",
        "include_dirs",
        multiple=True,
        metavar="DIR",
        help="GLSL/HLSL kernels: where #include looks after the including file's folder (repeatable).",
    ),
)


def compile_options(command: Callable[..., Any]) -> Callable[..., Any]:
    """`command` with -D, --redefine and -I (passed as `defines`, `redefines`, `include_dirs`)."""
    for option in reversed(COMPILE_OPTIONS):
        command = option(command)
    return command


def constant_options(command: Callable[..., Any]) -> Callable[..., Any]:
    """`command` with the --spec, --push, --local-size and --subgroup-size options
    (passed as `specs`, `pushes`, `local_size`, `subgroup_size`)."""
    for option in reversed(OPTIONS):
        command = option(command)
    return command
