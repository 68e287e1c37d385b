"""Runtime truth for SDL004: ``np.random.seed(torch.initial_seed())`` in a worker_init_fn
raises in the workers; the --fix output (``% 2**32``) runs and still varies per epoch."""

from pathlib import Path

import pytest
import torch
from runtime_support import duplicate_count, epochs_of_values, load_module

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "SDL004"


def test_flagged_worker_seed_raises_in_every_worker():
    module = load_module(FIXTURES / "basic_initial_seed.py")
    torch.manual_seed(0)
    with pytest.raises(ValueError, match=r"Seed must be between 0 and 2\*\*32 - 1"):
        epochs_of_values(module.make_loader(), epochs=1, legacy_numpy_seeding=False)


def test_fixed_worker_seed_runs_and_differs_per_epoch():
    module = load_module(FIXTURES / "basic_initial_seed.fixed.py")
    torch.manual_seed(0)
    first, second = epochs_of_values(module.make_loader(), legacy_numpy_seeding=False)
    assert len(first) == len(second) == 16
    assert duplicate_count(first + second) == 0


def test_seed_reduced_only_when_too_large_runs_in_every_worker():
    """The silent fixture reduces the seed under ``if torch_seed >= 2**32``: below 2**32
    either way, so NumPy accepts it whatever torch's base seed is."""
    module = load_module(FIXTURES / "clean_reduced_only_when_too_large.py")
    torch.manual_seed(0)
    first, second = epochs_of_values(module.make_loader(), legacy_numpy_seeding=False)
    assert len(first) == len(second) == 64
