"""Where this interpreter's installed packages are, to hand them to a virtual environment a test
makes (a wheel's, a workflow's Python, a template copy's)."""

from __future__ import annotations

import sys

__all__ = ["package_dirs"]


def package_dirs() -> str:
    """Every folder of `sys.path` packages are installed in, one per line, as a `.pth` file
    lists them: the environment's own site-packages and any a `.pth` file added (an environment
    layered over another, as the template test makes, has its packages in the latter)."""
    return "".join(f"{path}\n" for path in sys.path if path.endswith("-packages"))
