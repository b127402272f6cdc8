"""steadypress: publish the markdown articles pushed to content/, at once, with nothing lost."""

__all__ = ["__version__"]

__version__ = "0.2.0"
