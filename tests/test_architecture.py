"""The architecture rules that code review checks, made executable."""

from __future__ import annotations

import ast
import inspect
from pathlib import Path

from ecs_combat.plugin import hookspecs
from ecs_combat.plugin.registry import Registry

CORE = Path(__file__).resolve().parent.parent / "ecs_combat"


#: String constants that equal a keyword's name by coincidence, with why they are not one:
#: the bench's "melee" workload is a melee of many creatures (`bench.melee_spec`), not the
#: melee keyword.
COINCIDENCES = {("bench.py", "melee")}


def _string_constants(tree: ast.AST) -> list[str]:
    """String constants in code, docstrings and the text of f-strings (messages) left out."""
    docstrings = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                docstrings.add(id(body[0].value))
        if isinstance(node, ast.JoinedStr):
            docstrings.update(id(v) for v in node.values if isinstance(v, ast.Constant))
    return [
        node.value
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant)
        and isinstance(node.value, str)
        and id(node) not in docstrings
    ]


def test_the_core_never_names_a_keyword(registry: Registry) -> None:
    """A keyword's behaviour lives in its plugin: no module of the core (every file under
    ecs_combat/, subpackages included) compares against a keyword name."""
    names = set(registry.keywords)
    offenders = []
    files = sorted(CORE.rglob("*.py"))
    for path in files:
        for text in _string_constants(ast.parse(path.read_text())):
            word = text.strip().lower()
            if word in names and (path.name, word) not in COINCIDENCES:
                offenders.append(f"{path.relative_to(CORE)}: {text!r}")
    assert len(files) > 80
    assert offenders == []


def test_every_hook_is_documented_and_typed() -> None:
    """hookspecs.py: each hook has a docstring saying when it is called and a return type."""
    hooks = [
        f for name, f in vars(hookspecs).items()
        if inspect.isfunction(f) and hasattr(f, "ecs_combat_spec")
    ]  # fmt: skip
    assert len(hooks) >= 5
    for hook in hooks:
        doc = inspect.getdoc(hook) or ""
        assert "called" in doc.lower(), hook.__name__
        assert inspect.signature(hook).return_annotation is not inspect.Signature.empty


def _subpackage_imports() -> dict[str, set[str]]:
    """For each subpackage (or top-level module) of ecs_combat: the others it imports, lazy
    imports inside functions included."""
    edges: dict[str, set[str]] = {}
    for path in CORE.rglob("*.py"):
        parts = path.relative_to(CORE).parts
        here = parts[0].removesuffix(".py")
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                names = [node.module]
            elif isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            else:
                continue
            for name in names:
                dotted = name.split(".")
                if dotted[0] == "ecs_combat" and len(dotted) > 1 and dotted[1] != here:
                    edges.setdefault(here, set()).add(dotted[1])
    return edges


def test_simulation_bench_and_cli_form_no_circle() -> None:
    """The command line uses bench and simulation; bench uses simulation; simulation uses
    neither (its tables are drawn with ecs_combat.console, shared with the CLI)."""
    edges = _subpackage_imports()
    assert "cli" not in edges["simulation"] and "bench" not in edges["simulation"]
    assert "cli" not in edges["bench"]
    assert {"simulation", "bench"} <= edges["cli"]


def test_the_chunk_runner_never_asks_which_generator_it_has() -> None:
    """One generator protocol (simulation/generate.py): no isinstance check of a generator."""
    offenders = []
    for path in sorted((CORE / "simulation").glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Name)
                and node.func.id == "isinstance"
                and "Generator" in ast.unparse(node.args[1])
            ):
                offenders.append(f"{path.name}: {ast.unparse(node)}")
    assert offenders == []


def test_every_core_package_is_installed() -> None:
    """pyproject.toml lists each package of ecs_combat/ (a non-editable install holds only
    those: a missing one works in the checkout and fails for users)."""
    import tomllib
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent
    listed = set(
        tomllib.loads((root / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"]
    )
    found = {
        ".".join(p.parent.relative_to(root).parts)
        for p in (root / "ecs_combat").rglob("__init__.py")
    }
    assert found <= listed, sorted(found - listed)
