"""The package version, defined once: ``pyproject.toml`` reads it from here.

A constant rather than ``importlib.metadata`` so ``import contextpull`` reads
no distribution metadata and a bare source tree still knows its version.
"""

__version__ = "0.1.0"
