"""``python -m pushpull``: the same as the ``pushpull`` command."""

import sys

from .cli import main

sys.exit(main())
