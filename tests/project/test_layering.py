"""The layering rule, read from the imports: a layer imports only itself and the layers below it.

``LAYERS`` is the one declaration of the package's layers, bottom first, each
with the files it holds (a name ending in ``/`` is a sub-package) and whether
it may do I/O.  Every module of ``streamcalls/`` must be in exactly one layer,
so a new module is placed on purpose.  Each ``import`` and ``from ... import``
is read from the source (not run), relative ones resolved; those under ``if
TYPE_CHECKING:`` count for the layering too (a type is a dependency), but not
for I/O, since they never run.  The checks are plain functions, fed a fake
violation below to prove that they can fail.

Inside the providers' layer, ``ROLES`` says what each kind of module in a
provider package is for and what it may import: a stream reader the core's
leaf modules, framing and other readers; a request rule only other rules
(pure functions on dicts); nothing there the codec, the async front or the
replay server.  Every module under ``providers/`` has exactly one role.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import NamedTuple

PACKAGE = Path(__file__).parent.parent.parent / "streamcalls"


class Layer(NamedTuple):
    name: str
    holds: tuple[str, ...]  # paths under streamcalls/; "x/" is the sub-package x
    io: bool  # may it import what does I/O (IO_MODULES) at run time?


LAYERS = (
    Layer(
        "the core's leaf modules",
        (
            "_events.py",
            "_errors.py",
            "_limits.py",
            "_arguments.py",
            "_jsonscan.py",
            "_patchwriter.py",
            "_call.py",
            "_callids.py",
            "_copies.py",
            "_calllimits.py",
            "_wholeargs.py",
            "_calls.py",
            "_emitter.py",
            "_statuses.py",
            "_adapter.py",
            "_lenient.py",
            "_models.py",
            "_tooldefs.py",
            "_found.py",
            "_turn.py",
            "_results.py",
        ),
        io=False,
    ),
    Layer("the writer's event order, its targets' base and the chat UI targets", ("writing/",), io=False),
    # _native: the native fast path, a framer that also reads the common records of the
    # adapters that declare a native reader (they are not imported: the class says so).
    Layer("framing", ("framing/", "_native/"), io=False),
    Layer("providers and the detector engine", ("providers/", "detectors/_engine/"), io=False),
    Layer("the detectors' shared parts", ("detectors/_parts/",), io=False),
    Layer("the text formats and their registry", ("detectors/formats/", "detectors/__init__.py"), io=False),
    Layer(
        "the core",
        (
            "_parser.py",
            "_policy.py",
            "_api.py",
            "_detect.py",
            "_nonstream.py",
            "_readers.py",
            "_options.py",
            "_names.py",
            "_partial.py",
            "_writer.py",
        ),
        io=False,
    ),
    Layer("codec", ("codec/",), io=False),
    Layer("the async front", ("aio/",), io=True),
    Layer("the replay server", ("replay/", "testing.py"), io=True),
    Layer("the command line and the re-exports", ("cli/", "__main__.py", "__init__.py"), io=True),
)

# What does I/O: an event loop, a socket, a thread, an HTTP client or server, a provider's SDK.
IO_MODULES = frozenset(
    {
        "anyio",
        "asyncio",
        "trio",
        "socket",
        "threading",
        "concurrent",
        "httpx",
        "hypercorn",
        "openai",
        "anthropic",
    }
)


class Imports(NamedTuple):
    modules: frozenset[str]  # streamcalls modules, dotted, every import
    io: frozenset[str]  # top-level names of IO_MODULES imported at run time


def layer_of(path: str) -> int:
    """The index in ``LAYERS`` of the file at ``path`` (relative to streamcalls/); KeyError if none holds it."""
    found = [
        index
        for index, layer in enumerate(LAYERS)
        for held in layer.holds
        if path == held or (held.endswith("/") and path.startswith(held))
    ]
    if len(found) != 1:
        raise KeyError(f"streamcalls/{path} is in {len(found)} layers of LAYERS, not one")
    return found[0]


def path_of(module: str) -> str:
    """The file of a dotted ``streamcalls`` module, relative to streamcalls/ (a package is its __init__.py)."""
    parts = module.split(".")[1:]
    if not parts:
        return "__init__.py"
    candidate = "/".join(parts)
    return f"{candidate}/__init__.py" if (PACKAGE / candidate).is_dir() else f"{candidate}.py"


def _is_type_checking(test: ast.expr) -> bool:
    return isinstance(test, ast.Name) and test.id.lstrip("_") == "TYPE_CHECKING"


def read_imports(path: Path) -> Imports:
    """What the module at ``path`` imports, from its source."""
    package = ["streamcalls", *path.relative_to(PACKAGE).with_suffix("").parts]
    package.pop()  # relative imports start from the module's package (an __init__'s is itself)
    modules: set[str] = set()
    io: set[str] = set()

    def visit(node: ast.AST, runs: bool) -> None:
        if isinstance(node, ast.If) and _is_type_checking(node.test):
            for statement in node.body:
                visit(statement, False)
            for statement in node.orelse:
                visit(statement, runs)
            return
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[: len(package) - node.level + 1]
                target = ".".join([*base, node.module] if node.module else base)
            else:
                target = node.module or ""
            # ``from . import x`` may import the sub-module x: count both.
            names = [
                target,
                *(f"{target}.{alias.name}" for alias in node.names if target.startswith("streamcalls")),
            ]
        else:
            for child in ast.iter_child_nodes(node):
                visit(child, runs)
            return
        for name in names:
            top = name.partition(".")[0]
            if top == "streamcalls":
                if (PACKAGE / path_of(name)).exists():  # not a name imported from a module
                    modules.add(name)
            elif top in IO_MODULES and runs:
                io.add(top)

    visit(ast.parse(path.read_text(encoding="utf-8")), True)
    return Imports(frozenset(modules), frozenset(io))


def violations(imports: Mapping[str, Imports]) -> list[str]:
    """Each import that breaks the layering or the sans-IO rule, said in a line (``imports``: by path)."""
    problems = []
    for path, found in sorted(imports.items()):
        try:
            own = layer_of(path)
        except KeyError as exc:
            problems.append(str(exc.args[0]))
            continue
        for module in sorted(found.modules):
            try:
                theirs = layer_of(path_of(module))
            except KeyError as exc:
                problems.append(str(exc.args[0]))
                continue
            if theirs > own:
                problems.append(
                    f"streamcalls/{path} ({LAYERS[own].name}) imports {module} ({LAYERS[theirs].name}), a layer above it"
                )
        if found.io and not LAYERS[own].io:
            problems.append(f"streamcalls/{path} ({LAYERS[own].name}) imports {', '.join(sorted(found.io))}")
    return problems


def package_imports(paths: Iterable[Path]) -> dict[str, Imports]:
    return {path.relative_to(PACKAGE).as_posix(): read_imports(path) for path in paths}


LEAF = LAYERS[0].holds
FRAMING = ("framing/*.py",)
READER_HELPERS = (
    "providers/gemini/partial_args.py",
    "providers/openai_responses/reasoning_items.py",
    "providers/bedrock_invoke/models.py",
    "providers/openai_chat/views.py",
)
RULES = ("providers/*/*_rules.py", "providers/_thinking_rules.py", "providers/_rejected.py")


class Role(NamedTuple):
    what: str
    files: tuple[str, ...]  # patterns of paths under streamcalls/; * matches within one folder
    may_import: tuple[str, ...]  # the same patterns, for the modules it imports


ROLES = (
    Role(
        "the registry",
        ("providers/__init__.py", "providers/_registry.py"),
        (*LEAF, "providers/_*.py", "providers/*/__init__.py"),
    ),
    Role(
        "a provider's registry entry",
        ("providers/*/__init__.py",),
        ("providers/_registry.py", "providers/*/*.py"),
    ),
    Role(
        "a stream reader",
        ("providers/*/reader.py",),
        (*LEAF, *FRAMING, "providers/*/reader.py", *READER_HELPERS),
    ),
    Role("a stream reader's helper", READER_HELPERS, (*LEAF, *FRAMING)),
    Role("a complete-response reader", ("providers/*/complete.py",), (*LEAF, "providers/_bodies.py")),
    # A provider's target for the stream writer: streamcalls/writing/ holds their base and registry.
    Role(
        "a stream writer",
        ("providers/*/writer.py",),
        (*LEAF, "writing/*.py", *FRAMING, "providers/*/writer.py", "providers/*/items.py"),
    ),
    # A provider's complete response for a turn (write_response), beside its stream writer.
    Role(
        "a complete-response writer",
        ("providers/*/response.py",),
        (*LEAF, "writing/*.py", "providers/*/writer.py", "providers/*/items.py", "providers/*/response.py"),
    ),
    # The wire objects both writers build (a response, its items): plain dicts.
    Role("a writers' objects", ("providers/*/items.py",), (*LEAF, "providers/*/writer.py")),
    Role("a request encoding", ("providers/*/encoding.py",), (*LEAF, "providers/_encoding.py")),
    Role("an error shape", ("providers/*/errors.py",), ("providers/_refusals.py",)),
    # Pure functions on dicts: other rules, and the event types a rule compares (a recorded ToolCall).
    Role("request rules", RULES, (*RULES, "_events.py")),
    Role(
        "a helper the providers share",
        ("providers/_bodies.py", "providers/_encoding.py", "providers/_refusals.py"),
        LEAF,
    ),
)


def _matches(pattern: str, path: str) -> bool:
    return re.fullmatch(re.escape(pattern).replace(r"\*", "[^/]*"), path) is not None


def role_of(path: str) -> Role:
    """The one role in ``ROLES`` of the file at ``path`` (under providers/); KeyError if not exactly one."""
    found = [role for role in ROLES if any(_matches(pattern, path) for pattern in role.files)]
    if len(found) != 1:
        raise KeyError(f"streamcalls/{path} has {len(found)} roles in ROLES, not one")
    return found[0]


def role_violations(imports: Mapping[str, Imports]) -> list[str]:
    """Each import of a module under providers/ that its role does not allow, said in a line."""
    problems = []
    for path, found in sorted(imports.items()):
        if not path.startswith("providers/"):
            continue
        try:
            role = role_of(path)
        except KeyError as exc:
            problems.append(str(exc.args[0]))
            continue
        for module in sorted(found.modules):
            target = path_of(module)
            if target == path or any(_matches(pattern, target) for pattern in role.may_import):
                continue
            problems.append(
                f"streamcalls/{path} ({role.what}) imports {module}, which its role does not allow"
            )
    return problems


def test_every_module_imports_only_its_layer_and_the_layers_below() -> None:
    imports = package_imports(PACKAGE.rglob("*.py"))
    assert len(imports) > 100  # the walk found the package
    assert violations(imports) == []


def test_every_declared_place_exists() -> None:
    """A stale entry in LAYERS (a module moved or split) is caught, not silently ignored."""
    missing = [held for layer in LAYERS for held in layer.holds if not (PACKAGE / held).exists()]
    assert missing == []


def test_an_import_from_a_layer_above_is_a_violation() -> None:
    """The check can fail: framing that imports the parser, and a module no layer holds."""
    fake = {
        "framing/_sse.py": Imports(frozenset({"streamcalls._parser", "streamcalls._events"}), frozenset()),
        "_new_module.py": Imports(frozenset(), frozenset()),
    }
    assert violations(fake) == [
        "streamcalls/_new_module.py is in 0 layers of LAYERS, not one",
        "streamcalls/framing/_sse.py (framing) imports streamcalls._parser (the core), a layer above it",
    ]


def test_io_below_the_async_front_is_a_violation() -> None:
    fake = {
        "_parser.py": Imports(frozenset(), frozenset({"anyio"})),
        "aio/_aparse.py": Imports(frozenset(), frozenset({"anyio"})),
    }
    assert violations(fake) == ["streamcalls/_parser.py (the core) imports anyio"]


def test_imports_are_read_from_the_source() -> None:
    """The reader resolves relative imports and tells imports that run from those for type checking only."""
    found = read_imports(PACKAGE / "framing" / "_document.py")
    assert {"streamcalls._jsonscan", "streamcalls.framing._trailing"} <= found.modules
    assert found.io == frozenset()
    assert read_imports(PACKAGE / "aio" / "_aparse.py").io == {"anyio"}
    assert (
        read_imports(PACKAGE / "codec" / "_params.py").io == frozenset()
    )  # the SDKs' types: TYPE_CHECKING only


def test_every_provider_module_imports_only_what_its_role_allows() -> None:
    imports = package_imports((PACKAGE / "providers").rglob("*.py"))
    assert len(imports) > 40  # every provider's package was found
    assert role_violations(imports) == []


def test_an_import_outside_a_role_is_a_violation() -> None:
    """The check can fail: a rule that imports the emitter, a reader that imports the codec, a stray module."""
    fake = {
        "providers/gemini/history_rules.py": Imports(frozenset({"streamcalls._emitter"}), frozenset()),
        "providers/anthropic/reader.py": Imports(
            frozenset({"streamcalls.codec._encode", "streamcalls._events"}), frozenset()
        ),
        "providers/anthropic/errors.py": Imports(frozenset({"streamcalls.replay._errors"}), frozenset()),
        "providers/anthropic/writer_notes.py": Imports(frozenset(), frozenset()),
    }
    assert role_violations(fake) == [
        "streamcalls/providers/anthropic/errors.py (an error shape) imports streamcalls.replay._errors, "
        "which its role does not allow",
        "streamcalls/providers/anthropic/reader.py (a stream reader) imports streamcalls.codec._encode, "
        "which its role does not allow",
        "streamcalls/providers/anthropic/writer_notes.py has 0 roles in ROLES, not one",
        "streamcalls/providers/gemini/history_rules.py (request rules) imports streamcalls._emitter, "
        "which its role does not allow",
    ]
