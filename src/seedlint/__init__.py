"""seedlint: static analysis for PyTorch data-loading bugs that silently ruin training runs."""

__version__ = "0.1.0"

__all__ = ["__version__"]
