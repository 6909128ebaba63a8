"""The architecture rules that code review checks, made executable."""

from __future__ import annotations

import ast
import inspect
import re
from dataclasses import dataclass
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


# -- every module: private names, import circles ---------------------------------------------

ENGINES = ("ecs_combat.batched", "ecs_combat.reference")

#: The engines' imports of other modules' private names (importer, module imported from, name):
#: none since the engine restructure. Exact, so no new one comes in.
ENGINE_PRIVATE_IMPORTS: set[tuple[str, str, str]] = set()

#: The engines' import circles (runtime imports, lazy ones included): none, as above.
ENGINE_CIRCLES: set[frozenset[str]] = set()


@dataclass(frozen=True)
class Import:
    """One import statement's name, resolved: the module it names (or imports from) and the
    name taken from it (None for ``import x``)."""

    module: str
    name: str | None
    type_checking: bool


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(CORE.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _type_checking_nodes(tree: ast.AST) -> set[int]:
    """The imports under ``if TYPE_CHECKING:`` (for the type checker only, never run)."""
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and ast.unparse(node.test).endswith("TYPE_CHECKING"):
            found.update(id(n) for stmt in node.body for n in ast.walk(stmt))
    return found


def _core_imports() -> dict[str, list[Import]]:
    """Every module of ecs_combat/ (each file parsed once) -> its imports of ecs_combat
    modules, at module level and inside functions, relative imports resolved."""
    files = sorted(CORE.rglob("*.py"))
    modules = {_module_name(p) for p in files}
    out: dict[str, list[Import]] = {}
    for path in files:
        here = _module_name(path)
        package = here if path.name == "__init__.py" else here.rpartition(".")[0]
        tree = ast.parse(path.read_text())
        checking = _type_checking_nodes(tree)
        found: list[Import] = []
        for node in ast.walk(tree):
            tc = id(node) in checking
            if isinstance(node, ast.Import):
                found += [Import(a.name, None, tc) for a in node.names if a.name in modules]
            elif isinstance(node, ast.ImportFrom):
                source = node.module or ""
                if node.level:
                    base = package.split(".")[: len(package.split(".")) - node.level + 1]
                    source = ".".join([*base, *([source] if source else [])])
                if not source.startswith("ecs_combat"):
                    continue
                for alias in node.names:
                    sub = f"{source}.{alias.name}"
                    found.append(
                        Import(sub, None, tc) if sub in modules else Import(source, alias.name, tc)
                    )
        out[here] = found
    assert len(out) == len(files) == len(list(CORE.rglob("*.py")))
    return out


def _circles(edges: dict[str, set[str]]) -> set[frozenset[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: set[frozenset[str]] = set()

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in sorted(edges.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = set()
            while True:
                w = stack.pop()
                component.add(w)
                if w == v:
                    break
            if len(component) > 1:
                found.add(frozenset(component))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return found


def test_no_module_imports_another_modules_private_names() -> None:
    """State apart from behaviour, modules apart from each other: no module of ecs_combat/
    imports a private name (``from x import _y``) of another, but for the engines' listed ones
    (issue 18), which must be exactly those still there."""
    found = {
        (here, imp.module, imp.name)
        for here, imports in _core_imports().items()
        for imp in imports
        if imp.name is not None and imp.name.startswith("_") and not imp.name.startswith("__")
    }
    outside = sorted(f for f in found if not f[0].startswith(ENGINES))
    assert outside == []
    assert sorted(found - ENGINE_PRIVATE_IMPORTS) == [], "new private imports in an engine"
    assert sorted(ENGINE_PRIVATE_IMPORTS - found) == [], "fixed: take them off the list"


def test_no_import_circle_between_modules() -> None:
    """No import circle between the modules of ecs_combat/ (imports at module level and inside
    functions; those under ``if TYPE_CHECKING:`` are never run and left out), but for the
    engines' listed ones (issue 18), which must be exactly those still there."""
    edges: dict[str, set[str]] = {}
    for here, imports in _core_imports().items():
        edges[here] = {i.module for i in imports if not i.type_checking and i.module != here}
    circles = _circles(edges)
    outside = [sorted(c) for c in circles if not any(m.startswith(ENGINES) for m in c)]
    assert outside == []
    assert [sorted(c) for c in circles - ENGINE_CIRCLES] == [], "new circles with an engine"
    assert [sorted(c) for c in ENGINE_CIRCLES - circles] == [], "fixed: take them off the list"


#: The packages of the engines: the numpy engine, the reference engine and the compiled
#: kernel.
ENGINE_PACKAGES = (*ENGINES, "ecs_combat.kernel")


def test_no_engine_module_is_in_an_import_circle_even_through_type_only_imports() -> None:
    """No module of an engine (batched/, reference/, kernel/) is in an import circle, the
    imports under ``if TYPE_CHECKING:`` included (issue 32, item 6): a type that names
    what calls it is a dependency too (the procedures take a protocol, :class:`Playing`;
    the kernel takes the numpy engine's structures from their own modules)."""
    edges: dict[str, set[str]] = {}
    for here, imports in _core_imports().items():
        edges[here] = {i.module for i in imports if i.module != here}
    circles = [
        sorted(m for m in c if m.startswith(ENGINE_PACKAGES))
        for c in _circles(edges)
        if any(m.startswith(ENGINE_PACKAGES) for m in c)
    ]
    assert circles == []


def test_the_circle_finder_finds_circles() -> None:
    """The checks above can fail: a two-module circle and a lazy import's circle are found;
    a chain is not one."""
    assert _circles({"a": {"b"}, "b": {"a"}, "c": {"a"}}) == {frozenset({"a", "b"})}
    assert _circles({"a": {"b"}, "b": {"c"}}) == set()
    assert _circles({"a": {"b"}, "b": {"c"}, "c": {"a", "d"}}) == {frozenset({"a", "b", "c"})}


# -- plugins and the example packages: the public names only ---------------------------------

ROOT = CORE.parent
#: What a plugin, an example package or their tests may import of ecs-combat: the package's
#: public names and the test kit. Anything else (an engine, the rules core, the plugin
#: package's modules) is an internal a third-party author can't rely on.
PUBLIC_MODULES = {"ecs_combat", "ecs_combat.testing"}


def _plugin_side_files() -> list[Path]:
    """The bundled plugins and every example package's modules and tests (build copies left
    out), and the Python blocks of docs/plugins.md."""
    found = [*ROOT.glob("plugins/**/*.py"), *ROOT.glob("examples/*/**/*.py")]
    return sorted(p for p in found if not {"build", ".venv"} & set(p.parts))


def _internal_imports(tree: ast.AST) -> list[str]:
    """The ecs_combat modules a module imports that are not public (imports inside functions
    and under ``TYPE_CHECKING`` included; ``importlib.import_module("ecs_combat.x")`` too)."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [node.module]
        elif (
            isinstance(node, ast.Call)
            and ast.unparse(node.func).endswith("import_module")
            and node.args
            and isinstance(node.args[0], ast.Constant)
        ):
            names = [str(node.args[0].value)]
        else:
            continue
        found += [n for n in names if n.split(".")[0] == "ecs_combat" and n not in PUBLIC_MODULES]
    return found


def _python_blocks(markdown: str) -> list[str]:
    return [b for b in markdown.split("```python\n")[1:] for b in [b.split("```")[0]]]


def test_plugins_and_examples_import_only_public_names() -> None:
    """The bundled plugins, the example packages (tests included) and the plugin guide's code
    import ``ecs_combat`` and ``ecs_combat.testing`` only: never an engine
    (``ecs_combat.batched``, ``ecs_combat.reference``) or another internal module."""
    files = _plugin_side_files()
    offenders = [
        f"{path.relative_to(ROOT)}: {name}"
        for path in files
        for name in _internal_imports(ast.parse(path.read_text()))
    ]
    guide = (ROOT / "docs" / "plugins.md").read_text()
    offenders += [
        f"docs/plugins.md: {name}"
        for block in _python_blocks(guide)
        for name in _internal_imports(ast.parse(block))
    ]
    assert any(p.parts[-2] == "tests" and "examples" in p.parts for p in files)
    assert len(files) > 50
    assert offenders == []


def test_the_public_import_check_finds_internals() -> None:
    """The check above can fail: an engine module, the plugin package's module, a lazy import
    and import_module are found; the public names and the test kit are not."""
    text = (
        "import ecs_combat\nfrom ecs_combat import System\nfrom ecs_combat.testing import scenarios\n"
        "from ecs_combat.batched.engine import BatchedEngine\nimport ecs_combat.reference.engine\n"
        "def f():\n    from ecs_combat.plugin.views import BatchView\n"
        "importlib.import_module('ecs_combat.rules.legality')\n"
    )
    assert _internal_imports(ast.parse(text)) == [
        "ecs_combat.batched.engine",
        "ecs_combat.reference.engine",
        "ecs_combat.plugin.views",
        "ecs_combat.rules.legality",
    ]


# -- layers (issue 35) ------------------------------------------------------------------------


def _third_party_imports(path: Path) -> set[str]:
    """The top-level names of the modules a file imports (lazy imports included)."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found.update(a.name.split(".")[0] for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module.split(".")[0])
    return found


def test_click_and_rich_only_in_the_command_line_and_the_console() -> None:
    """The library never speaks of the command line: click and rich are imported only by
    cli/ and console/ (the output for people the CLI shares: tables, the readable accounts),
    lazily or not; click only by cli/."""
    offenders = sorted(
        str(path.relative_to(CORE))
        for path in CORE.rglob("*.py")
        if _third_party_imports(path) & {"click", "rich"}
        and path.relative_to(CORE).parts[0] not in ("cli", "console")
    )
    offenders += sorted(
        str(path.relative_to(CORE))
        for path in CORE.rglob("*.py")
        if "click" in _third_party_imports(path) and path.relative_to(CORE).parts[0] != "cli"
    )
    assert offenders == []
    in_cli = set().union(*(_third_party_imports(p) for p in (CORE / "cli").glob("*.py")))
    assert {"click", "rich"} <= in_cli  # the scan sees them where they are


def test_the_library_never_imports_the_command_line() -> None:
    """Imports point one way: no module outside cli/ imports ``ecs_combat.cli`` (lazily or
    not, under ``TYPE_CHECKING`` too); what the library and the CLI share lives in the library
    (the readable accounts in console/)."""
    importers = {
        here
        for here, imports in _core_imports().items()
        if here.startswith("ecs_combat.cli")
        for imp in imports
        if imp.module.startswith("ecs_combat.cli")
    }
    assert importers, "cli/ imports its own modules: the scan sees them"
    offenders = sorted(
        f"{here}: {imp.module}"
        for here, imports in _core_imports().items()
        if here != "ecs_combat.cli" and not here.startswith("ecs_combat.cli.")
        for imp in imports
        if imp.module == "ecs_combat.cli" or imp.module.startswith("ecs_combat.cli.")
    )
    assert offenders == []


#: Modules outside cli/ whose strings may name flags: the bench runs ``ecs-combat simulate``
#: as a whole process, and the floor is a program with a command line of its own.
FLAG_SPEAKERS = {"bench/bench.py", "bench/floor.py"}


def _flags_named(tree: ast.AST) -> list[str]:
    """The strings of code (f-strings' text included, docstrings left out) naming a flag."""
    docstrings = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                docstrings.add(id(body[0].value))
    return [
        node.value
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant)
        and isinstance(node.value, str)
        and id(node) not in docstrings
        and re.search(r"(^|[\s(`'\"])--[a-z]", node.value)
    ]


def test_the_library_names_no_flag() -> None:
    """The library raises in its own words (a checkpoints directory, a chart file): no string
    of a module outside cli/ names a command-line flag, but for the listed ones; the CLI says
    the library's words as flags (cli/flag_words.py)."""
    offenders = sorted(
        f"{where}: {text!r}"
        for path in CORE.rglob("*.py")
        if path.relative_to(CORE).parts[0] != "cli"
        and (where := str(path.relative_to(CORE))) not in FLAG_SPEAKERS
        for text in _flags_named(ast.parse(path.read_text()))
    )
    assert offenders == []
    assert _flags_named(ast.parse('def f():\n    """--doc"""\n    raise E(f"run with --out {d}")'))


#: What other packages ask of decisions/: its package, the per-board searches (decide), races,
#: the legal declarations, the bulk deciders. Its search (tree, nodes, objective, ...) is its own.
DECISION_ENTRIES = {
    "ecs_combat.decisions",
    "ecs_combat.decisions.decide",
    "ecs_combat.decisions.race",
    "ecs_combat.decisions.declarations",
    "ecs_combat.decisions.decided",
    "ecs_combat.decisions.turn_decided",
}


def test_decision_code_lives_in_decisions() -> None:
    """All the decision search is in decisions/ (blocks, attacks, bulk, turns, races): no other
    package imports its search machinery, only its entry modules; and none of them defines a
    search of its own (no module outside decisions/ builds a ``Tree``)."""
    outside = {
        (here, imp.module)
        for here, imports in _core_imports().items()
        if not here.startswith("ecs_combat.decisions")
        for imp in imports
        if imp.module.startswith("ecs_combat.decisions")
    }
    assert outside, "decisions/ is asked by simulation/, the API and the CLI"
    assert sorted(o for o in outside if o[1] not in DECISION_ENTRIES) == []
    searching = sorted(
        str(path.relative_to(CORE))
        for path in CORE.rglob("*.py")
        if path.relative_to(CORE).parts[0] != "decisions"
        and any(
            isinstance(n, ast.Name) and n.id in ("Tree", "BlockSearch", "AttackSearch")
            for n in ast.walk(ast.parse(path.read_text()))
        )
    )
    assert searching == []


#: The numpy engine's typed structures, which the compiled kernel shares (issue 32, item 6):
#: it imports them from their modules, not through the engine's face (which names the engine,
#: which calls the kernel).
SHARED_STRUCTURES = {"ecs_combat.batched.arrays", "ecs_combat.batched.state"}


def test_batched_is_asked_through_its_public_module() -> None:
    """Other packages import the batched engine's names from ``ecs_combat.batched`` only (its
    public face), never from one of its modules, but for the kernel's shared structures; each
    public name is there."""
    import ecs_combat.batched as batched

    offenders = sorted(
        f"{here}: {imp.module}"
        for here, imports in _core_imports().items()
        if not here.startswith("ecs_combat.batched")
        for imp in imports
        if imp.module.startswith("ecs_combat.batched.")
        and not (here.startswith("ecs_combat.kernel") and imp.module in SHARED_STRUCTURES)
    )
    assert offenders == []
    assert sorted(batched.__all__) == sorted(batched._PUBLIC)
    for name in batched.__all__:
        assert getattr(batched, name) is not None, name


# -- sizes ------------------------------------------------------------------------------------

#: A function over this many lines, a class over CLASS_LINES or a module over MODULE_LINES is
#: two things.
FUNCTION_LINES, CLASS_LINES, MODULE_LINES = 80, 300, 500

#: Those still over the sizes (what, where, name), to be split: exact, so no new one comes in
#: and each split takes its line off.
OVERSIZED: set[tuple[str, str, str]] = set()


def _oversized() -> set[tuple[str, str, str]]:
    found = set()
    for path in sorted(CORE.rglob("*.py")):
        where = str(path.relative_to(CORE))
        text = path.read_text()
        if len(text.splitlines()) > MODULE_LINES:
            found.add(("module", where, ""))
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                lines = (node.end_lineno or node.lineno) - node.lineno + 1
                kind = "class" if isinstance(node, ast.ClassDef) else "function"
                if lines > (CLASS_LINES if kind == "class" else FUNCTION_LINES):
                    found.add((kind, where, node.name))
    return found


def test_functions_classes_and_modules_keep_their_sizes() -> None:
    """No function over 80 lines, class over 300 or module over 500 but those listed (each
    one is two things, to be split), which must be exactly those still there."""
    found = _oversized()
    assert sorted(found - OVERSIZED) == [], "split it: it is two things"
    assert sorted(OVERSIZED - found) == [], "split already: take it off OVERSIZED"


#: The reference engine imported by the scenario reader, the rules core or the decisions: none
#: (issue 35). The rules core judges legality (rules/characteristics.py) and asks an engine
#: through rules/declaring.py; the decisions' fallback goes through batched's public face.
REFERENCE_IMPORTS: set[tuple[str, str]] = set()


def test_scenarios_rules_and_decisions_do_not_run_the_reference_engine() -> None:
    """No module of scenario/, rules/ or decisions/ imports the reference engine (lazily or
    not), but for the listed ones still there."""
    found = {
        (here, imp.module)
        for here, imports in _core_imports().items()
        if here.startswith(("ecs_combat.scenario", "ecs_combat.rules", "ecs_combat.decisions"))
        for imp in imports
        if imp.module.startswith("ecs_combat.reference")
    }
    assert sorted(found - REFERENCE_IMPORTS) == [], "a new reference-engine import"
    assert sorted(REFERENCE_IMPORTS - found) == [], "removed: take it off REFERENCE_IMPORTS"


#: The layers below the engines: what they import of ecs_combat is named module by module.
BELOW_THE_ENGINES = ("ecs_combat.scenario", "ecs_combat.rules", "ecs_combat.decisions")


def _through_the_top_package(imports: dict[str, list[Import]]) -> list[str]:
    """The modules of scenario/, rules/ and decisions/ that import the top package itself
    (``import ecs_combat``, ``from ecs_combat import X``: any public name, the reference
    engine's among them, is reached through it), lazily or not, under TYPE_CHECKING too."""
    return sorted(
        f"{here}: {imp.module}{'' if imp.name is None else '.' + imp.name}"
        for here, found in imports.items()
        if here.startswith(BELOW_THE_ENGINES)
        for imp in found
        if imp.module == "ecs_combat"
    )


def test_scenarios_rules_and_decisions_do_not_reach_the_engines_through_the_package() -> None:
    """The scenario reader, the rules core and the decisions never import the top package
    (issue 35): its lazy names lead to the reference engine (``ReferenceEngine``), so a
    module below the engines importing it hides an import the check above can't see. The
    engine they ask when the plugins' ``before_blocks`` parts can't say what happens before
    blocks is the batched engine's, through ``ecs_combat.batched``."""
    assert _through_the_top_package(_core_imports()) == []
    # the scan can fail: both forms are found
    planted = {
        "ecs_combat.scenario.x": [Import("ecs_combat", None, False)],
        "ecs_combat.decisions.y": [Import("ecs_combat", "ReferenceEngine", True)],
        "ecs_combat.api": [Import("ecs_combat", "ReferenceEngine", False)],
    }
    assert _through_the_top_package(planted) == [
        "ecs_combat.decisions.y: ecs_combat.ReferenceEngine",
        "ecs_combat.scenario.x: ecs_combat",
    ]


# -- the numpy engine's state: each function's signature says what it touches ---------------

BATCHED = CORE / "batched"

#: What runs the plugins' code: their systems, triggered abilities and event actions
#: (``call_plugin``), cards (``card.resolve``) and static abilities (the static-keyword hook).
PLUGIN_CALLS = ("call_plugin", "card.resolve", "static_hook")

#: What holds a whole state without acting on it: the plugins' context over it, and a batch
#: played (its outcome and results asked for later).
STATE_HOLDERS = {"context.BatchedContext.__init__", "engine.Played.__init__"}


def _functions(trees: dict[str, ast.Module]) -> dict[str, ast.FunctionDef]:
    """Each function of some modules by qualified name (``module.function``,
    ``module.Class.method``)."""
    out: dict[str, ast.FunctionDef] = {}
    for module, tree in trees.items():
        for node in tree.body:
            if isinstance(node, ast.FunctionDef):
                out[f"{module}.{node.name}"] = node
            elif isinstance(node, ast.ClassDef):
                for item in node.body:
                    if isinstance(item, ast.FunctionDef):
                        out[f"{module}.{node.name}.{item.name}"] = item
    return out


def _calls(function: ast.FunctionDef) -> list[str]:
    """What a function calls, as written (``f``, ``module.f``, ``self.x.f``)."""
    return [ast.unparse(c.func) for c in ast.walk(function) if isinstance(c, ast.Call)]


def _running_plugin_code(functions: dict[str, ast.FunctionDef]) -> set[str]:
    """The functions that run the plugins' code, themselves or through the functions they
    call (by the called name's last part)."""
    found = {q for q, f in functions.items() if any(c.endswith(PLUGIN_CALLS) for c in _calls(f))}
    while True:
        names = {q.rsplit(".", 1)[1] for q in found}
        more = {
            q
            for q, f in functions.items()
            if q not in found and any(c.rsplit(".", 1)[-1] in names for c in _calls(f))
        }
        if not more:
            return found
        found |= more


def _taking(function: ast.FunctionDef, name: str) -> bool:
    """Whether a parameter of the function is annotated with a type named `name`."""
    arguments = function.args
    return any(
        isinstance(n, ast.Name) and n.id == name
        for a in [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs]
        if a.annotation is not None
        for n in ast.walk(a.annotation)
    )


def test_the_numpy_engine_has_no_shared_run() -> None:
    """State apart from behaviour (issue 32, item 6): the numpy engine has no class ``Run``
    and no parameter of that type; a function takes the whole ``State`` only when it runs
    the plugins' code (systems, triggers, cards, event actions, static abilities), which may
    read and change any structure through the context; every other function takes the
    structures it reads and writes (or holds the state: the context, a batch played)."""
    trees = {p.stem: ast.parse(p.read_text()) for p in sorted(BATCHED.glob("*.py"))}
    classes = {
        n.name for tree in trees.values() for n in ast.walk(tree) if isinstance(n, ast.ClassDef)
    }
    functions = _functions(trees)
    assert "Run" not in classes and "State" in classes
    assert sorted(q for q, f in functions.items() if _taking(f, "Run")) == []
    running = _running_plugin_code(functions)
    taking = {q for q, f in functions.items() if _taking(f, "State")}
    assert {"actions.run_systems", "combat.play", "keywords.refresh"} <= running
    assert {"actions.leave", "keywords.pump", "damage.step_exists"}.isdisjoint(running)
    assert len(taking) > 20
    assert sorted(taking - running - STATE_HOLDERS) == []


def test_the_plugin_code_finder_follows_calls() -> None:
    """The check above can fail: a function calling one that calls ``call_plugin`` runs
    plugin code; one that calls neither does not, nor does one taking State for nothing."""
    tree = ast.parse(
        "def a(state: State):\n    call_plugin(1)\n"
        "def b(state: State):\n    m.a(state)\n"
        "def c(rows: CreatureRows):\n    len(rows)\n"
        "def d(state: State | None):\n    c(state)\n"
    )
    functions = _functions({"m": tree})
    assert _running_plugin_code(functions) == {"m.a", "m.b"}
    taking = {q for q, f in functions.items() if _taking(f, "State")}
    assert taking == {"m.a", "m.b", "m.d"}
