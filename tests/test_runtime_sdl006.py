"""Runtime truth for SDL006: under the spawn start method a lambda ``collate_fn`` cannot be
pickled to start the workers; the hoisted module-level def of the --fix output can."""

import importlib
import pickle
import shutil
from pathlib import Path

import pytest

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "SDL006"


def spawn_loader(fixture: str, tmp_path, monkeypatch):
    """Import the fixture under a real module name, so spawned workers can import it too."""
    name = "sdl006_" + fixture.replace(".", "_")
    shutil.copy(FIXTURES / fixture, tmp_path / f"{name}.py")
    monkeypatch.syspath_prepend(str(tmp_path))
    loader = importlib.import_module(name).make_loader()
    loader.multiprocessing_context = "spawn"
    return loader


def test_lambda_collate_fn_cannot_start_spawned_workers(tmp_path, monkeypatch):
    loader = spawn_loader("lambda_collate.py", tmp_path, monkeypatch)
    with pytest.raises((pickle.PicklingError, AttributeError), match="lambda"):
        next(iter(loader))


def test_hoisted_collate_fn_runs_in_spawned_workers(tmp_path, monkeypatch):
    loader = spawn_loader("lambda_collate.fixed.py", tmp_path, monkeypatch)
    batches = [batch.tolist() for batch in loader]
    assert batches == [[[2 * i, 2 * i * i] for i in range(start, start + 4)] for start in (0, 4)]


def test_a_dataset_holding_a_local_function_cannot_start_spawned_workers(tmp_path, monkeypatch):
    """The dataset itself is pickled for every spawned worker, with the function it holds."""
    import torch

    shutil.copy(FIXTURES / "dataset_holds_a_local_function" / "frames.py", tmp_path / "sdl006_held_frames.py")
    monkeypatch.syspath_prepend(str(tmp_path))
    module = importlib.import_module("sdl006_held_frames")
    clips = [torch.rand(3, 2, 16, 16) for _ in range(8)]
    loader = module.make_loader(clips, 8, workers=2)
    loader.multiprocessing_context = "spawn"
    with pytest.raises((pickle.PicklingError, AttributeError), match="make_loader.<locals>.resize"):
        next(iter(loader))
    loader = module.make_loader(clips, 8, workers=2)
    loader.multiprocessing_context = "fork"
    assert next(iter(loader)).shape == (4, 3, 2, 8, 8), "forked workers inherit the function instead"


def test_monai_thread_loader_starts_spawned_worker_processes_but_not_threads(tmp_path, monkeypatch):
    """MONAI's ThreadDataLoader starts its loader's iterator, and so its worker processes, in
    the caller (only the batches are read in a thread): the dataset is pickled for spawned
    workers there. With ``use_thread_workers=True`` the workers are threads: nothing is pickled."""
    pytest.importorskip("monai")
    import numpy as np

    volumes = [np.ones((2, 4, 4), dtype=np.float32) * i for i in range(8)]
    for fixture, name in (("monai_thread_loader_dataset_holds_a_lambda", "sdl006_thread_procs"),
                          ("clean_monai_thread_loader_with_thread_workers", "sdl006_thread_threads")):
        shutil.copy(FIXTURES / fixture / "train.py", tmp_path / f"{name}.py")
    monkeypatch.syspath_prepend(str(tmp_path))
    loader = importlib.import_module("sdl006_thread_procs").make_loader(volumes, 2)
    loader.multiprocessing_context = "spawn"
    with pytest.raises((pickle.PicklingError, AttributeError), match="make_loader.<locals>.<lambda>"):
        next(iter(loader))
    loader = importlib.import_module("sdl006_thread_threads").make_loader(volumes, 2)
    assert sum(len(batch) for batch in loader) == 8
