"""`python3 -m pythonref ...`: see cli.py."""

import sys

from .cli import main

sys.exit(main())
