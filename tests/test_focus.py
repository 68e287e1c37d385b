"""Which loaders a run over some files judges: the programs those files belong to."""

from __future__ import annotations

from pathlib import Path

from seedlint.analysis import inputs
from seedlint.analysis.files import ProjectFiles
from seedlint.analysis.focus import focused_modules
from seedlint.discovery import ProjectTree

PROJECT = {
    "data/__init__.py": "from .scans import NoisyScans\n",
    "data/scans.py": "import numpy as np\n\n\nclass NoisyScans:\n    pass\n",
    "data/unused.py": "class Unused:\n    pass\n",
    "loaders.py": "from torch.utils.data import DataLoader\n\n\ndef make_loader(dataset):\n    return DataLoader(dataset)\n",
    "train.py": "from data import NoisyScans\nfrom loaders import make_loader\n\nmake_loader(NoisyScans())\n",
    "evaluate.py": "import importlib\n\nmodule = importlib.import_module('metrics.scores')\n",
    "metrics/__init__.py": "",
    "metrics/scores.py": "def score(x):\n    return x\n",
    "tools/convert.py": "from torch.utils.data import DataLoader\n\nDataLoader([])\n",
    "registry_user.py": "BUILD = dict(type='NoisyScans')\n",
}


def _focus(tmp_path: Path, changed: str, files: dict = PROJECT):
    for relative, text in files.items():
        path = tmp_path / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    python = [str(tmp_path / p) for p in files if p.endswith(".py")]
    found = focused_modules([str(tmp_path / changed)], ProjectFiles(python), ProjectTree(str(tmp_path), inputs.read))
    return None if found is None else sorted(str(Path(p).relative_to(tmp_path)) for p in found)


def test_a_dataset_module_brings_in_every_program_that_imports_it(tmp_path):
    assert _focus(tmp_path, "data/scans.py") == [
        "data/__init__.py", "data/scans.py", "loaders.py", "registry_user.py", "train.py",
    ]  # loaders.py: train.py imports both; registry_user.py names its class


def test_a_script_brings_in_what_it_imports_and_nothing_else(tmp_path):
    assert _focus(tmp_path, "train.py") == ["data/__init__.py", "data/scans.py", "loaders.py", "train.py"]


def test_imports_by_name_at_run_time_count(tmp_path):
    assert _focus(tmp_path, "metrics/scores.py") == ["evaluate.py", "metrics/__init__.py", "metrics/scores.py"]


def test_a_file_no_program_reaches_is_alone(tmp_path):
    assert _focus(tmp_path, "tools/convert.py") == ["tools/convert.py"]


def test_a_class_a_configuration_file_names_makes_every_loader_count(tmp_path):
    files = {**PROJECT, "configs/train.yaml": "dataset:\n  _target_: data.scans.NoisyScans\n"}
    assert _focus(tmp_path, "data/scans.py", files) is None


def test_a_comment_or_a_string_naming_the_module_is_not_an_import(tmp_path):
    files = {**PROJECT, "notes.py": "# see loaders.py\nHELP = 'loaders are built in loaders'\n"}
    assert "notes.py" not in _focus(tmp_path, "loaders.py", files)
