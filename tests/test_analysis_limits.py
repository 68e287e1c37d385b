"""The analysis's bounds are guards against pathological code, and say when they cut.

- Ordinary chains (a loader four calls below the script that names its dataset) are judged
  per call path: the fixtures ``SDL001/context_four_calls_deep`` and its clean twin.
- A program that does hit a bound is still checked, and a run under ``SEEDLINT_TIMINGS``
  reports each bound it hit as ``"limit <name>": count`` beside the phase timings.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

DATASET = '''
import numpy as np
from torch.utils.data import Dataset


class Noisy(Dataset):
    def __len__(self):
        return 8

    def __getitem__(self, index):
        return np.random.rand()
'''


def _run(project: Path, train: str) -> tuple:
    """Check a project of ``sets.py`` and ``train.py``: its output and the timings report."""
    project.mkdir()
    (project / "requirements.txt").write_text("torch==1.8.1\n")
    (project / "sets.py").write_text(DATASET)
    (project / "train.py").write_text(train)
    timings = project.parent / f"{project.name}-timings.json"
    env = {**os.environ, "SEEDLINT_TIMINGS": str(timings)}
    completed = subprocess.run(
        [sys.executable, "-m", "seedlint", "--no-cache", "--jobs", "1", "."],
        cwd=project, env=env, capture_output=True, text=True, timeout=300,
    )
    return completed.stdout + completed.stderr, json.loads(timings.read_text())


def test_wide_union_is_reported_and_still_checked(tmp_path):
    classes = "\n".join(f"class Option{i}:\n    pass\n" for i in range(300))
    table = ", ".join(f'"o{i}": Option{i}' for i in range(300))
    output, report = _run(tmp_path / "wide", (
        "import sys\nfrom torch.utils.data import DataLoader\nfrom sets import Noisy\n\n"
        f"{classes}\nTABLE = {{{table}}}\n\n\n"
        "def main():\n"
        "    choice = TABLE[sys.argv[1]]\n"
        "    loader = DataLoader(Noisy(), num_workers=4, collate_fn=choice)\n"
        "    for epoch in range(3):\n"
        "        for batch in loader:\n"
        "            pass\n\n\nmain()\n"
    ))
    assert "SDL001" in output, output
    assert report.get("limit value set width", 0) >= 1, report


def test_ordinary_project_hits_no_bound(tmp_path):
    output, report = _run(tmp_path / "plain", (
        "from torch.utils.data import DataLoader\nfrom sets import Noisy\n\n\n"
        "def build(workers):\n    return DataLoader(Noisy(), num_workers=workers)\n\n\n"
        "for epoch in range(3):\n    for batch in build(4):\n        pass\n"
    ))
    assert "SDL001" in output, output
    assert not [key for key in report if key.startswith("limit ")], report
