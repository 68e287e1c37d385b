"""Helpers for runtime-truth tests: import a fixture module and run its real DataLoader
with worker processes, under the torch < 1.9 seeding behaviour when asked (DESIGN.md §5)."""

from __future__ import annotations

import importlib.util
import sys
import uuid
from pathlib import Path
from typing import List

import numpy as np
import torch
import torch.utils.data._utils.worker as worker_module

torch.multiprocessing.set_sharing_strategy("file_system")


def load_module(path: Path):
    name = f"runtime_fixture_{path.stem}_{uuid.uuid4().hex[:8]}"
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def epochs_of_values(loader, epochs: int = 2, legacy_numpy_seeding: bool = True, monkeypatch=None) -> List[List[tuple]]:
    """Every sample's values, per epoch. With ``legacy_numpy_seeding`` torch does not
    reseed NumPy in workers (torch < 1.9) and the parent's NumPy state is set first."""
    loader.multiprocessing_context = "fork"
    if legacy_numpy_seeding:
        monkeypatch.setattr(worker_module, "HAS_NUMPY", False)
        np.random.seed(1234)
    result = []
    for _ in range(epochs):
        values = []
        for batch in loader:
            tensor = batch if isinstance(batch, torch.Tensor) else torch.as_tensor(batch)
            for row in tensor.reshape(tensor.shape[0], -1).tolist():
                values.append(tuple(round(v, 10) for v in row))
        result.append(values)
    return result


def duplicate_count(values: List[tuple]) -> int:
    return len(values) - len(set(values))


def samples_per_epoch(loader, epochs=2):
    """Every sample as a tuple of rounded values, per epoch, in the loader's order (with 4
    workers and 8 samples in batches of 2, batch k comes from worker k)."""
    torch.multiprocessing.set_sharing_strategy("file_system")
    torch.manual_seed(0)
    found = []
    for _ in range(epochs):
        samples = []
        for batch in loader:
            batch = batch["image"] if isinstance(batch, dict) else batch
            samples.extend(tuple(np.round(np.asarray(item).ravel(), 6)) for item in batch)
        found.append(samples)
    return found


def per_worker(samples):
    return [tuple(samples[i:i + 2]) for i in range(0, len(samples), 2)]
