"""``python -m contextpull``: the same command as the ``contextpull`` script."""

import sys

from .cli import main

sys.exit(main())
