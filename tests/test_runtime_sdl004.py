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
