"""Entry point for ``python -m seedlint``."""

import sys

from seedlint.cli import main

sys.exit(main())
