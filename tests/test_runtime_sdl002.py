"""Runtime truth for SDL002: an RNG object created in ``__init__`` repeats its numbers in
every worker (and, without persistent workers, every epoch); the --fix output reseeds it
once per worker from ``get_worker_info().seed``. Checked under fork and spawn, with and
without persistent workers, and in the main process."""

import importlib
import shutil
import sys
from pathlib import Path

import pytest
import torch

FIXTURE = Path(__file__).resolve().parent.parent / "fixtures" / "SDL002" / "basic_default_rng"
EPOCHS = 2
SAMPLES = 32


@pytest.fixture
def fixture_modules(tmp_path, monkeypatch):
    """The original and the fixed fixture as real modules, importable by spawned workers."""
    shutil.copy(f"{FIXTURE}.py", tmp_path / "sdl002_original.py")
    shutil.copy(f"{FIXTURE}.fixed.py", tmp_path / "sdl002_fixed.py")
    monkeypatch.syspath_prepend(str(tmp_path))
    yield importlib.import_module("sdl002_original"), importlib.import_module("sdl002_fixed")
    for name in ("sdl002_original", "sdl002_fixed"):
        sys.modules.pop(name, None)


def jitter_per_epoch(module, **options):
    """The random part (value - index) of every sample, per epoch."""
    torch.multiprocessing.set_sharing_strategy("file_system")
    torch.manual_seed(0)
    loader = module.make_loader(**options)
    epochs = []
    for _ in range(EPOCHS):
        jitter = []
        for batch in loader:
            jitter.extend(batch.tolist())
        epochs.append([round(value % 1.0, 12) for value in jitter])
    return epochs


CONTEXTS = ["fork", "spawn"]


@pytest.mark.parametrize("context", CONTEXTS)
def test_original_repeats_numbers_across_workers_and_epochs(fixture_modules, context):
    original, _ = fixture_modules
    first, second = jitter_per_epoch(original, multiprocessing_context=context)
    assert len(first) == SAMPLES
    assert len(set(first)) == SAMPLES // 2, "both workers draw the same numbers"
    assert sorted(first) == sorted(second), "every epoch repeats them"


@pytest.mark.parametrize("context", CONTEXTS)
def test_original_with_persistent_workers_still_repeats_across_workers(fixture_modules, context):
    original, _ = fixture_modules
    first, second = jitter_per_epoch(original, multiprocessing_context=context, persistent_workers=True)
    assert len(set(first)) == SAMPLES // 2
    assert len(set(second)) == SAMPLES // 2
    assert not set(first) & set(second), "persistent workers continue their (shared) stream"


@pytest.mark.parametrize("persistent", [False, True])
@pytest.mark.parametrize("context", CONTEXTS)
def test_fixed_draws_distinct_numbers_per_worker_and_epoch(fixture_modules, context, persistent):
    _, fixed = fixture_modules
    first, second = jitter_per_epoch(fixed, multiprocessing_context=context, persistent_workers=persistent)
    assert len(first) == len(second) == SAMPLES
    assert len(set(first + second)) == 2 * SAMPLES


def test_fixed_is_reproducible_under_torch_manual_seed(fixture_modules):
    _, fixed = fixture_modules
    assert jitter_per_epoch(fixed, multiprocessing_context="fork") == jitter_per_epoch(fixed, multiprocessing_context="fork")


def test_fixed_leaves_the_object_alone_in_the_main_process(fixture_modules):
    """With num_workers=0 the fixed dataset draws exactly what the original draws."""
    original, fixed = fixture_modules
    assert jitter_per_epoch(fixed, num_workers=0) == jitter_per_epoch(original, num_workers=0)
