"""The import rules of docs/ARCHITECTURE.md, checked statically with `ast`.

Every `import` statement is read, including those inside functions, so a lazy
import cannot slip past. The checker core may import only the standard
library, other core modules and (in `grammar.py` alone) lark, which rules out
click, z3, CUDA, matplotlib, Dask, rich and printing, directly or through
another project module. Each heavy dependency has one owning module, and
only `progress/cli/` prints or uses click and rich.
`tests/test_check_imports.py` checks the same at run time for `progress check`.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]

# Source directory -> the package it is installed as (pyproject's package-dir).
PACKAGES = {"progress": "progress", "models": "progress.models", "synth": "progress.synth"}

CHECK_PATH = (
    "progress/__init__.py",
    "progress/errors.py",
    "progress/source.py",
    "progress/front/axb/parse.py",
    "progress/front/axb/lexicon.py",
    "progress/front/axb/grammar.py",
    "progress/core/program.py",
    "progress/core/semantics.py",
    "progress/core/system.py",
    "progress/core/lts.py",
    "progress/core/graph.py",
    "progress/core/check.py",
    "progress/core/witness.py",
    "progress/core/scoped.py",
    "progress/core/model_spec.py",
    "progress/core/reduce.py",
    "progress/core/unit_symmetry.py",
    "progress/core/analyze.py",
    "progress/core/registry.py",
    "progress/core/canonical.py",
    "progress/report/render.py",
)
"""What `progress check` of an .axb file runs through: the standard library and lark only."""
CORE_FILES = tuple(
    [Path(name) for name in CHECK_PATH] + sorted(path.relative_to(REPO) for path in (REPO / "models").glob("*.py"))
)

LAYERS = {
    "root": {"root"},
    "models": {"root", "models"},
    "core": {"root", "models", "core"},
    "front": {"root", "core", "front"},
    "back": {"root", "models", "core", "back"},
    "report": {"root", "models", "core", "report"},
    "gpu": {"root", "core", "back", "gpu"},
    "synth": {"root", "models", "core", "synth"},
    "web": {"root", "models", "core", "front", "back", "report", "gpu", "synth", "web"},
    "cli": {"root", "models", "core", "front", "back", "report", "gpu", "synth", "web", "cli"},
}
"""Each layer and the layers it may import (docs/ARCHITECTURE.md, "Import rules"):
arrows point down only, so no two layers import each other. `root` is the
package's own folder (errors, source, cache, jit), used by every layer."""


SHARED_IR = {"progress.front.spirv.ir", "progress.front.spirv.grammar"}
"""The SPIR-V IR and its grammar: the contract between the SPIR-V readers in
front/spirv/ and the writers in back/ (the encoder, the deadline pass), as
naga's IR is between its fronts and backs. back/ may import these two
modules of front/ and no other; they import only the root."""


def layer(module: str) -> str:
    """The layer of a dotted project module name: its folder under progress/."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 and parts[1] in LAYERS else "root"


FORBIDDEN_IN_CORE = (
    "click",
    "z3",
    "cupy",
    "pycuda",
    "wgpu",
    "numba",
    "matplotlib",
    "dask",
    "distributed",
    "rich",
    "pprint",
    "logging",
)

OWNERS = {
    "lark": "progress/front/axb/grammar.py",
    "z3": "synth/z3_engine.py",
    "dask": "synth/distributed.py",
    "distributed": "synth/distributed.py",
    "cupy": "progress/gpu/cuda.py",
    "wgpu": "progress/gpu/wgpu_backend.py",
    "matplotlib": "progress/report/plot.py",
    "numba": "progress/jit.py",
    "starlette": "progress/web/app.py",
    "markdown_it": "progress/web/docs.py",
    "uvicorn": "progress/web/app.py",
    "sqlite3": "progress/gpu/database.py",
}
"""Each heavy dependency's one owner; CuPy has one more, for a separate job:
`synth/cuda_judge.py` (the synthesis judge's kernel, issue 9), which shares
nothing with the GPU runner's backend. SQLite (standard library, but a file
format) has two: the results database and the synthesizer's store."""
SECOND_OWNERS = {"cupy": "synth/cuda_judge.py", "sqlite3": "synth/store.py"}


def module_name(path: Path) -> str:
    """The dotted name a source file is installed as."""
    package = PACKAGES[path.parts[0]]
    rest = list(path.with_suffix("").parts[1:])
    if rest[-1] == "__init__":
        rest.pop()
    return ".".join([package, *rest])


def imported(path: Path) -> list[tuple[int, str]]:
    """(line, absolute module name) for every import in `path`; `from X import y`
    yields X and X.y, since y may be a submodule."""
    name = module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = []
    for node in ast.walk(ast.parse((REPO / path).read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
                base = f"{anchor}.{base}" if base else anchor
            found.append((node.lineno, base))
            found += [(node.lineno, f"{base}.{alias.name}") for alias in node.names]
    return found


def source_files() -> list[Path]:
    return sorted(path.relative_to(REPO) for root in PACKAGES for path in (REPO / root).rglob("*.py"))


LAZY_ON_CHECK_PATH = {
    ("progress/core/analyze.py", "progress.core.scale"),
    ("progress/core/analyze.py", "progress.core.scale.check_large"),
    ("progress/core/analyze.py", "progress.core.kernel_decide"),
    ("progress/core/analyze.py", "progress.core.kernel_decide.decide_queries"),
    ("progress/core/analyze.py", "progress.core.kernel_decide.model_of"),
    ("progress/core/analyze.py", "progress.core.kernel_decide.python_lts"),
    ("progress/core/analyze.py", "progress.core.kernel_jit"),
    ("progress/core/analyze.py", "progress.core.kernel_jit.explore_kernel"),
    ("progress/core/analyze.py", "progress.core.kernel_reduce"),
    ("progress/core/analyze.py", "progress.core.kernel_reduce.decide_reduced"),
    ("progress/core/analyze.py", "progress.core.kernel_reduce.decide_quotient"),
    ("progress/core/analyze.py", "progress.core.kernel_reduce.decide_groups"),
    ("progress/core/analyze.py", "progress.core.group_symmetry"),
    ("progress/core/analyze.py", "progress.core.group_symmetry.refair"),
    ("progress/core/analyze.py", "progress.core.group_symmetry.symmetric_model"),
}
"""Imports inside a function that only a large test runs (past
analyze.LARGE states: the compiled checker, issue 22; a kernel past
analyze.KERNEL_LARGE, or reduced from 16 invocations: the compiled kernel checker, issue 29);
tests/test_check_imports.py
checks that checking the published suite still loads no numpy or numba."""


def allowed_in_core(target: str, project: set[str]) -> bool:
    """A project module must be a core one; `X.y` that is no module is a name
    imported from X, and X is checked on its own."""
    return target in {module_name(path) for path in CORE_FILES} or target not in project


def test_the_scan_sees_the_package():
    assert Path("progress/core/check.py") in source_files()
    assert any(target == "progress.core.graph" for _, target in imported(Path("progress/core/check.py")))
    assert any(target == "progress" for _, target in imported(Path("progress/cli/__init__.py")))
    assert module_name(Path("models/obe.py")) == "progress.models.obe"
    assert any(target == "progress.models.base" for _, target in imported(Path("models/obe.py")))


@pytest.mark.parametrize("path", CORE_FILES, ids=str)
def test_core_imports_only_stdlib_core_and_lark(path):
    project = {module_name(source) for source in source_files()}
    bad = []
    for line, target in imported(path):
        top = target.split(".")[0]
        if top in sys.stdlib_module_names and top not in FORBIDDEN_IN_CORE:
            continue
        if top == "lark" and str(path) == OWNERS["lark"]:
            continue
        if top == "progress" and allowed_in_core(target, project):
            continue
        if (str(path), target) in LAZY_ON_CHECK_PATH:
            continue
        bad.append(f"{path}:{line}: {target}")
    assert not bad, bad


def printing(path: Path) -> list[str]:
    """Calls of `print` and uses of `sys.stdout` / `sys.stderr` in `path`."""
    tree = ast.parse((REPO / path).read_text(encoding="utf-8"))
    return [
        f"{path}:{node.lineno}: {ast.unparse(node)}"
        for node in ast.walk(tree)
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "print")
        or (
            isinstance(node, ast.Attribute)
            and node.attr in ("stdout", "stderr")
            and isinstance(node.value, ast.Name)
            and node.value.id == "sys"
        )
    ]


def test_the_scan_sees_printing():
    assert printing(Path("progress/cli/show.py"))


@pytest.mark.parametrize("path", CORE_FILES, ids=str)
def test_core_does_not_print(path):
    assert not printing(path)


def test_only_the_cli_prints_or_uses_click_and_rich():
    outside = [path for path in source_files() if path.parts[:2] != ("progress", "cli")]
    bad = [line for path in outside for line in printing(path)]
    bad += [
        f"{path}:{line}: {target}"
        for path in outside
        for line, target in imported(path)
        if target.split(".")[0] in ("click", "rich")
    ]
    assert not bad, bad


def test_each_heavy_dependency_has_one_owner():
    users: dict[str, set[str]] = {dependency: set() for dependency in OWNERS}
    for path in source_files():
        for _, target in imported(path):
            if target.split(".")[0] in users:
                users[target.split(".")[0]].add(str(path))
    strays = {
        dependency: found - {OWNERS[dependency], SECOND_OWNERS.get(dependency)} for dependency, found in users.items()
    }
    assert not any(strays.values()), strays
    # The owners are seen importing them (`distributed` comes in as dask.distributed).
    assert all(users[dependency] for dependency in OWNERS if dependency != "distributed"), users
    assert all(owner in users[dependency] for dependency, owner in SECOND_OWNERS.items()), users


def test_nothing_outside_the_cli_imports_the_cli():
    """`python -m progress` (`progress/__main__.py`) is the one other entry point."""
    entry = (Path("progress/__main__.py"),)
    bad = [
        f"{path}:{line}: {target}"
        for path in source_files()
        if path.parts[:2] != ("progress", "cli") and path not in entry
        for line, target in imported(path)
        if target.startswith("progress.cli")
    ]
    assert not bad, bad


def project_imports() -> dict[str, set[str]]:
    """Module -> the project modules it imports, lazy imports included."""
    project = {module_name(path) for path in source_files()}
    return {
        module_name(path): {target for _, target in imported(path) if target in project} - {module_name(path)}
        for path in source_files()
    }


def test_layers_import_only_the_layers_below():
    bad = sorted(
        f"{source} ({layer(source)}) imports {target} ({layer(target)})"
        for source, targets in project_imports().items()
        for target in targets
        if source != "progress.__main__"
        and layer(target) not in LAYERS[layer(source)]
        and not (layer(source) == "back" and target in SHARED_IR)
    )
    assert not bad, bad


def test_the_shared_ir_imports_only_the_root():
    imports = project_imports()
    assert all(layer(target) == "root" for module in SHARED_IR for target in imports[module])


def test_the_layer_rules_point_one_way():
    """The rules themselves: no two layers may import each other, however indirectly."""
    import networkx as nx

    graph = nx.DiGraph([(a, b) for a, allowed in LAYERS.items() for b in allowed if a != b])
    assert nx.is_directed_acyclic_graph(graph)


def test_every_layer_folder_is_known():
    folders = {path.name for path in (REPO / "progress").iterdir() if path.is_dir() and path.name != "__pycache__"}
    assert folders == set(LAYERS) - {"root", "models", "synth"}


def test_no_import_circle():
    """No module imports itself through others (lazy imports count: a circle is a circle)."""
    import networkx as nx

    graph = nx.DiGraph([(a, b) for a, targets in project_imports().items() for b in targets])
    circles = [sorted(c) for c in nx.strongly_connected_components(graph) if len(c) > 1]
    assert not circles, circles


def test_the_circle_test_sees_a_circle(tmp_path):
    """A planted circle between two modules is found by the same scan."""
    import networkx as nx

    graph = nx.DiGraph([("a", "b"), ("b", "a"), ("b", "c")])
    assert [sorted(c) for c in nx.strongly_connected_components(graph) if len(c) > 1] == [["a", "b"]]
