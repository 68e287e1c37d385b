"""Fixes that cannot break code, through the real ``seedlint`` command: names the fix
inserts never collide with a binding, an existing function is reused only when it is a
correct seeder, strings are renamed only where they provably set the flag, identical
hoisted lambdas become one function, and each SARIF fix is right alone and together.

Where a fix is applied, the fixed program is run with a real two-worker DataLoader."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

DATASET = '''
import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset


class Jitter(Dataset):
    def __len__(self):
        return 4

    def __getitem__(self, index):
        return float(np.random.rand())
'''


def seedlint(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "seedlint", "--no-cache", *args],
                          cwd=cwd, capture_output=True, text=True, timeout=300)


def project(tmp_path: Path, source: str, name: str = "train.py") -> Path:
    (tmp_path / name).write_text(textwrap.dedent(source).lstrip())
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "demo"\ndependencies = ["torch<1.9"]\n')
    return tmp_path / name


def run_loader(path: Path, expression: str) -> subprocess.CompletedProcess:
    """Import the fixed module and draw every batch from ``expression`` with two workers."""
    script = (
        f"import sys; sys.path.insert(0, {str(path.parent)!r})\n"
        f"import {path.stem} as module\n"
        f"loader = module.{expression}\n"
        "print(sorted(float(x) for batch in loader for x in batch))\n"
    )
    return subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300)


def test_a_module_that_binds_seed_worker_to_something_else_gets_a_free_name(tmp_path):
    path = project(tmp_path, DATASET + '''
seed_worker = 3


def make_loader():
    return DataLoader(Jitter(), batch_size=2, num_workers=2)
''')
    assert seedlint("--fix", ".", cwd=tmp_path).returncode == 0
    fixed = path.read_text()
    assert "seed_worker = 3\n" in fixed
    assert "def seed_worker_2(worker_id):" in fixed
    assert "worker_init_fn=seed_worker_2" in fixed
    ran = run_loader(path, "make_loader()")
    assert ran.returncode == 0, ran.stderr
    assert seedlint("--fix", ".", cwd=tmp_path).returncode == 0
    assert path.read_text() == fixed


def test_an_unrelated_seed_worker_function_is_left_alone(tmp_path):
    unrelated = '''
def seed_worker(paths, size):
    """Seeds the download workers of another tool."""
    return [p[:size] for p in paths]
'''
    path = project(tmp_path, DATASET + unrelated + '''

def make_loader():
    return DataLoader(Jitter(), batch_size=2, num_workers=2)
''')
    assert seedlint("--fix", ".", cwd=tmp_path).returncode == 0
    fixed = path.read_text()
    assert textwrap.dedent(unrelated).strip() in fixed
    assert "worker_init_fn=seed_worker_2" in fixed
    ran = run_loader(path, "make_loader()")
    assert ran.returncode == 0, ran.stderr


def test_a_correct_seeder_the_module_already_has_is_reused(tmp_path):
    path = project(tmp_path, DATASET + '''

def init_worker(worker_id):
    np.random.seed(torch.initial_seed() % 2**32)


def make_loader():
    return DataLoader(Jitter(), batch_size=2, num_workers=2)
''')
    assert seedlint("--fix", ".", cwd=tmp_path).returncode == 0
    fixed = path.read_text()
    assert "worker_init_fn=init_worker" in fixed
    assert "def seed_worker" not in fixed
    ran = run_loader(path, "make_loader()")
    assert ran.returncode == 0, ran.stderr
    values = json.loads(ran.stdout.strip().replace("(", "[").replace(")", "]"))
    assert len(set(values)) == 4, "each worker draws its own values"


def test_a_seeder_with_a_fixed_seed_is_not_reused(tmp_path):
    path = project(tmp_path, DATASET + '''

def seed_worker(worker_id):
    np.random.seed(42)


def make_loader():
    return DataLoader(Jitter(), batch_size=2, num_workers=2)
''')
    assert seedlint("--fix", ".", cwd=tmp_path).returncode == 0
    fixed = path.read_text()
    assert "def seed_worker(worker_id):\n    np.random.seed(42)" in fixed
    assert "worker_init_fn=seed_worker_2" in fixed


def test_a_local_name_in_the_loader_function_is_not_shadowed(tmp_path):
    path = project(tmp_path, DATASET + '''

def make_loader(seed_worker=None):
    loader = DataLoader(Jitter(), batch_size=2, num_workers=2)
    return loader
''')
    assert seedlint("--fix", ".", cwd=tmp_path).returncode == 0
    fixed = path.read_text()
    assert "worker_init_fn=seed_worker_2" in fixed
    ran = run_loader(path, "make_loader(seed_worker=7)")
    assert ran.returncode == 0, ran.stderr


def test_identical_lambdas_are_hoisted_once(tmp_path):
    path = project(tmp_path, '''
import torch
from torch.utils.data import DataLoader, TensorDataset

DATA = TensorDataset(torch.arange(8.0))


def loaders():
    train = DataLoader(DATA, batch_size=2, num_workers=2, collate_fn=lambda batch: torch.stack([b[0] for b in batch]))
    valid = DataLoader(DATA, batch_size=4, num_workers=2, collate_fn=lambda batch: torch.stack([b[0] for b in batch]))
    return train, valid
''')
    assert seedlint("--fix", ".", cwd=tmp_path).returncode == 0
    fixed = path.read_text()
    assert fixed.count("def collate_batch(batch):") == 1
    assert "collate_batch_2" not in fixed
    assert fixed.count("collate_fn=collate_batch") == 2
    ran = run_loader(path, "loaders()[0]")
    assert ran.returncode == 0, ran.stderr


@pytest.mark.parametrize("source", [
    'OLD_NAME = "PL_TRAINER_REPLACE_SAMPLER_DDP"\n',
    'import os\n\nif "PL_TRAINER_REPLACE_SAMPLER_DDP" in os.environ:\n    print("set")\n',
    'FLAGS = {"PL_TRAINER_REPLACE_SAMPLER_DDP": "the old name"}\n',
])
def test_strings_that_do_not_set_the_flag_are_not_reported(tmp_path, source):
    (tmp_path / "setup.py").write_text(textwrap.dedent(source))
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "demo"\ndependencies = ["lightning>=2.1"]\n')
    (tmp_path / "train.py").write_text("import lightning as L\n\ntrainer = L.Trainer(devices=2)\n")
    completed = seedlint("--select", "SDL103", ".", cwd=tmp_path)
    assert completed.returncode == 0, completed.stdout


def test_setting_the_old_environment_variable_is_reported_with_an_unsafe_fix_only(tmp_path):
    (tmp_path / "launch.py").write_text('import os\n\nos.environ["PL_TRAINER_REPLACE_SAMPLER_DDP"] = "0"\n')
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "demo"\ndependencies = ["lightning>=2.1"]\n')
    (tmp_path / "train.py").write_text("import lightning as L\n\ntrainer = L.Trainer(devices=2)\n")
    completed = seedlint("--select", "SDL103", "--format", "json", ".", cwd=tmp_path)
    diagnostics = json.loads(completed.stdout)["diagnostics"]
    assert [d["code"] for d in diagnostics] == ["SDL103"]
    assert diagnostics[0]["fix"] is None or diagnostics[0]["fix"]["applicability"] == "unsafe"
    assert seedlint("--fix", ".", cwd=tmp_path).returncode == 1
    assert "PL_TRAINER_REPLACE_SAMPLER_DDP" in (tmp_path / "launch.py").read_text()


def apply_edits(text: str, edits) -> str:
    """Apply line/column edits the way ruff applies fixes: edits identical to one already
    applied are applied once; the rest must not overlap."""
    lines = text.splitlines(keepends=True)
    offsets = [0]
    for line in lines:
        offsets.append(offsets[-1] + len(line))

    def offset(location):
        return offsets[location["row"] - 1] + location["column"] - 1

    unique = []
    for edit in edits:
        key = (offset(edit["location"]), offset(edit["end_location"]), edit["content"])
        if key not in unique:
            unique.append(key)
    unique.sort()
    for (start, end, _), (next_start, _, _) in zip(unique, unique[1:]):
        assert end <= next_start, "two different edits overlap"
    for start, end, content in reversed(unique):
        text = text[:start] + content + text[end:]
    return text


def test_sarif_and_json_fixes_are_right_alone_and_together(tmp_path):
    path = project(tmp_path, DATASET + '''

def train_loader():
    return DataLoader(Jitter(), batch_size=2, num_workers=2)


def valid_loader():
    return DataLoader(Jitter(), batch_size=4, num_workers=2)
''')
    original = path.read_text()
    report = json.loads(seedlint("--format", "json", ".", cwd=tmp_path).stdout)
    fixes = [d["fix"] for d in report["diagnostics"] if d["code"] == "SDL001"]
    assert len(fixes) == 2 and all(fixes)
    for fix in fixes:
        alone = apply_edits(original, fix["edits"])
        compile(alone, "train.py", "exec")
        assert alone.count("def seed_worker(") == 1
    together = apply_edits(original, [edit for fix in fixes for edit in fix["edits"]])
    assert together.count("def seed_worker(") == 1
    assert together.count("worker_init_fn=seed_worker") == 2

    sarif = json.loads(seedlint("--format", "sarif", ".", cwd=tmp_path).stdout)
    changes = [r["fixes"][0]["artifactChanges"][0]["replacements"] for r in sarif["runs"][0]["results"] if "fixes" in r]
    assert len(changes) == 2
    for replacements in changes:
        assert apply_replacements(original, replacements) == apply_edits(original, fixes[changes.index(replacements)]["edits"])
    assert apply_replacements(original, [r for replacements in changes for r in replacements]) == together

    path.write_text(together)
    assert seedlint(".", cwd=tmp_path).returncode == 0
    for loader in ("train_loader()", "valid_loader()"):
        ran = run_loader(path, loader)
        assert ran.returncode == 0, ran.stderr


def apply_replacements(text: str, replacements) -> str:
    """SARIF replacements (character offsets), identical ones applied once."""
    unique = []
    for replacement in replacements:
        region = replacement["deletedRegion"]
        key = (region["charOffset"], region["charOffset"] + region["charLength"], replacement.get("insertedContent", {}).get("text", ""))
        if key not in unique:
            unique.append(key)
    for start, end, content in sorted(unique, reverse=True):
        text = text[:start] + content + text[end:]
    return text
