"""Which files a directory run checks: .gitignore patterns are read as git reads them
(``git ls-files --exclude-standard`` on the same tree is the reference)."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from seedlint.config import Settings
from seedlint.discovery import discover

FILES = [
    "train.py",
    "datasets/coco.py",              # root-anchored `/datasets`: ignored here ...
    "pkg/datasets/voc.py",           # ... but not one level down
    "pkg/build/generated.py",        # `build/`: a directory at any depth
    "pkg/build.py",                  # a file named like the directory pattern stays
    "pkg/models/net.gen.py",         # `*.gen.py` at any depth
    "pkg/models/keep.gen.py",        # re-included by `!keep.gen.py`
    "docs/conf.py",                  # `docs/*.py`: anchored by its inner slash
    "pkg/docs/api.py",               # so a nested docs/ stays
    "pkg/local/scratch.py",          # `/local` in pkg/.gitignore: anchored to pkg/
    "pkg/sub/local/kept.py",
    "tools/scratch_a.py",            # `scratch_*.py` ...
    "tools/scratch_keep_a.py",       # ... re-included by `!scratch_keep*.py` ...
    "tools/scratch_keep_not.py",     # ... and ignored again by a later line: the last match wins
    "pkg/tmp_one.py",                # `tmp_*.py` at the root ...
    "pkg/tmp_wanted.py",             # ... re-included by pkg/.gitignore
]
ROOT_GITIGNORE = (
    "/datasets\nbuild/\n*.gen.py\n!keep.gen.py\ndocs/*.py\n"
    "scratch_*.py\n!scratch_keep*.py\nscratch_keep_not.py\ntmp_*.py\n"
)
NESTED_GITIGNORE = "/local\n!tmp_wanted.py\n"


@pytest.fixture
def tree(tmp_path):
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    for relative in FILES:
        path = tmp_path / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("import torch\n")
    (tmp_path / ".gitignore").write_text(ROOT_GITIGNORE)
    (tmp_path / "pkg" / ".gitignore").write_text(NESTED_GITIGNORE)
    subprocess.run(["git", "init", "-q"], cwd=tmp_path, check=True)
    return tmp_path


def git_kept(tree: Path) -> set:
    listed = subprocess.run(
        ["git", "ls-files", "--others", "--cached", "--exclude-standard"], cwd=tree,
        capture_output=True, text=True, check=True,
    ).stdout.split()
    return {path for path in listed if path.endswith(".py")}


def test_directory_run_keeps_what_git_keeps(tree):
    found = {os.path.relpath(t.absolute, tree).replace(os.sep, "/") for t in discover([str(tree)], Settings())}
    expected = git_kept(tree)
    assert "datasets/coco.py" not in expected and "pkg/datasets/voc.py" in expected  # the reference reads the tree as meant
    assert {"tools/scratch_keep_a.py", "pkg/tmp_wanted.py"} <= expected
    assert not {"tools/scratch_a.py", "tools/scratch_keep_not.py", "pkg/tmp_one.py"} & expected
    assert found == expected


def test_files_git_tracks_are_kept_whatever_gitignore_says(tree):
    # Committed before a `build/` or `/datasets` line was added (or with `git add -f`): git
    # keeps tracking them, and the analysis needs the dataset code they hold.
    (tree / "datasets" / "loaders.py").write_text("import torch\n")
    (tree / "datasets" / "nested").mkdir()
    (tree / "datasets" / "nested" / "augment.py").write_text("import numpy\n")
    subprocess.run(["git", "add", "-f", "datasets/coco.py", "datasets/nested/augment.py", "tools/scratch_a.py"], cwd=tree, check=True)
    found = {os.path.relpath(t.absolute, tree).replace(os.sep, "/") for t in discover([str(tree)], Settings())}
    expected = git_kept(tree)
    assert {"datasets/coco.py", "datasets/nested/augment.py", "tools/scratch_a.py"} <= expected
    assert "datasets/loaders.py" not in expected and "pkg/build/generated.py" not in expected
    assert found == expected
    assert {os.path.relpath(t.absolute, tree / "datasets").replace(os.sep, "/")
            for t in discover([str(tree / "datasets")], Settings())} >= {"coco.py", "nested/augment.py"}


def test_without_a_work_tree_gitignore_alone_decides(tmp_path):
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "dataset.py").write_text("import torch\n")
    (tmp_path / "train.py").write_text("import torch\n")
    (tmp_path / ".gitignore").write_text("data/\n")
    found = {os.path.relpath(t.absolute, tmp_path) for t in discover([str(tmp_path)], Settings())}
    assert found == {"train.py"}


def test_exclude_globs_match_a_name_a_path_or_a_folder_above(tree):
    settings = Settings(extend_exclude=["pkg/sub", "*.gen.py", "tools/"])
    found = {os.path.relpath(t.absolute, tree).replace(os.sep, "/") for t in discover([str(tree)], settings)}
    assert "pkg/sub/local/kept.py" not in found and "pkg/models/keep.gen.py" not in found
    assert not any(path.startswith("tools/") for path in found)
    assert "train.py" in found and "pkg/tmp_wanted.py" in found


def test_a_file_named_explicitly_is_checked_even_when_ignored(tree):
    named = str(tree / "datasets" / "coco.py")
    assert [t.absolute for t in discover([named], Settings())] == [named]
