"""The production image holds the product: built from the Dockerfile's own COPY lines and
.dockerignore, installed as a wheel outside the checkout, its API app builds (with its OpenAPI),
its worker runs a workflow on the session's Temporal server, its CLI answers, and it carries the
migrations and the console's templates."""

from __future__ import annotations

import subprocess
import textwrap
from pathlib import Path

from temporalio.testing import WorkflowEnvironment

from deploy.image import (
    ROOT,
    Installed,
    build_context,
    checkout_packages,
    clean_env,
    dockerignore_rules,
    ignored,
    wheel_top_level,
)

# Run by the fresh environment's interpreter, from a directory outside the checkout.
PROBE = textwrap.dedent(
    """
    import asyncio, importlib, json, os, sys
    from pathlib import Path

    checkout = Path(sys.argv[1]).resolve()
    venv = Path(sys.prefix).resolve()
    on_path = [p for p in sys.path if p and Path(p).resolve().is_relative_to(checkout)]
    assert not on_path, f"the checkout is on sys.path: {on_path}"

    where = {}
    for name in sys.argv[2].split(","):
        module = importlib.import_module(name)
        where[name] = str(Path(module.__file__).resolve())
        assert Path(where[name]).is_relative_to(venv), (name, where[name])

    from api.app import create_app
    app = create_app()
    spec = app.openapi()
    routes = len(spec["paths"])

    from api.console import pages
    templates = Path(pages.__file__).parent / "templates"

    from alembic.script import ScriptDirectory
    from core.config import get_settings
    from core.migrate import alembic_config
    heads = ScriptDirectory.from_config(alembic_config(get_settings().database_url)).get_heads()

    import worker
    from temporalio.client import Client
    from activities.deps import worker_deps

    from workflows.reference import PingInput, PingWorkflow

    async def build() -> int:
        client = await Client.connect(os.environ["TEMPORAL_ADDRESS"])
        queue = f"image-probe-{os.getpid()}"
        async with worker_deps(get_settings()) as deps:
            async with worker.build_worker(client, deps, task_queue=queue):
                done = await client.execute_workflow(
                    PingWorkflow.run, PingInput("from the image"), id=queue, task_queue=queue
                )
            assert done.echoed == "from the image", done
            return len(worker.build_activities(deps))

    activities = asyncio.run(build())
    print(json.dumps({"routes": routes, "heads": heads, "activities": activities,
                      "templates": sorted(p.name for p in templates.glob("*.html")),
                      "where": where}))
    """
)


def test_dockerignore_keeps_secrets_and_the_suite_out(tmp_path: Path) -> None:
    rules = dockerignore_rules(ROOT / ".dockerignore")
    for path in (".env", "keys/gateway.json", ".dev/pg/x", ".git/HEAD", "tests/conftest.py",
                 "api/__pycache__/app.cpython-311.pyc", ".venv/bin/python"):  # fmt: skip
        assert ignored(path, rules), path
    for path in ("pyproject.toml", "README.md", "api/app.py", "migrations/versions/0001_initial.py",
                 "alembic.ini", "worker.py"):  # fmt: skip
        assert not ignored(path, rules), path
    files = build_context(ROOT, tmp_path / "context")
    assert "pyproject.toml" in files and not any(f.startswith("tests/") for f in files)


def test_the_image_holds_every_package_and_starts_outside_the_checkout(
    installed_image: Installed, tmp_path: Path, temporal_env: WorkflowEnvironment
) -> None:
    packages = checkout_packages()
    in_wheel = wheel_top_level(installed_image.wheel)
    assert packages <= in_wheel, f"not in the image: {sorted(packages - in_wheel)}"
    assert "worker.py" in in_wheel

    env = clean_env(
        ENVIRONMENT="test",
        CHAIN_KEYS_DIR=str(tmp_path / "keys"),
        AVATAR_DIR=str(tmp_path / "avatars"),
        LOG_LEVEL="WARNING",
        TEMPORAL_ADDRESS=temporal_env.client.service_client.config.target_host,
    )
    probe = subprocess.run(
        [installed_image.python, "-c", PROBE, str(ROOT), ",".join([*sorted(packages), "worker"])],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert probe.returncode == 0, probe.stderr[-4000:]
    import json

    found = json.loads(probe.stdout.strip().splitlines()[-1])
    assert found["routes"] > 50
    assert found["activities"] > 20
    assert found["heads"], "the image has no migrations"
    versions = {p.stem.split("_")[0] for p in (ROOT / "migrations" / "versions").glob("*.py")}
    assert len(versions) >= 3 and found["templates"]

    cli = subprocess.run(
        [installed_image.mccgw, "--help"], cwd=tmp_path, env=env, capture_output=True, text=True
    )
    assert cli.returncode == 0, cli.stderr[-2000:]
    for command in ("api", "worker", "migrate", "chain-init"):
        assert command in cli.stdout
