"""steadypress as a package: the wheel and sdist build, and the wheel installs and runs in a
fresh environment outside the repository."""

from __future__ import annotations

import os
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest

from steadypress import __version__
from tests.helpers import Repo, article
from tests.packages import package_dirs

pytestmark = pytest.mark.slow

PROJECT = Path(__file__).resolve().parent.parent


def test_the_wheel_installs_and_runs_outside_the_repository(tmp_path: Path) -> None:
    """`python -m build` makes both archives (theme and workflow templates inside, one version
    number); the wheel, installed in a new virtual environment, publishes a blog and runs init."""
    dist = tmp_path / "dist"
    subprocess.run(
        [sys.executable, "-m", "build", "--no-isolation", "--outdir", str(dist), str(PROJECT)],
        check=True, capture_output=True, cwd=tmp_path,
    )  # fmt: skip
    wheel = dist / f"steadypress-{__version__}-py3-none-any.whl"
    sdist = dist / f"steadypress-{__version__}.tar.gz"
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
    assert "steadypress/theme/article.html" in names
    assert "steadypress/workflows/publish.yml" in names
    with tarfile.open(sdist) as archive:
        assert any(name.endswith("theme/style.css") for name in archive.getnames())

    home = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(home)], check=True)
    # The dependencies come from the test environment (no network in tests); steadypress
    # itself only from the wheel.
    packages = next(home.glob("lib/python*/site-packages"))
    (packages / "dependencies.pth").write_text(package_dirs())
    pip = [str(home / "bin" / "python"), "-m", "pip", "install", "--no-index", "--no-deps", "-q"]
    subprocess.run([*pip, str(wheel)], check=True)
    where = subprocess.run(
        [str(home / "bin" / "python"), "-c", "import steadypress; print(steadypress.__file__)"],
        check=True, capture_output=True, text=True, cwd=tmp_path,
    ).stdout  # fmt: skip
    assert where.startswith(str(home)), where

    blog = Repo(tmp_path / "blog")
    blog.commit(**{"content/first.md": article("First")})
    environment = {key: value for key, value in os.environ.items() if key != "PYTHONPATH"}
    steadypress = str(home / "bin" / "steadypress")
    ran = subprocess.run([steadypress, "run", "--repo", str(blog.root)], env=environment,
                         capture_output=True, text=True, check=False)  # fmt: skip
    assert ran.returncode == 0, ran.stderr
    assert (blog.root / "_site/first/index.html").exists()
    init = subprocess.run(
        [steadypress, "init", "--repo", str(blog.root), "--force",
         "--action", "acme/steadypress@0123456789abcdef0123456789abcdef01234567"],
        env=environment, capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert init.returncode == 0, init.stderr
    assert (blog.root / ".github/workflows/steadypress-publish.yml").exists()
