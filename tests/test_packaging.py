"""`pip install .` in a fresh venv gives a working `adspec` and installs nothing generic at top level."""
import subprocess
import venv
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.compile
def test_fresh_venv_install(tmp_path):
    if not (ROOT / "pyproject.toml").exists():
        pytest.skip("not running from a source checkout")
    env_dir = tmp_path / "venv"
    # system site packages: the dependencies are already installed, so no download is needed;
    # --no-deps keeps the test fast.
    venv.create(env_dir, with_pip=True, system_site_packages=True)
    py = env_dir / "bin" / "python"
    build = tmp_path / "src"
    subprocess.run(["cp", "-r", str(ROOT), str(build)], check=True)
    subprocess.run([str(py), "-m", "pip", "install", "-q", "--no-deps", str(build)],
                   check=True, capture_output=True, cwd=tmp_path)
    result = subprocess.run([str(env_dir / "bin" / "adspec"), "--help"], capture_output=True, text=True)
    assert result.returncode == 0 and "unparse" in result.stdout
    site = subprocess.run([str(py), "-c", "import adspec, os; print(os.path.dirname(adspec.__file__))"],
                          capture_output=True, text=True, cwd=tmp_path).stdout.strip()
    assert site.startswith(str(env_dir)), site
    for generic in ("engine", "rules", "backends", "frontends", "analyses"):
        r = subprocess.run([str(py), "-c", f"import {generic}"], capture_output=True, text=True, cwd=tmp_path)
        assert r.returncode != 0, f"`import {generic}` should fail"
    assert subprocess.run([str(py), "-c", "import adspec.engine.il, adspec.frontends, adspec.backends"],
                          cwd=tmp_path).returncode == 0
