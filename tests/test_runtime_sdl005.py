"""Runtime truth for SDL005: an unsharded IterableDataset yields every sample once per
worker; its --unsafe-fixes output yields each sample exactly once per epoch."""

from collections import Counter
from pathlib import Path

import pytest
import torch

from runtime_support import load_module

FIXTURE = Path(__file__).resolve().parent.parent / "fixtures" / "SDL005" / "lines_generator_unsafe"
ITEMS = list(range(16))


def samples_per_epoch(module, **options):
    torch.multiprocessing.set_sharing_strategy("file_system")
    loader = module.make_loader(**options)
    if loader.num_workers:
        loader.multiprocessing_context = "fork"
    return [[value for batch in loader for value in batch.flatten().tolist()] for _ in range(2)]


@pytest.mark.parametrize("persistent", [False, True])
def test_original_yields_every_sample_once_per_worker(persistent):
    module = load_module(FIXTURE / "train.py")
    for epoch in samples_per_epoch(module, persistent_workers=persistent):
        assert Counter(epoch) == Counter(ITEMS * 2)


@pytest.mark.parametrize("persistent", [False, True])
def test_fixed_yields_every_sample_exactly_once(persistent):
    module = load_module(FIXTURE / "train.fixed.py")
    for epoch in samples_per_epoch(module, persistent_workers=persistent):
        assert sorted(epoch) == ITEMS


def test_fixed_is_unchanged_without_workers():
    original = load_module(FIXTURE / "train.py")
    fixed = load_module(FIXTURE / "train.fixed.py")
    assert samples_per_epoch(fixed, num_workers=0) == samples_per_epoch(original, num_workers=0)
