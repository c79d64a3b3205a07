"""Every import points down the stair (target shape: ../shared/architecture.md; issue 12, item 1).

Each product module is parsed with ``ast`` (nothing is imported), and every ``import`` in it is
checked: at module level, inside functions, inside ``workflow.unsafe.imports_passed_through()``
and inside ``if TYPE_CHECKING:`` blocks alike, since each of them ties the two packages together.

A package may import a package of a LOWER layer. Inside one layer, only the pairs in ``PEERS``
are allowed. The failure names the importing file, the line and the target.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

# Top to bottom. A package may import any package in a layer below its own.
LAYERS: tuple[tuple[str, ...], ...] = (
    ("mccgw",),  # the command line: builds stacks, seeds data; may import anything
    ("devchain",),  # the local node, our C programs, genesis fixtures, dev world builders
    ("api", "authserver", "worker"),  # adapters: HTTP and Temporal
    ("workflows",),  # deterministic orchestration
    ("activities",),  # one transaction or one chain call each, calling a service
    # services, one package per capability
    (
        "engine",
        "mining",
        "onboarding",
        "webhooks",
        "tokens",
        "organizations",
        "views",
        "profiles",
        "accounts",
    ),
    # who may do what (consent, scopes, rate limits, revocation): below both adapters, so the
    # API and the authorization server share it, and below the services that ask it
    ("chain", "events", "ledger", "access"),
    ("db", "migrations"),
    ("core",),
)

# Imports allowed between packages of the same layer (importer, target), each with its reason.
PEERS: dict[tuple[str, str], str] = {
    # The authorization server is mounted by the API (and the consent revocation route kills
    # the user's tokens through it); both are HTTP adapters of one process. The reverse
    # direction is not allowed: what they share (rate limits, revocation) is ``access``.
    ("api", "authserver"): "the API mounts the authorization server",
    # Bulk mining reserves from the transaction engine's per-project limits.
    ("mining", "engine"): "mining counts against the engine's limits",
    # A reward is multiplied by the member's tech-tree bonus (organizations owns the bonus).
    ("mining", "organizations"): "a mining reward reads the tech-tree bonus",
    # An accepted submission's answer names the endpoint its outcome is sent to, in the same
    # statement as the accept (webhooks.endpoints.outcome_url_sql, the rule of outcome_url).
    ("mining", "webhooks"): "a mining accept names where its outcome is sent",
    # Migrations are the schema's history: they read the models' metadata.
    ("migrations", "db"): "alembic's env reads the models' metadata",
}

# The dev chain is tooling: only these may import it (the product runs against any cluster).
DEVCHAIN_IMPORTERS = {"mccgw", "tests", "bench"}

# Packages that must stand alone (a client shipped on its own): no product import at all.
STANDALONE = {"sdk": ROOT / "sdk"}

LEVEL = {pkg: depth for depth, layer in enumerate(LAYERS) for pkg in layer}


def _files(package: str) -> list[Path]:
    single = ROOT / f"{package}.py"
    if single.exists():
        return [single]
    return sorted(p for p in (ROOT / package).rglob("*.py") if ".venv" not in p.parts)


def _targets(tree: ast.AST) -> list[tuple[int, str]]:
    """(line, absolute module name) of every absolute import anywhere in the module."""
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.extend((node.lineno, alias.name) for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.append((node.lineno, node.module))
    # Relative imports stay inside their own package, so they cannot cross a layer.
    return found


def _allowed(importer: str, target: str) -> bool:
    if target == importer or target not in LEVEL:
        return True  # the package itself, the standard library or a third party
    if LEVEL[importer] < LEVEL[target]:
        return True  # downwards (layers are listed top first)
    return (importer, target) in PEERS


def upward_imports() -> list[str]:
    problems = []
    for package in LEVEL:
        for path in _files(package):
            for line, module in _targets(ast.parse(path.read_text(), str(path))):
                target = module.split(".")[0]
                if not _allowed(package, target):
                    problems.append(
                        f"{path.relative_to(ROOT)}:{line} imports {module} "
                        f"({package} is not allowed to import {target})"
                    )
    return problems


def test_every_import_points_down() -> None:
    problems = upward_imports()
    assert not problems, "imports pointing up (see tests/test_layers.py):\n" + "\n".join(problems)


def test_standalone_packages_import_no_product_package() -> None:
    problems = []
    for name, root in STANDALONE.items():
        for path in sorted(root.rglob("*.py")):
            for line, module in _targets(ast.parse(path.read_text(), str(path))):
                if module.split(".")[0] in LEVEL:
                    problems.append(f"{path.relative_to(ROOT)}:{line} imports {module} ({name})")
    assert not problems, "\n".join(problems)


def devchain_imports() -> list[str]:
    """Every import of ``devchain`` by a package that is not one of ``DEVCHAIN_IMPORTERS``."""
    problems = []
    for package in sorted(set(LEVEL) - DEVCHAIN_IMPORTERS - {"devchain"}):
        for path in _files(package):
            for line, module in _targets(ast.parse(path.read_text(), str(path))):
                if module.split(".")[0] == "devchain":
                    problems.append(f"{path.relative_to(ROOT)}:{line} imports {module}")
    return problems


def test_the_product_never_imports_the_dev_chain() -> None:
    """api, authserver, worker, workflows, activities, the services, chain, events, ledger, db and
    core run against any cluster: the local node, its programs and its fixtures stay out."""
    problems = devchain_imports()
    assert not problems, "only mccgw/, tests and bench may import devchain:\n" + "\n".join(problems)


# What the dev chain builds on: the gateway (``chain``) and ``core``; its funding helper
# (``devchain/funding.py``, money made from nothing for the seed, benchmarks and tests) also
# credits the ledger (``ledger``, ``db``).
DEVCHAIN_BASE = ("devchain", "chain", "ledger", "db", "core")


def test_the_dev_chain_stands_on_the_gateway_only() -> None:
    """devchain builds on the gateway, the ledger and what is under them, never on a service
    or an adapter."""
    problems = []
    for path in _files("devchain"):
        for line, module in _targets(ast.parse(path.read_text(), str(path))):
            target = module.split(".")[0]
            if target in LEVEL and target not in DEVCHAIN_BASE:
                problems.append(f"{path.relative_to(ROOT)}:{line} imports {module}")
    assert not problems, "\n".join(problems)


def test_every_product_package_has_a_layer() -> None:
    """A new top-level package must be placed in the table, or it would be checked by no one."""
    first_party = {
        p.name
        for p in ROOT.iterdir()
        # the suite, the benchmarks and the deployment tools (deploy/: image, topology) are
        # tooling, like devchain's importers
        if p.is_dir()
        and (p / "__init__.py").exists()
        and p.name not in ("tests", "bench", "deploy")
    } | {"worker"}
    assert first_party <= set(LEVEL) | set(STANDALONE), first_party - set(LEVEL)


def test_the_check_catches_an_upward_import() -> None:
    """The walk sees imports in functions, passed-through blocks and TYPE_CHECKING blocks."""
    source = (
        "from typing import TYPE_CHECKING\n"
        "from temporalio import workflow\n"
        "with workflow.unsafe.imports_passed_through():\n"
        "    from activities.engine import EngineActivities\n"
        "if TYPE_CHECKING:\n"
        "    from api.app import App\n"
        "def f():\n"
        "    import worker\n"
    )
    targets = [m for _, m in _targets(ast.parse(source))]
    assert {"activities.engine", "api.app", "worker"} <= set(targets)
    assert not _allowed("engine", "activities") and not _allowed("db", "chain")
    assert _allowed("api", "db") and _allowed("mining", "engine")
    assert not _allowed("engine", "mining")
    assert not _allowed("chain", "devchain") and not _allowed("api", "devchain")
    assert _allowed("mccgw", "devchain") and _allowed("devchain", "chain")
    assert not _allowed("authserver", "api") and not _allowed("access", "api")
    assert _allowed("mining", "access") and _allowed("authserver", "access")


ROUTES = ROOT / "api" / "routes"


def _imported_routes(path: Path) -> list[tuple[int, str]]:
    """(line, module) of every ``api.routes`` module a file imports (``from api.routes import
    x`` names the module ``api.routes.x``)."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found += [(node.lineno, a.name) for a in node.names if a.name.startswith("api.routes")]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            if node.module == "api.routes":
                found += [(node.lineno, f"api.routes.{a.name}") for a in node.names]
            elif node.module.startswith("api.routes."):
                found.append((node.lineno, node.module))
    return found


def route_to_route_imports() -> list[str]:
    """A route module is an adapter of one resource: what two of them share lives outside
    api/routes (api.common, api.callers, api.starts, api.schemas), so no route module imports
    another. Only the package's __init__ wires the routers together."""
    return [
        f"{path.relative_to(ROOT)}:{line} imports {module}"
        for path in sorted(ROUTES.glob("*.py"))
        if path.name != "__init__.py"
        for line, module in _imported_routes(path)
    ]


def test_no_route_module_imports_another() -> None:
    problems = route_to_route_imports()
    assert not problems, "route modules importing route modules:\n" + "\n".join(problems)


def test_the_routes_check_sees_both_import_forms(tmp_path: Path) -> None:
    module = tmp_path / "m.py"
    module.write_text("from api.routes import funds\nfrom api.routes.users import x\nimport api\n")
    found = [m for _, m in _imported_routes(module)]
    assert found == ["api.routes.funds", "api.routes.users"]


CONSOLE = ROOT / "api" / "console"


def console_to_route_imports() -> list[str]:
    """The operator console calls the services and what the admin API shares with it
    (``api.operations``, ``api.starts``, ``api.callers``), never a route module."""
    return [
        f"{path.relative_to(ROOT)}:{line} imports {module}"
        for path in sorted(CONSOLE.rglob("*.py"))
        for line, module in _imported_routes(path)
    ]


def test_the_console_imports_no_route_module() -> None:
    problems = console_to_route_imports()
    assert not problems, "console modules importing route modules:\n" + "\n".join(problems)
