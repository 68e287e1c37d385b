"""Runtime truth for SDL001 with timm's RandAugment (timm 0.4.12, the release the fixture
declares), which picks its operations with ``np.random.choice``: with torch < 1.9 seeding,
two workers pick the same operations for their samples and every epoch picks them again;
the --fix output's ``seed_worker`` gives each worker its own picks. Only
``timm/data/auto_augment.py`` is loaded from the fetched wheel (it imports PIL and NumPy;
the package's ``__init__`` needs torchvision). Skipped without a package registry unless
``SEEDLINT_REQUIRE_REGISTRY=1``."""

import importlib.util
import pickle
import sys
import types
from pathlib import Path

import numpy as np
import pytest
from torch.utils.data import DataLoader

from runtime_support import epochs_of_values, load_module
from wheel_support import unpacked_wheel

FIXTURE = Path(__file__).resolve().parent.parent / "fixtures" / "SDL001" / "timm_randaugment_drawing_from_numpy"
DETERMINISTIC_OPS = ["AutoContrast", "Equalize", "Invert", "Posterize", "Solarize", "Color", "Contrast", "Brightness", "Sharpness"]
"""RandAugment operations whose effect depends only on the magnitude: with each applied
always, a sample's output is decided by the operations NumPy picks."""


@pytest.fixture
def fixture_modules(tmp_path_factory, tmp_path, monkeypatch):
    pytest.importorskip("PIL")
    wheel = unpacked_wheel(tmp_path_factory, "timm", "0.4.12")
    for name in ("timm", "timm.data"):
        package = types.ModuleType(name)
        package.__path__ = [str(wheel.joinpath(*name.split(".")))]
        monkeypatch.setitem(sys.modules, name, package)
    spec = importlib.util.spec_from_file_location("timm.data.auto_augment", wheel / "timm" / "data" / "auto_augment.py")
    auto_augment = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, "timm.data.auto_augment", auto_augment)
    spec.loader.exec_module(auto_augment)
    monkeypatch.syspath_prepend(str(FIXTURE))
    for name in ("data", "transforms"):
        monkeypatch.delitem(sys.modules, name, raising=False)
    data, transforms = load_module(FIXTURE / "data.py"), load_module(FIXTURE / "transforms.py")
    batch = tmp_path / "unlabeled_batch"
    image = np.random.RandomState(0).randint(0, 256, size=3 * 32 * 32, dtype=np.uint8)
    with open(batch, "wb") as handle:
        pickle.dump({b"data": np.stack([image] * 8)}, handle)
    augment = transforms.StrongAugment("rand-m9-n2")
    augment.augment.ops = auto_augment.rand_augment_ops(magnitude=9, hparams={}, transforms=DETERMINISTIC_OPS)
    for op in augment.augment.ops:
        op.prob = 1.0
    yield auto_augment, data.UnlabeledImages(str(batch), augment)
    for name in ("data", "transforms"):
        sys.modules.pop(name, None)


def test_the_release_picks_operations_from_numpys_global_rng(fixture_modules):
    auto_augment, _ = fixture_modules
    augment = auto_augment.rand_augment_transform("rand-m9-n2", {})
    assert type(augment).__name__ == "RandAugment"
    ops = augment.ops
    np.random.seed(3)
    first = list(np.random.choice(len(ops), 2))
    np.random.seed(3)
    assert list(np.random.choice(len(ops), 2)) == first


def test_workers_pick_the_same_operations_under_torch_before_1_9_seeding(fixture_modules, monkeypatch):
    _, dataset = fixture_modules
    loader = DataLoader(dataset, batch_size=1, num_workers=2)
    first, second = epochs_of_values(loader, monkeypatch=monkeypatch)
    assert first[0::2] == first[1::2], "worker 1 repeats worker 0's picks, sample by sample"
    assert second == first, "every epoch replays them"


def test_the_fixed_loader_gives_each_worker_its_own_picks(fixture_modules, monkeypatch):
    _, dataset = fixture_modules
    monkeypatch.delitem(sys.modules, "train", raising=False)
    fixed = load_module(FIXTURE / "train.fixed.py")
    loader = DataLoader(dataset, batch_size=1, num_workers=2, worker_init_fn=fixed.seed_worker)
    first, second = epochs_of_values(loader, monkeypatch=monkeypatch)
    assert first[0::2] != first[1::2]
    assert second != first
