"""What every package carries: the bundle, and wheels of the judge and its dependencies.

Platforms build their images with no access to this project and, for
PrairieLearn and Exercism, run them with no network, so a package installs the
judge from wheels it holds (``pip install --no-index --find-links``).  The
judge's own wheel is built from its source tree once per version of it (an
installed judge with no source tree beside it writes its wheel back from the
installed files: :mod:`judge.platforms.installed_wheel`); the dependencies'
wheels are downloaded once per Python version; both are kept in a cache folder
and copied from there, so packaging again (or packaging three platforms in CI)
costs neither a build nor a download.
"""

from __future__ import annotations

import hashlib
import platform
import shutil
import subprocess
import sys
import tempfile
import tomllib
from pathlib import Path

from judge.errors import JudgeError
from judge.progress import Progress, quiet

PACKAGE_NAME = "numpy-judge"
DEFAULT_PYTHONS = ("3.11",)


def source_tree() -> Path | None:
    """The judge's source tree (the folder holding its pyproject.toml), or None for an installed judge."""
    root = Path(__file__).resolve().parents[2]
    pyproject = root / "pyproject.toml"
    if not pyproject.is_file() or f'name = "{PACKAGE_NAME}"' not in pyproject.read_text():
        return None
    return root


def dependencies(root: Path, extras: tuple[str, ...] = ()) -> list[str]:
    """The judge's requirements from its pyproject.toml, with those of ``extras`` (e.g. ``pictures``)."""
    project = tomllib.loads((root / "pyproject.toml").read_text())["project"]
    return list(project["dependencies"]) + [r for e in extras for r in project["optional-dependencies"][e]]


def wheel_cache() -> Path:
    """The judge's private cache's ``wheels/``: a wheel planted there would ship in every package built here."""
    from judge.problem.cache import cache_dir, cache_root

    base = cache_dir()
    if base is None:
        raise JudgeError(f"no private cache folder for the wheels at {cache_root()} (it must be this user's or "
                         "root's and writable by nobody else): set JUDGE_CACHE_DIR or pass --wheel-cache")
    return base / "wheels"


def _pip(*args: str) -> None:
    p = subprocess.run([sys.executable, "-m", "pip", "--disable-pip-version-check", *args], capture_output=True,
                       text=True)
    if p.returncode != 0:
        tail = "\n".join((p.stderr or p.stdout).strip().splitlines()[-6:])
        raise JudgeError(f"pip {args[0]} failed:\n{tail}")


def _dependency_wheels(deps: list[str], python: str, cache: Path) -> Path:
    """A folder of binary wheels for ``deps`` on CPython ``python`` (manylinux, this machine's arch), downloaded
    once."""
    key = hashlib.sha256(f"{python} {platform.machine()} {sorted(deps)}".encode()).hexdigest()[:16]
    folder = cache / f"py{python}-{key}"
    if (folder / ".complete").is_file():
        return folder
    folder.mkdir(parents=True, exist_ok=True)
    arch = platform.machine()
    platforms = [f"manylinux2014_{arch}", f"manylinux_2_17_{arch}", f"manylinux_2_28_{arch}"]
    _pip("download", "-q", "-d", str(folder), "--only-binary=:all:", "--python-version", python,
         *[x for p in platforms for x in ("--platform", p)], *deps)
    (folder / ".complete").write_text(" ".join(deps) + "\n")
    return folder


def build_wheels(dest: Path, pythons: tuple[str, ...] = DEFAULT_PYTHONS, cache: Path | None = None,
                 extras: tuple[str, ...] = (), progress: Progress | None = None) -> list[str]:
    """Put the judge's wheel and its dependencies' wheels (with ``extras``) for each Python version in ``dest``."""
    from judge.platforms import installed_wheel

    progress = progress or quiet()
    root = source_tree()
    cache = cache or wheel_cache()
    dest.mkdir(parents=True, exist_ok=True)
    if root is not None:
        progress.step(f"the judge's wheel, from its source tree {root} (built once per version of it)")
        own, deps = _judge_wheel(root, cache), dependencies(root, extras)
    else:
        progress.step("the judge's wheel, from the installed package (no source tree beside it)")
        folder = cache / f"judge-installed-{installed_wheel.digest(PACKAGE_NAME)}"
        built = sorted(folder.glob("*.whl"))
        own = built[0] if built else installed_wheel.rebuild(PACKAGE_NAME, folder)
        deps = installed_wheel.requirements(PACKAGE_NAME, extras)
    shutil.copy2(own, dest / own.name)
    for python in pythons:
        progress.step(f"wheels of {', '.join(deps)} for Python {python} (downloaded once into {cache})")
        for wheel in _dependency_wheels(deps, python, cache).glob("*.whl"):
            if not (dest / wheel.name).exists():
                shutil.copy2(wheel, dest / wheel.name)
    return sorted(p.name for p in dest.glob("*.whl"))


def _source_digest(root: Path) -> str:
    digest = hashlib.sha256()
    files = [root / "pyproject.toml", root / "setup.py", root / "README.md", *sorted((root / "judge").rglob("*"))]
    for path in files:
        if path.is_file() and "__pycache__" not in path.parts and path.suffix != ".pyc":
            digest.update(str(path.relative_to(root)).encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()[:16]


def _judge_wheel(root: Path, cache: Path) -> Path:
    """The judge's own wheel, built once per version of its source (three packages in CI build it once)."""
    folder = cache / f"judge-{_source_digest(root)}"
    built = sorted(folder.glob("numpy_judge-*.whl"))
    if built:
        return built[0]
    build = ["--no-build-isolation"] if _has_setuptools() else []
    with tempfile.TemporaryDirectory(prefix="judge-wheel-") as tmp:   # a copy: the build leaves nothing in the tree
        for name in ("pyproject.toml", "setup.py", "README.md"):
            shutil.copy2(root / name, Path(tmp) / name)
        (Path(tmp) / "problems").mkdir()  # judge.bundles empty: a package holds its one bundle apart, root-only
        shutil.copytree(root / "judge", Path(tmp) / "judge", ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
        _pip("wheel", "-q", "--no-deps", *build, "-w", str(Path(tmp) / "out"), tmp)
        folder.mkdir(parents=True, exist_ok=True)
        wheel = next((Path(tmp) / "out").glob("numpy_judge-*.whl"))
        shutil.copy2(wheel, folder / wheel.name)
    return folder / wheel.name


def _has_setuptools() -> bool:
    """Whether this Python can build the wheel itself (setuptools and wheel), sparing an isolated build env."""
    try:
        import setuptools  # noqa: F401
        import wheel  # noqa: F401
    except ImportError:
        return False
    return True


def copy_bundle(bundle_root: Path, dest: Path) -> None:
    """The bundle's files (no caches, no hidden files), as they are."""
    shutil.copytree(bundle_root, dest, ignore=shutil.ignore_patterns("__pycache__", ".*", "*.pyc"),
                    dirs_exist_ok=True)


def submission_name(problem_id: str) -> str:
    """The file name learners submit: the problem id as a Python module name (``sinusoidal_pe.py``)."""
    return problem_id.replace("-", "_") + ".py"


def expected_file(problem: Path) -> str:
    """The submission file name for the bundle in ``problem``, from its problem.yaml id (else the folder's name)."""
    try:
        import yaml

        return submission_name(str(yaml.safe_load((problem / "problem.yaml").read_text())["id"]))
    except Exception:  # noqa: BLE001 - a broken bundle is reported by the grading step, not here
        return submission_name(problem.resolve().name)


def warm(problem: str) -> None:
    """Compute and cache the bundle's expected outputs (JUDGE_CACHE_DIR), so the first learner's run is warm."""
    from judge.grading.run_plan import prepare_and_plan
    from judge.problem.loader import load_problem

    prepare_and_plan(load_problem(problem)).close()
