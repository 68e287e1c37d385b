"""Two ``seedlint --fix`` runs on the same tree at once never corrupt a file: afterwards
every file holds either its original or its fixed text, parses, and a final ``--fix``
changes nothing."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path
from typing import Dict

import libcst as cst
import pytest

from seedlint import legacy_names

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "SDL001"
ROUNDS = 2
PYPROJECT = '[project]\nname = "concurrent"\nversion = "0"\ndependencies = ["torch==1.8.1"]\n'


def build_tree(into: Path) -> Path:
    """Every SDL001 fixture (inputs only) side by side in one project."""
    into.mkdir()
    (into / "pyproject.toml").write_text(PYPROJECT)
    for entry in sorted(FIXTURES.iterdir()):
        if entry.is_dir():
            shutil.copytree(entry, into / entry.name, ignore=shutil.ignore_patterns(
                "*.fixed.py", "expected", "seedlint.args", "pyproject.toml", "requirements*.txt"))
        elif entry.suffix == ".py" and not entry.name.endswith(".fixed.py"):
            shutil.copy(entry, into / entry.name)
    return into


def python_files(tree: Path) -> Dict[str, bytes]:
    return {str(p.relative_to(tree)): p.read_bytes() for p in sorted(tree.rglob("*.py"))}


def fix(tree: Path, *extra: str) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "seedlint", "--fix", *extra, "."], cwd=tree,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


@pytest.fixture(scope="module")
def fixed_once(tmp_path_factory) -> Dict[str, bytes]:
    tree = build_tree(tmp_path_factory.mktemp("sequential") / "tree")
    process = fix(tree, "--no-cache")
    _, stderr = process.communicate(timeout=300)
    assert process.returncode in (0, 1) and not stderr, stderr  # 1: findings without a fix remain
    return python_files(tree)


@pytest.mark.parametrize("round_", range(ROUNDS))
def test_two_concurrent_fix_runs_never_corrupt_a_file(round_, tmp_path, fixed_once):
    tree = build_tree(tmp_path / "tree")
    original = python_files(tree)
    assert original != fixed_once, "the tree has something to fix"
    # Round 0 shares the facts cache between the two runs; the others do without.
    extra = () if round_ == 0 else ("--no-cache",)
    first, second = fix(tree, *extra), fix(tree, *extra)
    outputs = [process.communicate(timeout=300) for process in (first, second)]
    for process, (_, stderr) in zip((first, second), outputs):
        assert "Traceback" not in stderr, stderr
        # The slower run may find a file already fixed under it: it says so and leaves it.
        for line in stderr.splitlines():
            assert "changed on disk" in line, stderr
        assert process.returncode in (0, 1, 2), stderr

    after = python_files(tree)
    assert set(after) == set(original), "no file appeared (temporaries) or vanished"
    for name, data in after.items():
        assert data in (original[name], fixed_once[name]), name
        checked, _ = legacy_names.parseable(data.decode("utf-8"))  # a Python 3.6 fixture compiles there
        cst.parse_module(checked)
        compile(checked, name, "exec", dont_inherit=True)
    assert not list(tree.rglob(".seedlint-*.tmp"))

    final = fix(tree, "--no-cache")
    _, stderr = final.communicate(timeout=300)
    assert final.returncode in (0, 1) and not stderr, stderr
    assert python_files(tree) == fixed_once, "a final --fix finishes the job and then changes nothing"
    again = fix(tree, "--no-cache")
    again.communicate(timeout=300)
    assert python_files(tree) == fixed_once
