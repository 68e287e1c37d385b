"""The same findings however seedlint is run: over the whole project, over each file on
its own (as pre-commit passes changed files), and as a flake8 plugin.

The project has findings anchored away from the loader that causes them (a seeding helper
in its own module, an RNG created in a dataset module) and a ``scripts/`` folder without
``__init__.py`` that imports the package from the project root.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

PROJECT = {
    "requirements.txt": "torch==1.8.1\nnumpy\n",
    "vision/__init__.py": "",
    "vision/seeding.py": '''
import random

import numpy as np


def fixed_worker_seed(worker_id):
    np.random.seed(1234)
    random.seed(1234)
''',
    "vision/datasets.py": '''
import numpy as np
from torch.utils.data import Dataset


class JitteredCrops(Dataset):
    def __init__(self, size):
        self.size = size

    def __len__(self):
        return self.size

    def __getitem__(self, index):
        return np.random.randint(0, 32, size=2)


class NoisyLabels(Dataset):
    def __init__(self, size):
        self.size = size
        self.rng = np.random.RandomState(7)

    def __len__(self):
        return self.size

    def __getitem__(self, index):
        return self.rng.rand()
''',
    "scripts/train.py": '''
from torch.utils.data import DataLoader

from vision.datasets import JitteredCrops, NoisyLabels
from vision.seeding import fixed_worker_seed


def crops_loader(workers=4):
    return DataLoader(JitteredCrops(64), batch_size=8, num_workers=workers)


def seeded_crops_loader():
    return DataLoader(JitteredCrops(64), batch_size=8, num_workers=4, worker_init_fn=fixed_worker_seed)


def labels_loader():
    return DataLoader(NoisyLabels(64), batch_size=8, num_workers=4)
''',
    "scripts/evaluate.py": '''
from torch.utils.data import DataLoader

from vision.datasets import JitteredCrops


def evaluation_loader():
    return DataLoader(JitteredCrops(16), batch_size=16, num_workers=2)
''',
}

EXPECTED = {
    ("scripts/train.py", 8, "SDL001"),
    ("scripts/evaluate.py", 7, "SDL001"),
    ("vision/seeding.py", 7, "SDL003"),
    ("vision/datasets.py", 19, "SDL002"),
}
FINDING = re.compile(r"^(?:\./)?(?P<path>[^:\s]+\.py):(?P<line>\d+):\d+: (?P<code>SDL\d+) (?P<message>.*)$")


@pytest.fixture()
def project(tmp_path: Path) -> Path:
    for relative, text in PROJECT.items():
        path = tmp_path / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text.lstrip("\n"))
    return tmp_path


def _run(project: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", *args], cwd=project, capture_output=True, text=True, check=False,
        env={**os.environ, "PYTHONHASHSEED": "0"},
    )


def _findings(output: str):
    found = {}
    for line in output.splitlines():
        match = FINDING.match(line)
        if match:
            found[(match["path"], int(match["line"]), match["code"])] = match["message"]
    return found


def test_whole_project_run_finds_every_expected_finding(project):
    run = _run(project, "seedlint", "--no-cache", ".")
    assert set(_findings(run.stdout)) == EXPECTED, run.stdout + run.stderr
    assert run.returncode == 1


@pytest.mark.parametrize("cached", [False, True], ids=["no-cache", "cache"])
def test_each_file_alone_reports_what_the_whole_run_reports_there(project, cached):
    flags = () if cached else ("--no-cache",)
    for relative in ("scripts/train.py", "scripts/evaluate.py", "vision/seeding.py", "vision/datasets.py"):
        run = _run(project, "seedlint", *flags, relative)
        found = _findings(run.stdout)
        anchored = {key for key in found if key[0] == relative}
        assert anchored == {key for key in EXPECTED if key[0] == relative}, (relative, run.stdout, run.stderr)
        for key, message in found.items():
            if key[0] != relative:
                assert message.endswith(f"(reported for {relative}, which this finding depends on)"), message


def test_a_changed_loader_module_also_reports_what_it_breaks_elsewhere(project):
    run = _run(project, "seedlint", "--no-cache", "scripts/train.py")
    found = _findings(run.stdout)
    assert ("vision/seeding.py", 7, "SDL003") in found, run.stdout
    assert ("vision/datasets.py", 19, "SDL002") in found, run.stdout
    assert ("scripts/evaluate.py", 7, "SDL001") not in found, run.stdout
    assert "3 problems" in run.stdout and "1 fixable" in run.stdout, run.stdout


def test_a_changed_dataset_module_reports_the_loaders_it_breaks(project):
    run = _run(project, "seedlint", "--no-cache", "vision/datasets.py")
    found = _findings(run.stdout)
    assert {k for k in found if k[2] == "SDL001"} == {k for k in EXPECTED if k[2] == "SDL001"}, run.stdout


def test_fixing_one_file_edits_only_that_file(project):
    seeding_before = (project / "vision/seeding.py").read_text()
    run = _run(project, "seedlint", "--no-cache", "--fix", "scripts/train.py")
    assert run.returncode in (0, 1), run.stderr
    assert (project / "vision/seeding.py").read_text() == seeding_before
    assert "worker_init_fn=seed_worker" in (project / "scripts/train.py").read_text()


def test_flake8_reports_what_the_whole_run_reports(project):
    pytest.importorskip("flake8")
    for jobs in ("1", "2"):
        run = _run(project, "flake8", "--select=SDL", f"--jobs={jobs}", ".")
        assert set(_findings(run.stdout)) == EXPECTED, (jobs, run.stdout, run.stderr)


NESTED = {
    "pyproject.toml": '[project]\nname = "vision"\ndependencies = ["torch>=2.0"]\n',
    "vision/__init__.py": "",
    "vision/noise.py": '''
import numpy as np
from torch.utils.data import DataLoader, Dataset


class Noise(Dataset):
    def __len__(self):
        return 8

    def __getitem__(self, index):
        return np.random.rand()


def library_loader():
    return DataLoader(Noise(), num_workers=2)
''',
    "examples/legacy/requirements.txt": "torch>=1.7,<1.9\n",
    "examples/legacy/train.py": '''
from torch.utils.data import DataLoader

from vision.noise import Noise


def example_loader():
    return DataLoader(Noise(), num_workers=2)
''',
}


def test_a_folder_with_its_own_requirements_is_judged_by_them_however_run(tmp_path):
    """An example folder pins torch < 1.9 for itself; the package above needs torch >= 2.0.
    SDL001 holds for the example's loader only, in every way of running seedlint."""
    for relative, text in NESTED.items():
        path = tmp_path / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text.lstrip("\n"))
    expected = {("examples/legacy/train.py", 7, "SDL001")}
    assert set(_findings(_run(tmp_path, "seedlint", "--no-cache", ".").stdout)) == expected
    assert set(_findings(_run(tmp_path, "seedlint", "--no-cache", "examples/legacy/train.py").stdout)) == expected
    assert set(_findings(_run(tmp_path, "seedlint", "--no-cache", "vision/noise.py").stdout)) == expected
    assert set(_findings(_run(tmp_path, "flake8", "--select=SDL", ".").stdout)) == expected


def test_an_unpinned_example_folder_keeps_the_repositorys_range(tmp_path):
    """``torch`` without a version in an example's requirements.txt narrows nothing: the
    repository's own torch>=2.0 still holds there, so nothing is reported."""
    for relative, text in {**NESTED, "examples/legacy/requirements.txt": "torch\ntorchvision\n"}.items():
        path = tmp_path / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text.lstrip("\n"))
    assert _findings(_run(tmp_path, "seedlint", "--no-cache", ".").stdout) == {}
    assert _findings(_run(tmp_path, "seedlint", "--no-cache", "examples/legacy/train.py").stdout) == {}
    assert _findings(_run(tmp_path, "flake8", "--select=SDL", ".").stdout) == {}
