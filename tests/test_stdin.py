"""stdin as in ruff: ``seedlint -`` checks the text read from stdin and shows it as ``-``;
``--stdin-filename F`` alone reads stdin as the file ``F`` (its project and versions);
``--fix`` on stdin prints the fixed text and writes no file."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

SOURCE = """\
import numpy as np
from torch.utils.data import DataLoader, Dataset


class Noise(Dataset):
    def __len__(self):
        return 8

    def __getitem__(self, index):
        return np.random.rand()


loader = DataLoader(Noise(), num_workers=2)
for epoch in range(3):
    for batch in loader:
        pass
"""


def seedlint(project: Path, *args: str):
    return subprocess.run(
        [sys.executable, "-m", "seedlint", "--no-cache", *args], cwd=project, input=SOURCE,
        capture_output=True, text=True, timeout=300,
    )


def project(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    root.mkdir()
    (root / "requirements.txt").write_text("torch==1.8.1\n")
    return root


def test_dash_alone_reads_stdin_and_shows_it_as_dash(tmp_path):
    done = seedlint(project(tmp_path), "-")
    assert done.returncode == 1, done.stderr
    assert done.stdout.startswith("-:13:10: SDL001 ")


def test_stdin_filename_alone_reads_stdin_as_that_file(tmp_path):
    root = project(tmp_path)
    (root / "other.py").write_text(SOURCE)  # not checked: only stdin is
    done = seedlint(root, "--stdin-filename", "train.py")
    assert done.returncode == 1, done.stderr
    assert done.stdout.splitlines()[0].startswith("train.py:13:10: SDL001 ")
    assert "other.py" not in done.stdout


def test_fix_on_stdin_prints_the_fixed_text_and_writes_nothing(tmp_path):
    root = project(tmp_path)
    done = seedlint(root, "--fix", "-")
    assert "worker_init_fn=seed_worker" in done.stdout
    assert sorted(p.name for p in root.iterdir()) == ["requirements.txt"]
