"""Only ``chain/`` speaks JSON-RPC to the chain (issue 37): one transport, ``chain/rpc.py``.

Read statically, as ``tests/test_layers.py`` reads imports (each product module parsed with
``ast``, nothing imported). In the product (every layer but ``mccgw``, ``devchain``, the tests
and the benchmarks, which may keep their own clients):

- no module imports solana-py's client side (``solana.rpc``, ``solana.exceptions``: any
  ``solana.*``; ``spl.*`` instruction builders and ``solders`` types are fine);
- no module but ``chain/rpc.py`` writes a JSON-RPC envelope (a ``"jsonrpc"`` key);
- no module but ``chain/rpc.py`` reads the RPC URL (``settings.solana_rpc_url``), except where
  it is only shown (``SHOWN``);
- in ``chain/``, only ``chain/rpc.py`` imports an HTTP client.
"""

from __future__ import annotations

import ast
from pathlib import Path

from tests.test_layers import LEVEL, ROOT, _files, _targets

TOOLING = {"mccgw", "devchain"}
PRODUCT = sorted(set(LEVEL) - TOOLING)
DOOR = Path("chain/rpc.py")
# Modules that name the RPC URL without ever requesting it, each with its reason.
SHOWN = {
    Path("core/config.py"): "the setting itself",
    Path("api/console/pages.py"): "the operator console shows which node the gateway uses",
}
HTTP_CLIENTS = ("httpx", "aiohttp", "requests", "urllib3", "websockets")


def _rel(path: Path) -> Path:
    return path.relative_to(ROOT) if path.is_relative_to(ROOT) else path


def _product_files() -> list[Path]:
    return [path for package in PRODUCT for path in _files(package)]


def client_imports(paths: list[Path]) -> list[str]:
    return [
        f"{_rel(path)}:{line} imports {module}"
        for path in paths
        for line, module in _targets(ast.parse(path.read_text(), str(path)))
        if module == "solana" or module.startswith("solana.")
    ]


def envelopes(paths: list[Path]) -> list[str]:
    """Modules outside the door that build a JSON-RPC request (a ``"jsonrpc"`` string)."""
    return [
        f"{_rel(path)}:{node.lineno} writes a JSON-RPC envelope"
        for path in paths
        if _rel(path) != DOOR
        for node in ast.walk(ast.parse(path.read_text(), str(path)))
        if isinstance(node, ast.Constant) and node.value == "jsonrpc"
    ]


def url_readers(paths: list[Path]) -> list[str]:
    return [
        f"{_rel(path)}:{node.lineno} reads solana_rpc_url"
        for path in paths
        if _rel(path) not in {DOOR, *SHOWN}
        for node in ast.walk(ast.parse(path.read_text(), str(path)))
        if (isinstance(node, ast.Attribute) and node.attr == "solana_rpc_url")
        or (isinstance(node, ast.Constant) and node.value == "solana_rpc_url")
    ]


def chain_http_imports(paths: list[Path]) -> list[str]:
    return [
        f"{_rel(path)}:{line} imports {module}"
        for path in paths
        if _rel(path).parts[0] == "chain" and _rel(path) != DOOR
        for line, module in _targets(ast.parse(path.read_text(), str(path)))
        if module.split(".")[0] in HTTP_CLIENTS
    ]


def test_no_product_module_imports_solana_pys_client() -> None:
    problems = client_imports(_product_files())
    assert not problems, "speak to the chain through chain/rpc.py:\n" + "\n".join(problems)


def test_only_the_transport_writes_json_rpc_or_reads_the_rpc_url() -> None:
    files = _product_files()
    problems = envelopes(files) + url_readers(files) + chain_http_imports(files)
    assert not problems, "only chain/rpc.py speaks JSON-RPC:\n" + "\n".join(problems)


def test_the_checks_see_what_they_look_for(tmp_path: Path) -> None:
    sneaky = tmp_path / "sneaky.py"
    sneaky.write_text(
        "def f(settings):\n"
        "    from solana.rpc.async_api import AsyncClient\n"
        "    import httpx\n"
        "    body = {'jsonrpc': '2.0', 'method': 'getSlot'}\n"
        "    return httpx.post(settings.solana_rpc_url, json=body), AsyncClient\n"
    )
    assert len(client_imports([sneaky])) == 1
    assert len(envelopes([sneaky])) == 1
    assert len(url_readers([sneaky])) == 1
    assert PRODUCT and "chain" in PRODUCT and "views" in PRODUCT and "mccgw" not in PRODUCT
