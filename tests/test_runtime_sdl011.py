"""Runtime truth for SDL011 with MONAI: random transforms built in the parent draw the same
numbers in every worker of a plain torch DataLoader (and in every epoch); the --fix output
reseeds the pipeline once per worker, and MONAI's own DataLoader reseeds it unless a
worker_init_fn of the caller's replaces MONAI's, or a library's that reseeds only the global
RNGs (Lightning's ``pl_worker_init_function``), or MONAI's walk of the dataset never reaches
the pipeline (an object of the project's own inside the ``Compose`` a ``CacheDataset``
wraps it in; a ``SmartCacheDataset``, which is itself ``Randomizable``). imgaug is not exercised here: imgaug 0.4.0
does not import with NumPy 2 (``np.sctypes`` was removed), which the test environment has."""

import importlib
import os
import shutil
import sys
from pathlib import Path

import numpy as np
import pytest
import torch
from runtime_support import per_worker, samples_per_epoch

if not os.environ.get("CI"):
    pytest.importorskip("monai")  # a test dependency; in CI its absence is a failure

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "SDL011"
FRAMES = [np.zeros((4, 4), dtype=np.float32)] * 8
"""Equal inputs: any difference between samples is the transforms' randomness."""


def _imported(names, tmp_path, monkeypatch):
    """The fixture files as modules spawned workers can import (removed afterwards)."""
    for module, source in names.items():
        shutil.copy(FIXTURES / source, tmp_path / f"{module}.py")
    monkeypatch.syspath_prepend(str(tmp_path))
    yield {name: importlib.import_module(name) for name in names}
    for name in names:
        sys.modules.pop(name, None)


@pytest.fixture
def fixture_modules(tmp_path, monkeypatch):
    """The flagged and fixed project dataset, and the MONAI-loader fixtures, as modules
    importable by spawned workers."""
    names = {
        "sdl011_original": "monai_transform_on_project_dataset.py",
        "sdl011_fixed": "monai_transform_on_project_dataset.fixed.py",
        "sdl011_own_init": "monai_loader_with_own_worker_init_fn.py",
        "sdl011_own_init_fixed": "monai_loader_with_own_worker_init_fn.fixed.py",
        "sdl011_monai_loader": "clean_monai_dataloader.py",
        "sdl011_plain_loader": "monai_pipeline_module/train.py",
        "sdl011_plain_loader_fixed": "monai_pipeline_module/train.fixed.py",
        "transforms": "monai_pipeline_module/transforms.py",
        "sdl011_wrapped": "monai_pipelines_held_by_own_transform_in_a_cache_dataset.py",
        "sdl011_wrapped_randomizable": "clean_monai_pipelines_held_by_own_randomizable_transform.py",
        "sdl011_smart_cache": "monai_transform_of_a_smart_cache_dataset/train.py",
    }
    yield from _imported(names, tmp_path, monkeypatch)


CONTEXTS = ["fork", "spawn"]


@pytest.mark.parametrize("context", CONTEXTS)
def test_flagged_project_dataset_repeats_across_workers_and_epochs(fixture_modules, context):
    loader = fixture_modules["sdl011_original"].make_loader(FRAMES)
    loader.multiprocessing_context = context
    first, second = samples_per_epoch(loader)
    assert len(set(per_worker(first))) == 1, "every worker draws the same noise"
    assert first == second, "every epoch repeats it"


@pytest.mark.parametrize("context", CONTEXTS)
def test_fixed_project_dataset_draws_per_worker_and_epoch(fixture_modules, context):
    loader = fixture_modules["sdl011_fixed"].make_loader(FRAMES)
    loader.multiprocessing_context = context
    first, second = samples_per_epoch(loader)
    assert len(set(per_worker(first))) == 4
    assert first != second


def test_fixed_project_dataset_is_reproducible_under_manual_seed(fixture_modules):
    module = fixture_modules["sdl011_fixed"]
    assert samples_per_epoch(module.make_loader(FRAMES)) == samples_per_epoch(module.make_loader(FRAMES))


def records():
    return [{"image": frame} for frame in FRAMES]


def test_own_worker_init_fn_replaces_monai_reseeding(fixture_modules):
    first, second = samples_per_epoch(fixture_modules["sdl011_own_init"].make_loader(records()))
    assert len(set(per_worker(first))) == 1
    assert first == second


def test_fixed_own_worker_init_fn_reseeds_per_worker(fixture_modules):
    first, second = samples_per_epoch(fixture_modules["sdl011_own_init_fixed"].make_loader(records()))
    noisy = [sample for sample in first + second if any(sample)]  # the noise has p=0.3 per sample
    assert len(noisy) >= 2
    assert len(set(noisy)) == len(noisy), "no two workers or epochs draw the same noise"
    assert len(set(per_worker(first))) > 1
    assert first != second


PATCHES = [{"image": (np.arange(36, dtype=np.float32) ** 2).reshape(6, 6)} for _ in range(8)]
"""Equal, asymmetric images: where a 3x3 patch is cut shows in its values."""


def patch_loader(module):
    return module.make_loader(
        [dict(record, label=record["image"]) for record in PATCHES], patch=(3, 3), workers=4, batch_size=2
    )


def test_plain_loader_over_monai_dataset_repeats_patches(fixture_modules):
    first, second = samples_per_epoch(patch_loader(fixture_modules["sdl011_plain_loader"]))
    assert len(set(first)) > 1, "the crop does move"
    assert len(set(per_worker(first))) == 1
    assert first == second


def test_fixed_plain_loader_cuts_patches_per_worker_and_epoch(fixture_modules):
    first, second = samples_per_epoch(patch_loader(fixture_modules["sdl011_plain_loader_fixed"]))
    assert len(set(per_worker(first))) == 4
    assert first != second


def test_monai_dataloader_reseeds_per_worker(fixture_modules):
    first, second = samples_per_epoch(fixture_modules["sdl011_monai_loader"].make_loader(records()))
    assert len(set(per_worker(first))) == 4
    assert first != second


@pytest.fixture
def lightning_modules(tmp_path, monkeypatch):
    if not os.environ.get("CI"):
        pytest.importorskip("lightning")  # a test dependency; in CI its absence is a failure
    names = {
        "sdl011_lightning_init": "monai_pipeline_under_lightning_worker_init.py",
        "sdl011_lightning_init_fixed": "monai_pipeline_under_lightning_worker_init.fixed.py",
    }
    yield from _imported(names, tmp_path, monkeypatch)


def test_lightning_worker_init_leaves_monai_pipeline_duplicated(lightning_modules):
    """Lightning's worker_init_fn reseeds NumPy, torch and ``random`` per worker, and the MONAI
    transforms' own RandomState stays the parent's copy in every worker."""
    first, second = samples_per_epoch(lightning_modules["sdl011_lightning_init"].make_loader(FRAMES))
    assert len(set(per_worker(first))) == 1, "every worker draws the same contrast and noise"
    assert first == second, "every epoch repeats them"


def test_fixed_pipeline_under_lightning_worker_init_draws_per_worker(lightning_modules):
    first, second = samples_per_epoch(lightning_modules["sdl011_lightning_init_fixed"].make_loader(FRAMES))
    assert len(set(per_worker(first))) > 1
    assert first != second


def test_own_transform_in_a_cache_dataset_hides_its_pipelines_from_monai_reseeding(fixture_modules):
    first, second = samples_per_epoch(fixture_modules["sdl011_wrapped"].make_loader(records()))
    assert len(set(first)) > 1, "the noise does vary within a worker"
    assert len(set(per_worker(first))) == 1, "MONAI's DataLoader leaves every worker the same noise"
    assert first == second


def test_randomizable_own_transform_passes_monai_reseeding_on(fixture_modules):
    first, second = samples_per_epoch(fixture_modules["sdl011_wrapped_randomizable"].make_loader(records()))
    assert len(set(per_worker(first))) == 4
    assert first != second


def reseed_dataset_transform(worker_id):
    """The worker_init_fn the SDL011 message advises for a ``Randomizable`` MONAI dataset."""
    info = torch.utils.data.get_worker_info()
    info.dataset.transform.set_random_state(seed=info.seed % 2**32)


def test_smart_cache_dataset_hides_its_transform_from_monai_reseeding(fixture_modules):
    module = fixture_modules["sdl011_smart_cache"]
    channel_first = [{"image": frame[None]} for frame in FRAMES]
    first, second = samples_per_epoch(module.make_loader(channel_first))
    assert len(set(first)) > 1
    assert len(set(per_worker(first))) == 1, "MONAI's DataLoader leaves every worker the same crops and noise"
    assert first == second

    advised = module.make_loader(channel_first)
    advised.worker_init_fn = reseed_dataset_transform
    first, second = samples_per_epoch(advised)
    assert len(set(per_worker(first))) == 4
    assert first != second


def test_the_randomizable_datasets_of_the_catalogue_keep_their_transforms_from_monai_reseeding():
    """What ``knowledge.library_rngs.MONAI_RANDOMIZABLE_DATASETS`` says, on the installed MONAI:
    each class is ``Randomizable`` with the base ``set_random_state``, which reseeds only its
    own RandomState, so ``set_rnd`` stops at the dataset."""
    import monai.apps
    import monai.data
    from monai.transforms import Randomizable

    from seedlint.knowledge.library_rngs import MONAI_RANDOMIZABLE_DATASETS

    for name in MONAI_RANDOMIZABLE_DATASETS:
        cls = getattr(monai.data, name, None) or getattr(monai.apps, name)
        assert issubclass(cls, Randomizable)
        assert cls.set_random_state is Randomizable.set_random_state


def test_a_monai_compose_built_in_worker_code_draws_apart_in_each_worker(tmp_path, monkeypatch):
    """The clean fixture: the pipeline is built per item inside ``__getitem__``; a MONAI
    ``Compose`` seeds itself from fresh entropy when built, so no worker repeats another."""
    import monai.utils.misc

    monkeypatch.setattr(monai.utils.misc, "_seed", None)  # as in a program that never calls set_determinism
    modules = _imported({"sdl011_built_in_worker": "clean_monai_compose_built_in_worker_code.py"}, tmp_path, monkeypatch)
    module = next(modules)["sdl011_built_in_worker"]
    volumes = [np.arange(64, dtype=np.float32).reshape(1, 8, 8)] * 8
    loader = module.make_loader(volumes, [3] * 8)
    loader.multiprocessing_context = "fork"
    first, _ = samples_per_epoch(loader)
    next(modules, None)
    assert len(first) == 8
    assert len(set(first)) > 4, "forked workers do not crop alike (a copied RandomState would give at most two crops)"
