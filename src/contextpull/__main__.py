"""``python -m contextpull``: the same command as the ``contextpull`` script."""

from .cli import script

script()
