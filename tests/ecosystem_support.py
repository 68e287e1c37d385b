"""A small buggy two-module project and a way to run the real commands on it, shared by the
configuration, output-format, flake8-option and pre-commit tests."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Optional

BIN = Path(sys.executable).parent

DATASET = '''\
"""Augmented samples."""
import numpy as np
from torch.utils.data import Dataset


class NoisyDataset(Dataset):
    def __len__(self):
        return 64

    def __getitem__(self, index):
        return index + np.random.rand()
'''

TRAIN = '''\
"""Training entry point."""
from torch.utils.data import DataLoader

from data import NoisyDataset


def make_loader():
    return DataLoader(NoisyDataset(), batch_size=8, num_workers=2)
'''

TRAIN_DIAGNOSTIC = "train.py:8:12: SDL001 "
"""How the check reports TRAIN's loader (1-based line and column)."""

WRAPPER_TRAIN = '''\
"""Training with an in-house loader wrapper that is not a DataLoader subclass."""
from mylib.loading import FastLoader

from data import NoisyDataset


def make_loader(workers):
    return FastLoader(dataset=NoisyDataset(), batch_size=8, num_workers=workers)
'''


def write_project(root: Path, train: str = TRAIN, pyproject: Optional[str] = None) -> Path:
    """data.py + train.py; a setup.cfg marks the root so nothing above it is read."""
    root.mkdir(parents=True, exist_ok=True)
    (root / "data.py").write_text(DATASET)
    (root / "train.py").write_text(train)
    (root / "setup.cfg").write_text("[metadata]\nname = buggy\n")
    if pyproject is not None:
        (root / "pyproject.toml").write_text(pyproject)
    return root


def run(command: str, *args: str, cwd: Path, env: Optional[dict] = None, **kwargs) -> subprocess.CompletedProcess:
    """A console script installed beside this Python (seedlint, flake8), for real."""
    environment = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "FORCE_COLOR")}
    environment.update(env or {})
    return subprocess.run(
        [str(BIN / command), *args], cwd=cwd, env=environment, capture_output=True, text=True, timeout=300, **kwargs
    )


def read_terminal(leader: int) -> bytes:
    """Everything written to a pseudo-terminal until its other end is closed (then closes it)."""
    shown = b""
    while True:
        try:
            chunk = os.read(leader, 65536)
        except OSError:
            break
        if not chunk:
            break
        shown += chunk
    os.close(leader)
    return shown
