"""Runtime truth for Hugging Face datasets (``knowledge.hf_datasets``): a DataLoader's workers
run the transform a dataset was given by ``set_transform``/``with_transform``, so its NumPy
draws repeat across workers and epochs under torch < 1.9 seeding (SDL001), and under spawn the
dataset is pickled with that transform, first of what the workers receive (SDL006)."""

import importlib
import pickle
import shutil
from pathlib import Path

import pytest

from runtime_support import duplicate_count, epochs_of_values, load_module

pytest.importorskip("datasets")

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"


def test_workers_run_the_set_transform_and_repeat_its_numpy_draws(monkeypatch):
    module = load_module(FIXTURES / "SDL001" / "hf_dataset_set_transform_draws_numpy" / "data.py")
    first, second = epochs_of_values(module.make_loader(count=32, batch_size=4, workers=2), monkeypatch=monkeypatch)
    assert len(first) == 32
    # both workers start from one copy of NumPy's state: each noise vector comes twice
    assert duplicate_count(first) == 16
    assert sorted(first) == sorted(second), "every epoch replays the same noise"


def test_the_fixed_loader_draws_apart_per_worker_and_epoch(monkeypatch):
    module = load_module(FIXTURES / "SDL001" / "hf_dataset_set_transform_draws_numpy" / "data.fixed.py")
    loader = module.make_loader(count=32, batch_size=4, workers=2)
    assert loader.worker_init_fn is module.seed_worker
    first, second = epochs_of_values(loader, monkeypatch=monkeypatch)
    assert duplicate_count(first + second) == 0


def test_spawned_workers_fail_on_the_datasets_local_transform_before_the_collate_fn(tmp_path, monkeypatch):
    shutil.copy(FIXTURES / "SDL006" / "hf_dataset_holds_a_local_transform" / "captions.py", tmp_path / "hf_captions.py")
    monkeypatch.syspath_prepend(str(tmp_path))
    module = importlib.import_module("hf_captions")
    captions = [f"a photo of item {i}" for i in range(8)]
    loader = module.make_loader(captions, 16, workers=2)
    loader.multiprocessing_context = "spawn"
    with pytest.raises((pickle.PicklingError, AttributeError), match="make_loader.<locals>.tokenize"):
        next(iter(loader))
    loader = module.make_loader(captions, 16, workers=2)
    loader.multiprocessing_context = "fork"
    assert tuple(next(iter(loader)).shape) == (4, 16), "forked workers inherit the transform instead"
