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


SYNTHETIC = Path(__file__).resolve().parent.parent / "fixtures" / "SDL005"


def test_a_synthetic_stream_gives_each_worker_different_items():
    module = load_module(SYNTHETIC / "clean_synthetic_task_stream" / "tasks.py")
    loader = module.make_loader(per_epoch=64, workers=2)
    loader.multiprocessing_context = "fork"
    sequences = [tuple(row.tolist()) for tokens, _ in loader for row in tokens]
    assert len(sequences) == 128 and len(set(sequences)) == 128, "no item arrives twice"


def test_stored_items_indexed_by_range_arrive_once_per_worker():
    module = load_module(SYNTHETIC / "augmented_items_indexed_by_range" / "tasks.py")
    loader = module.make_loader(workers=2)
    loader.multiprocessing_context = "fork"
    items = [row for batch in loader for row in batch]
    assert len(items) == 128, "each of the 64 stored sequences arrives from both workers"
