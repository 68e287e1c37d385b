"""A stored result is used again only while every file the analysis read is unchanged:
not only the modules, but the shell scripts and READMEs whose commands pass options, a
folder's requirements, and the configuration files a program loads. Each test edits one
such file between two cached runs and expects the second run to see the edit."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

DATASET = '''
import argparse

import numpy as np
from omegaconf import OmegaConf
from torch.utils.data import DataLoader, Dataset


class Jitter(Dataset):
    def __len__(self):
        return 64

    def __getitem__(self, index):
        return np.random.uniform()
'''

TRAIN = DATASET + '''

def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--workers", type=int, default=0)
    args = parser.parse_args()
    for batch in DataLoader(Jitter(), batch_size=8, num_workers=args.workers):
        pass


main()
'''

CONFIGURED = DATASET + '''

def main():
    cfg = OmegaConf.load("configs/train.yaml")
    for batch in DataLoader(Jitter(), batch_size=8, num_workers=cfg.workers):
        pass


main()
'''


def _codes(project: Path) -> list:
    """Each finding as ``SDL001 error`` or ``SDL001 warning``."""
    run = subprocess.run(
        [sys.executable, "-m", "seedlint", "--output-format", "json", "."], cwd=project, capture_output=True,
        text=True, check=False,
    )
    assert run.returncode in (0, 1), run.stderr
    return [f"{finding['code']} {finding['severity']}" for finding in json.loads(run.stdout)["diagnostics"]]


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    later = time.time() + 2  # a modification time no file system rounds back to the last write's
    os.utime(path, (later, later))


def test_a_script_that_starts_workers_is_read_again_when_edited(tmp_path):
    _write(tmp_path / "requirements.txt", "torch==1.8.1\n")
    _write(tmp_path / "train.py", TRAIN)
    _write(tmp_path / "scripts" / "train.sh", "python train.py --workers 0\n")
    assert _codes(tmp_path) == ["SDL001 warning"]  # only an option no command sets starts workers
    _write(tmp_path / "scripts" / "train.sh", "WORKERS=4\npython train.py --workers $WORKERS\n")
    assert _codes(tmp_path) == ["SDL001 error"]
    _write(tmp_path / "scripts" / "train.sh", "python train.py\n")
    assert _codes(tmp_path) == ["SDL001 warning"]


def test_a_new_readme_command_is_seen_by_a_cached_run(tmp_path):
    _write(tmp_path / "requirements.txt", "torch==1.8.1\n")
    _write(tmp_path / "train.py", TRAIN)
    assert _codes(tmp_path) == ["SDL001 warning"]
    _write(tmp_path / "README.md", "# Train\n\n```bash\npython train.py --workers=8\n```\n")
    assert _codes(tmp_path) == ["SDL001 error"]


def test_a_folder_requirements_edit_is_seen_by_a_cached_run(tmp_path):
    _write(tmp_path / "setup.py", "from setuptools import setup\nsetup(name='x')\n")
    _write(tmp_path / "examples" / "requirements.txt", "torch==1.8.1\n")
    _write(tmp_path / "examples" / "train.py", TRAIN.replace("default=0", "default=4"))
    assert _codes(tmp_path) == ["SDL001 error"]
    _write(tmp_path / "examples" / "requirements.txt", "torch==2.1.0\n")
    assert _codes(tmp_path) == []


def test_a_loaded_configuration_edit_is_seen_by_a_cached_run(tmp_path):
    _write(tmp_path / "requirements.txt", "torch==1.8.1\n")
    _write(tmp_path / "train.py", CONFIGURED)
    _write(tmp_path / "configs" / "train.yaml", "workers: 4\n")
    assert _codes(tmp_path) == ["SDL001 error"]
    _write(tmp_path / "configs" / "train.yaml", "workers: 0\n")
    assert _codes(tmp_path) == []


def test_a_file_that_mentioned_nothing_is_read_again_once_it_changes(tmp_path):
    """Files that mention no trigger are remembered by size and modification time and not
    read again; an edit to one (here: it gains a loader) is seen, in a whole run and in a run
    over that file alone."""
    _write(tmp_path / "requirements.txt", "torch==1.8.1\n")
    _write(tmp_path / "train.py", TRAIN.replace("default=0", "default=4"))
    _write(tmp_path / "helpers.py", "def square(x):\n    return x * x\n")
    assert _codes(tmp_path) == ["SDL001 error"]
    assert _codes(tmp_path) == ["SDL001 error"]
    _write(tmp_path / "helpers.py", TRAIN.replace("default=0", "default=2").replace("Jitter", "Noise"))
    assert _codes(tmp_path) == ["SDL001 error", "SDL001 error"]
    _write(tmp_path / "helpers.py", "def cube(x):\n    return x * x * x\n")
    assert _codes(tmp_path) == ["SDL001 error"]
    _write(tmp_path / "helpers.py", TRAIN.replace("default=0", "default=2").replace("Jitter", "Noise"))
    run = subprocess.run(
        [sys.executable, "-m", "seedlint", "--output-format", "json", "helpers.py"], cwd=tmp_path,
        capture_output=True, text=True, check=False,
    )
    assert [d["path"] for d in json.loads(run.stdout)["diagnostics"]] == ["helpers.py"]
