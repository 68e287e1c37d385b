"""Runtime truth for SDL012: a dataset class and a collate function defined in a notebook
live in the kernel's ``__main__``, which workers started by spawn cannot import, so iterating
the loader fails; the same code importing them from a module next to the notebook runs.

A kernel's ``__main__`` has no file; ``python -c`` with the notebook's code reproduces it."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from seedlint.notebooks import read_notebook

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "SDL012"
SPAWN_FIRST = "import multiprocessing\nmultiprocessing.set_start_method('spawn', force=True)\n"


def run_notebook(folder: Path) -> subprocess.CompletedProcess:
    code = read_notebook((folder / "explore.ipynb").read_text()).text
    return subprocess.run(
        [sys.executable, "-c", SPAWN_FIRST + code + "\nprint('batches', len(sizes))\n"],
        cwd=folder, capture_output=True, text=True, timeout=300,
    )


def test_notebook_defined_dataset_fails_under_spawn():
    # Every run fails. The worker's own traceback reaches the captured stderr on almost every
    # run; once in CI only the parent's "exited unexpectedly" arrived, so up to three runs are
    # made to see the cause, and each of them must fail the same way.
    stderrs = []
    for _ in range(3):
        completed = run_notebook(FIXTURES / "notebook_dataset_and_collate")
        assert completed.returncode != 0, completed.stdout
        assert "DataLoader worker" in completed.stderr and "exited unexpectedly" in completed.stderr, completed.stderr
        stderrs.append(completed.stderr)
        if "AttributeError: Can't get attribute 'JitteredClouds' on <module '__main__'" in completed.stderr:
            return
    raise AssertionError("no worker traceback named the missing class:\n" + "\n----\n".join(stderrs))


def test_imported_dataset_runs_under_spawn():
    completed = run_notebook(FIXTURES / "clean_notebook_imports_its_dataset")
    assert completed.returncode == 0, completed.stderr
    assert "batches 4" in completed.stdout
