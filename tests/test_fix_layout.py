"""What ``--fix`` writes is what a careful human would commit: on a file that isort and
black already accept, the fixed file is accepted too (imports in their section and order,
long calls split the way black splits them), for every fixture with a fix."""

from __future__ import annotations

import os
from pathlib import Path

import black
import isort
import pytest

from fixture_cases import all_cases, run_case

FIXED_CASES = [case for case in all_cases() if any(case.source.parent.glob(f"{case.name}.fixed.py")) or (
    case.is_dir and any(case.source.rglob("*.fixed.py")))]


def _isort_clean(text: str, path: Path, project: Path) -> bool:
    config = isort.Config(profile="black", src_paths=(str(project), str(path.parent)), line_length=88)
    return isort.check_code(text, config=config, file_path=path)


def _black_clean(text: str) -> bool:
    try:
        return black.format_str(text, mode=black.Mode(line_length=88)) == text
    except black.InvalidInput:
        return False


@pytest.mark.parametrize("case", FIXED_CASES, ids=[c.id for c in FIXED_CASES])
def test_fixed_files_keep_isort_and_black_happy(case, tmp_path):
    project, settings, checked, fixed, changed = run_case(case, tmp_path)
    assert changed, "a fixture with a .fixed.py file is changed by --fix"
    for relative, new in changed.items():
        path = project / relative
        original = path.read_text()
        if _isort_clean(original, path, project):
            assert _isort_clean(new, path, project), f"{relative}: isort would reorder the fixed imports"
        if _black_clean(original):
            assert _black_clean(new), f"{relative}: black would reformat the fixed file:\n" + "".join(
                line for line in _diff(new, black.format_str(new, mode=black.Mode(line_length=88)))
            )


def _diff(a: str, b: str):
    import difflib

    return difflib.unified_diff(a.splitlines(keepends=True), b.splitlines(keepends=True))


def test_some_fixture_is_checked_by_both(tmp_path):
    """The comparison above is not vacuous: some originals pass both tools."""
    both = 0
    for case in FIXED_CASES:
        target = tmp_path / case.id.replace("/", "_")
        target.mkdir()
        project = case.install(target)
        for path in project.rglob("*.py"):
            text = path.read_text()
            if _isort_clean(text, path, project) and _black_clean(text):
                both += 1
    assert both >= 5


LONG_LOADER = '''import numpy as np
from torch.utils.data import DataLoader, Dataset


class Jitter(Dataset):
    def __len__(self):
        return 4

    def __getitem__(self, index):
        return np.random.rand()


def make_loader(batch_size):
    return DataLoader(Jitter(), batch_size=batch_size, shuffle=True, num_workers=4)
'''


ONE_LINE = "    return DataLoader(Jitter(), batch_size=batch_size, shuffle=True, num_workers=4, worker_init_fn=seed_worker)\n"
ARGUMENTS_LINE = (
    "    return DataLoader(\n"
    "        Jitter(), batch_size=batch_size, shuffle=True, num_workers=4, worker_init_fn=seed_worker\n"
    "    )\n"
)
ONE_PER_LINE = (
    "    return DataLoader(\n        Jitter(),\n        batch_size=batch_size,\n        shuffle=True,\n"
    "        num_workers=4,\n        worker_init_fn=seed_worker,\n    )\n"
)


@pytest.mark.parametrize("config_name, config, layout", [
    ("pyproject.toml", '[project]\nname = "demo"\ndependencies = ["torch<1.9"]\n', ONE_PER_LINE),
    ("pyproject.toml", '[project]\nname = "demo"\ndependencies = ["torch<1.9"]\n\n[tool.black]\nline-length = 120\n', ONE_LINE),
    ("pyproject.toml", '[project]\nname = "demo"\ndependencies = ["torch<1.9"]\n\n[tool.ruff]\nline-length = 111\n', ONE_LINE),
    ("pyproject.toml", '[project]\nname = "demo"\ndependencies = ["torch<1.9"]\n\n[tool.ruff]\nline-length = 110\n', ARGUMENTS_LINE),
    ("setup.cfg", "[flake8]\nmax-line-length = 120\n", ONE_LINE),
    ("tox.ini", "[flake8]\nmax_line_length = 100\n", ARGUMENTS_LINE),
    (".flake8", "[flake8]\nmax-line-length = 79\n", ONE_PER_LINE),
])
def test_the_project_line_length_decides_whether_a_fixed_call_is_split(tmp_path, config_name, config, layout):
    import subprocess
    import sys

    (tmp_path / "train.py").write_text(LONG_LOADER)
    (tmp_path / config_name).write_text(config)
    if config_name != "pyproject.toml":
        (tmp_path / "requirements.txt").write_text("torch==1.8.1\n")
    completed = subprocess.run([sys.executable, "-m", "seedlint", "--no-cache", "--fix", "."], cwd=tmp_path,
                               capture_output=True, text=True, timeout=300)
    assert completed.returncode == 0, completed.stdout + completed.stderr
    fixed = (tmp_path / "train.py").read_text()
    assert fixed.endswith(layout), fixed
