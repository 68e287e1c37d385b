"""Test configuration: make the tests directory importable for shared helpers."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
