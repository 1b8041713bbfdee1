"""`pip install .` in a fresh venv gives a working `adspec` and installs nothing generic at top level."""
import shutil
import site
import subprocess
import venv
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
BUILD_LITTER = shutil.ignore_patterns(".git", "__pycache__", "*.egg-info", "build", "dist", ".pytest_cache",
                                      ".hypothesis", "out")


def _skip_litter(directory, names):
    """What not to copy into the build: VCS data, caches, and any virtual environment (say a
    .venv inside the checkout, where the README's commands may have been run)."""
    return set(BUILD_LITTER(directory, names)) | {n for n in names if (Path(directory, n) / "pyvenv.cfg").exists()}


def _running_site_packages() -> list[str]:
    """Where the Python running this test finds its packages: a venv's own site-packages, or
    the system's (the dependencies were installed there, by `pip install '.[test]'`)."""
    dirs = list(site.getsitepackages())
    if site.ENABLE_USER_SITE:
        dirs.append(site.getusersitepackages())
    return [d for d in dirs if Path(d).is_dir()]


def _fresh_venv(env_dir: Path) -> Path:
    """A new venv that sees the running interpreter's packages (after its own): the
    dependencies are found without a download, and adspec itself is not (path entries added
    by a .pth file do not run that directory's own .pth files, where an editable install lives)."""
    venv.create(env_dir, with_pip=True)
    py = env_dir / "bin" / "python"
    purelib = subprocess.run([str(py), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                             capture_output=True, text=True, check=True).stdout.strip()
    (Path(purelib) / "running_test_environment.pth").write_text("\n".join(_running_site_packages()) + "\n")
    return py


@pytest.mark.compile
def test_fresh_venv_install(tmp_path):
    if not (ROOT / "pyproject.toml").exists():
        pytest.skip("not running from a source checkout")
    env_dir = tmp_path / "venv"
    py = _fresh_venv(env_dir)
    build = tmp_path / "src"
    shutil.copytree(ROOT, build, ignore=_skip_litter)
    # --no-deps keeps the test fast: the dependencies come from the running environment
    install = subprocess.run([str(py), "-m", "pip", "install", "-q", "--no-deps", str(build)],
                             capture_output=True, text=True, cwd=tmp_path)
    assert install.returncode == 0, install.stderr[-2000:]
    result = subprocess.run([str(env_dir / "bin" / "adspec"), "--help"], capture_output=True, text=True)
    assert result.returncode == 0 and "unparse" in result.stdout, result.stderr[-2000:]
    site_dir = subprocess.run([str(py), "-c", "import adspec, os; print(os.path.dirname(adspec.__file__))"],
                              capture_output=True, text=True, cwd=tmp_path).stdout.strip()
    assert site_dir.startswith(str(env_dir)), site_dir
    for generic in ("engine", "rules", "backends", "frontends", "analyses"):
        r = subprocess.run([str(py), "-c", f"import {generic}"], capture_output=True, text=True, cwd=tmp_path)
        assert r.returncode != 0, f"`import {generic}` should fail"
    assert subprocess.run([str(py), "-c", "import adspec.engine.il, adspec.frontends, adspec.backends"],
                          cwd=tmp_path).returncode == 0
    # every mode runs from the installed package alone (a subpackage missing from pyproject
    # fails here, not only in the user's hands)
    source = tmp_path / "poly.f90"
    source.write_text("subroutine poly(x, y)\n  real(8) :: x, y\n  y = x*x + 3.0d0*x\nend subroutine\n")
    for mode in ("-d", "-vector", "-b"):
        run = subprocess.run([str(env_dir / "bin" / "adspec"), mode, "-head", "poly(y)/(x)", str(source),
                              "-O", str(tmp_path / "out")], capture_output=True, text=True, cwd=tmp_path)
        assert run.returncode == 0, (mode, run.stderr[-2000:])
    # the runtime of adjoint code is package data: the installed command copies it out
    copied = subprocess.run([str(env_dir / "bin" / "adspec"), "runtime", "-O", str(tmp_path / "rt")],
                            capture_output=True, text=True)
    assert copied.returncode == 0, copied.stderr
    for name in ("adStack.h", "adStack.c", "adStack_cuda.cuh"):
        assert (tmp_path / "rt" / name).read_bytes() == (ROOT / "backends" / "runtime" / name).read_bytes()


def test_every_package_folder_is_installed():
    """Each folder with an __init__.py under the mapped top-level folders is a package that
    pyproject.toml lists: an unlisted one is left out of `pip install .`."""
    import tomllib
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    listed = set(config["packages"])
    folders = {folder: package for package, folder in config["package-dir"].items()}
    for top, package in folders.items():
        for init in (ROOT / top).rglob("__init__.py"):
            sub = init.parent.relative_to(ROOT / top).parts
            assert ".".join((package,) + sub) in listed, f"{init.parent} is not in pyproject's packages"
