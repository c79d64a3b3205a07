"""The production image without Docker: its build context rebuilt from the Dockerfile's COPY
lines (honouring .dockerignore), built into a wheel and installed into a fresh virtual
environment outside the checkout.

The fresh environment gets the pinned third-party dependencies of the checkout's .venv as a
hard-linked copy outside the checkout without the editable install, through a plain path entry:
nothing on its ``sys.path`` lies in the checkout, so everything of ours it imports comes from the
wheel.
"""

from __future__ import annotations

import fnmatch
import os
import re
import shlex
import shutil
import subprocess
import sys
import sysconfig
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


@dataclass(frozen=True)
class Copy:
    sources: tuple[str, ...]
    dest: str


def dockerfile_copies(dockerfile: Path) -> list[Copy]:
    """The COPY lines of the final stage (continuations joined; ``--from`` copies skipped)."""
    text = re.sub(r"\\\n", " ", dockerfile.read_text())
    copies: list[Copy] = []
    for line in text.splitlines():
        words = shlex.split(line, comments=True)
        if not words:
            continue
        if words[0].upper() == "FROM":
            copies = []
        if words[0].upper() not in ("COPY", "ADD"):
            continue
        args = [w for w in words[1:] if not w.startswith("--")]
        if any(w.startswith("--from") for w in words[1:]):
            continue
        copies.append(Copy(tuple(args[:-1]), args[-1]))
    return copies


def _pattern_regex(pattern: str) -> re.Pattern[str]:
    """Docker's .dockerignore pattern (Go filepath.Match plus ``**``) as a regex on a
    slash-separated path relative to the context."""
    out = ""
    i = 0
    while i < len(pattern):
        if pattern.startswith("**", i):
            out += ".*"
            i += 2
            if pattern.startswith("/", i):
                out = out[:-2] + "(?:.*/)?"
                i += 1
            continue
        c = pattern[i]
        out += "[^/]*" if c == "*" else "[^/]" if c == "?" else re.escape(c)
        i += 1
    return re.compile(out + "$")


def dockerignore_rules(path: Path) -> list[tuple[bool, re.Pattern[str]]]:
    """(exclude?, regex) in file order; the last rule that matches a path decides."""
    rules = []
    for raw in path.read_text().splitlines() if path.exists() else []:
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        keep = line.startswith("!")
        line = os.path.normpath(line.lstrip("!").strip()).lstrip("/")
        rules.append((not keep, _pattern_regex(line)))
    return rules


def ignored(rel: str, rules: list[tuple[bool, re.Pattern[str]]]) -> bool:
    """A path is left out when it, or a directory above it, is excluded by the last rule
    matching it."""
    parts = rel.split("/")
    for depth in range(1, len(parts) + 1):
        prefix = "/".join(parts[:depth])
        verdict = None
        for exclude, regex in rules:
            if regex.match(prefix):
                verdict = exclude
        if verdict:
            return True
    return False


def build_context(root: Path, dest: Path) -> list[str]:
    """What ``docker build`` would send: every file of ``root`` not ignored. Returns the
    relative paths."""
    rules = dockerignore_rules(root / ".dockerignore")
    files: list[str] = []
    for dirpath, dirnames, filenames in os.walk(root):
        rel_dir = os.path.relpath(dirpath, root)
        rel_dir = "" if rel_dir == "." else rel_dir + "/"
        dirnames[:] = [d for d in dirnames if not ignored(rel_dir + d, rules)]
        for name in filenames:
            rel = rel_dir + name
            if ignored(rel, rules):
                continue
            target = dest / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(Path(dirpath) / name, target)
            files.append(rel)
    return files


def apply_copies(context: Path, copies: list[Copy], workdir: Path) -> None:
    """The image's WORKDIR after the COPY lines: a directory source copies its contents into
    the destination; a file goes into a destination ending in ``/`` (or ``.``) by its name."""
    for copy in copies:
        dest = workdir / copy.dest.lstrip("/")
        into_dir = copy.dest.endswith("/") or copy.dest in (".", "./") or len(copy.sources) > 1
        for source in copy.sources:
            matches = sorted(context.glob(source)) if source not in (".", "./") else [context]
            if not matches:
                raise FileNotFoundError(f"COPY {source}: not in the build context")
            for match in matches:
                if match.is_dir():
                    shutil.copytree(match, dest, dirs_exist_ok=True)
                else:
                    target = dest / match.name if into_dir else dest
                    target.parent.mkdir(parents=True, exist_ok=True)
                    shutil.copy2(match, target)


def pinned_dependencies(tmp: Path) -> Path:
    """The checkout .venv's site-packages (the pinned dependencies, installed by
    ``make install``) as a tree of hard links outside the checkout, without the editable
    install of the checkout itself: a copy in a second, not a minute of downloads."""
    source = Path(sysconfig.get_paths()["purelib"])
    target = tmp / "pinned-site-packages"
    subprocess.run(["cp", "-al", str(source), str(target)], check=True)
    for path in target.iterdir():
        if path.name.startswith(("__editable__", "mccgw-", "mccgw_client")):
            shutil.rmtree(path) if path.is_dir() else path.unlink()
    return target


@dataclass(frozen=True)
class Installed:
    venv: Path
    wheel: Path
    app_dir: Path

    @property
    def python(self) -> Path:
        return self.venv / "bin" / "python"

    @property
    def mccgw(self) -> Path:
        return self.venv / "bin" / "mccgw"


def build_image(tmp: Path) -> Installed:
    """Context -> COPY -> wheel -> fresh venv with the wheel installed (no dependencies pulled:
    they come from the checkout's .venv as a plain path entry)."""
    context = tmp / "context"
    build_context(ROOT, context)
    app = tmp / "app"
    app.mkdir()
    apply_copies(context, dockerfile_copies(ROOT / "Dockerfile"), app)
    dist = tmp / "dist"
    # Nothing of the checkout on the path of pip or the new interpreter (a PYTHONPATH naming the
    # checkout would make pip find its egg-info and install nothing).
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME")}
    pip = [sys.executable, "-m", "pip", "--disable-pip-version-check", "--no-input", "-q"]
    subprocess.run(
        [*pip, "wheel", "--no-deps", "-w", str(dist), str(app)],
        check=True,
        cwd=tmp,
        env=env,
    )
    (wheel,) = dist.glob("mccgw-*.whl")
    venv = tmp / "venv"
    subprocess.run(
        [getattr(sys, "_base_executable", sys.executable), "-m", "venv", "--without-pip", venv],
        check=True,
        env=env,
    )
    subprocess.run(
        [*pip, "--python", str(venv / "bin" / "python"), "install", "--no-deps", "--no-index",
         "--no-compile", str(wheel)],
        check=True,
        cwd=tmp,
        env=env,
    )  # fmt: skip
    where = "import sysconfig; print(sysconfig.get_paths()['purelib'])"
    purelib = subprocess.run(
        [venv / "bin" / "python", "-c", where],
        check=True,
        capture_output=True,
        text=True,
        env=env,
    ).stdout.strip()
    # Appended after the venv's own site-packages: the wheel's modules come first.
    Path(purelib, "_pinned_dependencies.pth").write_text(str(pinned_dependencies(tmp)) + "\n")
    return Installed(venv=venv, wheel=wheel, app_dir=app)


def clean_env(**extra: str) -> dict[str, str]:
    """An environment without anything pointing into the checkout."""
    keep = ("PATH", "HOME", "LANG", "LC_ALL", "TMPDIR", "USER")
    env = {k: v for k, v in os.environ.items() if k in keep}
    env.update(extra)
    return env


def wheel_top_level(wheel: Path) -> set[str]:
    import zipfile

    with zipfile.ZipFile(wheel) as zf:
        return {
            name.split("/")[0]
            for name in zf.namelist()
            if not name.split("/")[0].endswith((".dist-info", ".data"))
        }


def checkout_packages() -> set[str]:
    """Top-level packages of the product in the checkout (the suite, the benchmarks and these
    deployment tools are not product)."""
    return {
        p.parent.name
        for p in ROOT.glob("*/__init__.py")
        if p.parent.name not in ("tests", "bench", "deploy")
        and not fnmatch.fnmatch(p.parent.name, ".*")
    }
