"""Runtime truth for SDL011 with imgaug 0.4.0: augmenters built in the parent draw the same
flips and rotations in every worker of a DataLoader (and in every epoch), under fork and
spawn alike; the --fix output reseeds the pipeline once per worker. ``imgaug.seed`` in a
``worker_init_fn`` reaches the augmenters only under fork: a spawned worker unpickles its
own copy of their generator, which imgaug's global RNG no longer is.

imgaug 0.4.0 declares ``opencv-python``, whose import needs the system's libGL, so the test
extras install its import-time dependencies with ``opencv-python-headless`` and this test
fetches the imgaug wheel itself (``pip download --no-deps``; skipped without a package
registry unless ``SEEDLINT_REQUIRE_REGISTRY=1``). imgaug 0.4.0 reads ``np.sctypes``, which
NumPy 2 removed: each module that imports imgaug here first imports a shim that puts it
back. Nothing in the shim touches a random number generator."""

import importlib
import sys
from pathlib import Path

import numpy as np
import pytest
import torch
from runtime_support import per_worker, samples_per_epoch
from wheel_support import unpacked_wheel

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "SDL011"
IMGAUG = ("imgaug", "0.4.0")
SHIM = '''"""np.sctypes, as NumPy 1 had it, for imgaug 0.4.0 on NumPy 2."""
import numpy as np

if not hasattr(np, "sctypes") or "sctypes" in getattr(np, "__expired_attributes__", {}):
    np.sctypes = {
        "int": [np.int8, np.int16, np.int32, np.int64],
        "uint": [np.uint8, np.uint16, np.uint32, np.uint64],
        "float": [np.float16, np.float32, np.float64, np.longdouble],
        "complex": [np.complex64, np.complex128, np.clongdouble],
        "others": [bool, object, bytes, str, np.void],
    }
'''
SCENE = (np.arange(6 * 6 * 3) * 7 % 256).astype(np.uint8).reshape(6, 6, 3)
SCENES = [SCENE] * 8
"""Equal, asymmetric inputs: any difference between samples is the augmenters' randomness."""
MODULES = {
    "sdl011_imgaug_original": "imgaug_pipeline_on_dataset.py",
    "sdl011_imgaug_fixed": "imgaug_pipeline_on_dataset.fixed.py",
    "sdl011_imgaug_worker_init_fn": "clean_imgaug_seeded_in_worker_init_fn.py",
    "sdl011_imgaug_spawned": "imgaug_seeded_in_worker_init_fn_under_spawn.py",
    "sdl011_imgaug_spawned_fixed": "imgaug_seeded_in_worker_init_fn_under_spawn.fixed.py",
}


@pytest.fixture(scope="module")
def imgaug_path(tmp_path_factory):
    """A directory holding imgaug 0.4.0 and the NumPy 2 shim."""
    where = unpacked_wheel(tmp_path_factory, *IMGAUG)
    (where / "numpy2_for_imgaug.py").write_text(SHIM)
    return where


@pytest.fixture
def fixture_modules(imgaug_path, tmp_path, monkeypatch):
    """The fixtures as modules that spawned workers can import, each importing the shim first."""
    monkeypatch.syspath_prepend(str(imgaug_path))
    monkeypatch.syspath_prepend(str(tmp_path))
    for module, source in MODULES.items():
        text = (FIXTURES / source).read_text()
        (tmp_path / f"{module}.py").write_text("import numpy2_for_imgaug  # noqa: F401\n" + text)
    yield {name: importlib.import_module(name) for name in MODULES}
    for name in list(sys.modules):
        if name in MODULES or name == "numpy2_for_imgaug" or name.split(".")[0] == "imgaug":
            sys.modules.pop(name, None)


def in_pairs(loader, context):
    """The fixture's loader, its dataset and worker_init_fn kept, in batches of 2 (batch k
    from worker k), under ``context``."""
    return torch.utils.data.DataLoader(
        loader.dataset, batch_size=2, num_workers=loader.num_workers,
        worker_init_fn=loader.worker_init_fn, multiprocessing_context=context,
    )


CONTEXTS = ["fork", "spawn"]


@pytest.mark.parametrize("context", CONTEXTS)
def test_flagged_pipeline_repeats_across_workers_and_epochs(fixture_modules, context):
    loader = in_pairs(fixture_modules["sdl011_imgaug_original"].make_loader(SCENES), context)
    first, second = samples_per_epoch(loader)
    assert len(set(first)) > 1, "the augmenters do change the scenes"
    assert len(set(per_worker(first))) == 1, "every worker draws the same flips and rotations"
    assert first == second, "every epoch repeats them"


@pytest.mark.parametrize("context", CONTEXTS)
def test_fixed_pipeline_draws_per_worker_and_epoch(fixture_modules, context):
    loader = in_pairs(fixture_modules["sdl011_imgaug_fixed"].make_loader(SCENES), context)
    first, second = samples_per_epoch(loader)
    assert len(set(per_worker(first))) == 4
    assert first != second


def test_fixed_pipeline_is_reproducible_under_manual_seed(fixture_modules):
    module = fixture_modules["sdl011_imgaug_fixed"]
    assert samples_per_epoch(in_pairs(module.make_loader(SCENES), "fork")) == samples_per_epoch(
        in_pairs(module.make_loader(SCENES), "fork")
    )


def test_imgaug_seed_in_worker_init_fn_reseeds_forked_workers(fixture_modules):
    loader = in_pairs(fixture_modules["sdl011_imgaug_worker_init_fn"].make_loader(SCENES), "fork")
    first, second = samples_per_epoch(loader)
    assert len(set(per_worker(first))) == 4
    assert first != second


@pytest.mark.parametrize("context", ["spawn", "forkserver"])
def test_imgaug_seed_in_worker_init_fn_misses_pickled_augmenters(fixture_modules, context):
    loader = in_pairs(fixture_modules["sdl011_imgaug_worker_init_fn"].make_loader(SCENES), context)
    first, second = samples_per_epoch(loader)
    assert len(set(per_worker(first))) == 1
    assert first == second


def test_flagged_spawned_loader_repeats_despite_imgaug_seed(fixture_modules):
    original = fixture_modules["sdl011_imgaug_spawned"].make_loader(SCENES)
    first, second = samples_per_epoch(in_pairs(original, original.multiprocessing_context))
    assert len(set(per_worker(first))) == 1
    assert first == second


def test_fixed_spawned_loader_draws_per_worker_and_epoch(fixture_modules):
    fixed = fixture_modules["sdl011_imgaug_spawned_fixed"].make_loader(SCENES)
    first, second = samples_per_epoch(in_pairs(fixed, fixed.multiprocessing_context))
    assert len(set(per_worker(first))) == 4
    assert first != second
