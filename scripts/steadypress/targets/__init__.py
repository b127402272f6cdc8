"""Publishers, one module per kind, behind the one small `Target` protocol; `registry` lists
the kinds."""

from steadypress.targets.base import BatchTarget, Receipt, StyledTarget, Target

__all__ = ["BatchTarget", "Receipt", "StyledTarget", "Target"]
