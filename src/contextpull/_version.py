"""The distribution name and the package version, defined once: ``pyproject.toml`` reads the version here.

A constant rather than ``importlib.metadata`` so ``import contextpull`` reads
no distribution metadata and a bare source tree still knows its version.
"""

__version__ = "0.1.0"
#: the name the package is installed under (``pip install contextpull``)
DISTRIBUTION = "contextpull"
