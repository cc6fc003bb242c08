"""Bridges from ContextPull to the ``pushpull`` harness.

Adapters that expose ContextPull through the harness protocol (one-shot
``search``, the API tool loop, Claude Code) and ``bench``, the one-command
evaluation of a folder. The core never imports this package; this package
imports ``pushpull``, never the reverse.
"""
