"""Runtime truth for SDL001 with albumentations 1.0.0, whose `MultiplicativeNoise` draws its
multipliers from NumPy's global RNG (releases before 1.2 do, for a few transforms): with
torch < 1.9 seeding, two workers return the same noise, and the --fix output's
`seed_worker` gives each worker its own. The wheel is fetched by the test itself
(``pip download --no-deps``), so its declared `opencv-python-headless`, `scikit-image`
and `scipy` are the test environment's; skipped without a package registry unless
``SEEDLINT_REQUIRE_REGISTRY=1``."""

import importlib
import shutil
import sys
from pathlib import Path

import numpy as np
import pytest

from runtime_support import duplicate_count, epochs_of_values
from wheel_support import unpacked_wheel

FIXTURE = Path(__file__).resolve().parent.parent / "fixtures" / "SDL001" / "albumentations_0x_transform_drawing_from_numpy"
TILES = np.full((8, 4, 4, 3), 100, dtype=np.uint8)
"""Equal inputs: any difference between samples is the noise."""


@pytest.fixture
def fixture_modules(tmp_path_factory, tmp_path, monkeypatch):
    """The fixture's modules, importing albumentations 1.0.0."""
    pytest.importorskip("cv2")
    pytest.importorskip("skimage")
    monkeypatch.syspath_prepend(str(unpacked_wheel(tmp_path_factory, "albumentations", "1.0.0")))
    for name in ("dataset.py", "train.py", "train.fixed.py"):
        shutil.copy(FIXTURE / name, tmp_path / name.replace(".fixed", "_fixed"))
    monkeypatch.syspath_prepend(str(tmp_path))
    for name in list(sys.modules):
        if name.split(".")[0] in ("albumentations", "dataset", "train", "train_fixed"):
            sys.modules.pop(name)
    yield importlib.import_module("train"), importlib.import_module("train_fixed")
    for name in list(sys.modules):
        if name.split(".")[0] in ("albumentations", "dataset", "train", "train_fixed"):
            sys.modules.pop(name)


def test_the_release_draws_noise_from_numpys_global_rng(fixture_modules):
    import albumentations

    assert albumentations.__version__ == "1.0.0"
    noise = albumentations.MultiplicativeNoise(multiplier=(0.5, 1.5), per_channel=True, p=1.0)
    np.random.seed(7)
    first = noise(image=TILES[0])["image"]
    np.random.seed(7)
    assert (noise(image=TILES[0])["image"] == first).all()


def test_workers_return_the_same_noise_under_torch_before_1_9_seeding(fixture_modules, monkeypatch):
    train, _ = fixture_modules
    loader = train.make_loader(TILES, "hard", workers=2)
    loader = type(loader)(loader.dataset, batch_size=1, num_workers=2)
    first, second = epochs_of_values(loader, monkeypatch=monkeypatch)
    assert duplicate_count(first) == 4, "worker 1 repeats worker 0's four noise draws"
    assert sorted(first) == sorted(second), "every epoch replays them"


def test_the_fixed_loader_gives_each_worker_its_own_noise(fixture_modules, monkeypatch):
    _, fixed = fixture_modules
    loader = fixed.make_loader(TILES, "hard", workers=2)
    assert loader.worker_init_fn is fixed.seed_worker
    loader = type(loader)(loader.dataset, batch_size=1, num_workers=2, worker_init_fn=loader.worker_init_fn)
    first, second = epochs_of_values(loader, monkeypatch=monkeypatch)
    assert duplicate_count(first + second) == 0


def test_the_light_pipeline_draws_nothing_from_numpy(fixture_modules, monkeypatch):
    """Without `--augmentations hard` the pipeline flips and rotates with `random`, which
    torch reseeds per worker on every version: no duplicate beyond equal outcomes."""
    train, _ = fixture_modules
    loader = train.make_loader(TILES, "light", workers=2)
    assert not any(type(t).__name__ == "MultiplicativeNoise" for t in loader.dataset.augment.transforms)


def test_a_downscale_with_its_default_scales_draws_one_number(fixture_modules):
    """`A.Downscale(p=1)` keeps scale_min == scale_max == 0.25: `np.random.uniform(0.25, 0.25)`
    is 0.25 whatever NumPy's state, so workers sharing that state change nothing
    (fixtures/SDL001/clean_albumentations_0x_downscale_with_one_scale)."""
    import albumentations

    image = np.arange(16 * 16 * 3, dtype=np.uint8).reshape(16, 16, 3)
    outputs = []
    for seed in (1, 2, 3):
        np.random.seed(seed)
        outputs.append(albumentations.Downscale(p=1)(image=image)["image"])
    assert all((output == outputs[0]).all() for output in outputs)
    ranged = albumentations.Downscale(scale_min=0.3, scale_max=0.9, p=1)
    scales = set()
    for seed in (1, 2, 3):
        np.random.seed(seed)
        scales.add(ranged.get_params()["scale"])
    assert len(scales) == 3, "a scale range draws from NumPy's global RNG"
