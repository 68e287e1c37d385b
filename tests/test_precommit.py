"""The pre-commit hooks, run for real with ``pre-commit try-repo`` on a throw-away project.

This builds one hook environment (pre-commit installs seedlint and its dependencies into a
virtualenv from the package registry), so it takes about a minute; the environment is cached
in a per-session PRE_COMMIT_HOME and shared by every test here.

``try-repo`` copies a repository's *tracked* modifications but not its untracked files, so
the test snapshots the working tree (every file git would commit) into a fresh repository
and points ``try-repo`` at that: the hooks run the code as it is on disk.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

pytestmark = pytest.mark.hook_env

REPO_ROOT = Path(__file__).parents[1]
PRE_COMMIT = [sys.executable, "-m", "pre_commit"]
GIT_IDENTITY = {
    "GIT_AUTHOR_NAME": "seedlint tests",
    "GIT_AUTHOR_EMAIL": "tests@seedlint.invalid",
    "GIT_COMMITTER_NAME": "seedlint tests",
    "GIT_COMMITTER_EMAIL": "tests@seedlint.invalid",
    "GIT_CONFIG_NOSYSTEM": "1",
}

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


def _git(*args: str, cwd: Path) -> str:
    env = dict(os.environ, **GIT_IDENTITY)
    return subprocess.run(["git", *args], cwd=cwd, env=env, check=True, capture_output=True, text=True).stdout


def _snapshot_of_working_tree(destination: Path) -> Path:
    """A one-commit repository holding every file of REPO_ROOT that git would commit."""
    destination.mkdir()
    try:
        listed = _git("ls-files", "-z", "--cached", "--others", "--exclude-standard", cwd=REPO_ROOT)
        files = [name for name in listed.split("\0") if name and (REPO_ROOT / name).is_file()]
        for name in files:
            target = destination / name
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(REPO_ROOT / name, target)
    except (OSError, subprocess.CalledProcessError):  # not a git checkout: copy the tree
        shutil.rmtree(destination)
        shutil.copytree(REPO_ROOT, destination, ignore=shutil.ignore_patterns(
            ".git", ".venv", "__pycache__", "*.egg-info", ".pytest_cache", ".seedlint_cache", "build", "dist"))
    _git("init", "-q", cwd=destination)
    _git("add", "-A", cwd=destination)
    _git("commit", "-q", "--no-verify", "-m", "snapshot", cwd=destination)
    return destination


@pytest.fixture(scope="module")
def hook_repo(tmp_path_factory) -> Path:
    return _snapshot_of_working_tree(tmp_path_factory.mktemp("hooks") / "seedlint")


@pytest.fixture(scope="module")
def pre_commit_env(tmp_path_factory) -> dict:
    home = tmp_path_factory.mktemp("pre-commit-home")
    return dict(os.environ, PRE_COMMIT_HOME=str(home), NO_COLOR="1", **GIT_IDENTITY)


@pytest.fixture
def project(tmp_path) -> Path:
    """A committed project whose loader (train.py) feeds a dataset from another module."""
    (tmp_path / "data.py").write_text(DATASET)
    (tmp_path / "train.py").write_text(TRAIN)
    _git("init", "-q", cwd=tmp_path)
    _git("add", "-A", cwd=tmp_path)
    _git("commit", "-q", "--no-verify", "-m", "buggy loader", cwd=tmp_path)
    return tmp_path


def _try_repo(hook_repo: Path, env: dict, cwd: Path, hook: str, *files: str) -> subprocess.CompletedProcess:
    selection = ["--files", *files] if files else ["--all-files"]
    command = [*PRE_COMMIT, "try-repo", str(hook_repo), hook, "--verbose", *selection]
    return subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, timeout=900)


def test_hooks_file_declares_check_and_fix_hooks():
    hooks = {hook["id"]: hook for hook in yaml.safe_load((REPO_ROOT / ".pre-commit-hooks.yaml").read_text())}
    assert set(hooks) == {"seedlint", "seedlint-fix"}
    assert hooks["seedlint"]["entry"] == "seedlint"
    assert hooks["seedlint-fix"]["entry"] == "seedlint --fix"
    for hook in hooks.values():
        assert hook["language"] == "python"
        assert hook["types_or"] == ["python", "jupyter"]
        assert hook["require_serial"] is True


def test_check_hook_checks_a_committed_notebook(hook_repo, pre_commit_env, tmp_path):
    from test_notebooks import notebook

    (tmp_path / "requirements.txt").write_text("torch==1.8.1\nnumpy\n")
    (tmp_path / "train.ipynb").write_text(notebook())
    _git("init", "-q", cwd=tmp_path)
    _git("add", "-A", cwd=tmp_path)
    _git("commit", "-q", "--no-verify", "-m", "notebook", cwd=tmp_path)
    before = (tmp_path / "train.ipynb").read_bytes()
    run = _try_repo(hook_repo, pre_commit_env, tmp_path, "seedlint", "train.ipynb")
    assert run.returncode == 1, run.stdout + run.stderr
    assert "train.ipynb:cell 5:1:10: SDL001" in run.stdout, run.stdout
    fixed = _try_repo(hook_repo, pre_commit_env, tmp_path, "seedlint-fix", "train.ipynb")
    assert fixed.returncode == 1 and (tmp_path / "train.ipynb").read_bytes() == before


def test_check_hook_fails_with_the_diagnostic(hook_repo, pre_commit_env, project):
    run = _try_repo(hook_repo, pre_commit_env, project, "seedlint")
    assert run.returncode == 1, run.stdout + run.stderr
    assert "train.py:8:12: SDL001" in run.stdout, run.stdout
    assert (project / "train.py").read_text() == TRAIN


def test_check_hook_resolves_a_dataset_module_it_was_not_given(hook_repo, pre_commit_env, project):
    run = _try_repo(hook_repo, pre_commit_env, project, "seedlint", "train.py")
    assert run.returncode == 1, run.stdout + run.stderr
    assert "train.py:8:12: SDL001" in run.stdout, run.stdout
    assert "NoisyDataset" in run.stdout


def test_fix_hook_rewrites_the_loader_then_the_check_hook_passes(hook_repo, pre_commit_env, project):
    fixed = _try_repo(hook_repo, pre_commit_env, project, "seedlint-fix")
    assert fixed.returncode == 1, fixed.stdout + fixed.stderr
    assert "files were modified by this hook" in fixed.stdout
    train = (project / "train.py").read_text()
    assert "def seed_worker(worker_id):" in train
    assert "worker_init_fn=seed_worker" in train
    assert (project / "data.py").read_text() == DATASET

    again = _try_repo(hook_repo, pre_commit_env, project, "seedlint")
    assert again.returncode == 0, again.stdout + again.stderr
