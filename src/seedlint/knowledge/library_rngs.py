"""RNGs that libraries keep for the user and torch never reseeds in a DataLoader worker.

A worker starts with a copy of the parent (forked, or pickled under spawn/forkserver), so an
augmenter or transform built in the parent draws the same numbers in every worker, and,
without persistent workers, in every epoch. Each entry says which library objects draw from
such an RNG, in which library versions, what reseeds it in a worker, and the statement a
fix inserts at the top of a dataset method that calls the object held as ``self.<attr>``.

Sources, per library (the versions checked):
- imgaug 0.4.0: ``imgaug/random.py`` (``GLOBAL_RNG``, ``seed``), ``imgaug/augmenters/meta.py``
  (an augmenter built without ``seed`` holds the global generator itself; ``seed_`` gives it
  and its children their own; ``to_deterministic`` draws the copy's seed from it with
  ``derive_rng_``). ``imgaug.seed`` in a ``worker_init_fn`` reaches those under
  fork only; ``seed_`` on the held augmenter under every start method. ``get_global_rng``
  makes the global generator at first use from a seed drawn from NumPy's global RNG, from
  0.3.0 on (aleju/imgaug commit ce4a020f, "Change from fixed to random seed"; read in 0.3.0
  and 0.4.0): an augmenter first built in a worker follows that worker's NumPy state (checked
  in real workers with 0.4.0 and a NumPy-seeding ``worker_init_fn``: the workers differ).
  0.2.9 builds ``RandomState(42)`` on import (``imgaug/imgaug.py``): the workers agree.
- MONAI 1.6.1 (same in 0.8-1.3): ``monai/transforms/transform.py`` (``Randomizable.R``, a
  class attribute; ``randomize()`` draws the transform's next parameters from it), ``monai/transforms/compose.py`` (``set_random_state``),
  ``monai/data/dataloader.py`` (its ``worker_init_fn`` unless the caller passes one),
  ``monai/data/utils.py`` (``worker_init_fn``, ``set_rnd``).
  What that reseeding reaches, read in 0.4.0, 0.5.0, 0.6.0, 0.8.0, 1.3.0, 1.4.0 and 1.6.1:
  ``set_rnd`` walks the worker's dataset attribute by attribute and stops at the first object
  that has ``set_random_state``; ``Compose.set_random_state`` reseeds only the ``Randomizable``
  transforms it holds. ``CacheDataset`` and ``PersistentDataset`` (and their subclasses) wrap a
  ``transform`` that is not a ``Compose`` in one; from 1.4.0 ``Dataset.__init__`` does, for
  every subclass (Project-MONAI/MONAI pull request 7784). ``MedNISTDataset``,
  ``DecathlonDataset``, ``TciaDataset`` and, from 0.5.0, ``SmartCacheDataset`` are themselves
  ``Randomizable`` and do not pass a seed on to their transform; checked in real workers with
  1.6.1 (``SmartCacheDataset`` under ``monai.data.DataLoader``: both workers crop alike).
  ``Compose.__init__`` (0.4.0 to 1.6.1; ``OneOf``, ``SomeOf`` and ``RandomOrder`` are
  ``Compose`` subclasses) calls ``set_random_state(seed=get_seed())``: without
  ``set_determinism`` that is fresh OS entropy, for it and for every transform it holds, so a
  ``Compose`` built in a worker draws apart from the other workers' (checked in real workers,
  fork and spawn); a bare ``Rand*`` transform draws from the class-level ``Randomizable.R``,
  which a forked worker copies.
- albumentations 1.4.21-2.0.8: ``core/composition.py``, ``core/transforms_interface.py``
  (``set_random_seed``: a ``default_rng`` and a ``random.Random`` per object, made at
  construction, seeded or not; unseeded, ``default_rng(None)`` takes fresh OS entropy). Up to 1.4.20 it draws with the global ``random`` (fine).
  albumentationsx from 2.3.1 rebuilds them in each worker from ``torch.initial_seed()``
  (``core/random_utils.py``); 2.0.9-2.3.0 only when ``seed`` is an int.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import FrozenSet, Optional, Tuple


MONAI_LOADERS = {
    "monai.data.DataLoader": {"dataset": 0, "num_workers": 1},
    "monai.data.dataloader.DataLoader": {"dataset": 0, "num_workers": 1},
    "monai.data.ThreadDataLoader": {"dataset": 0},
    "monai.data.thread_buffer.ThreadDataLoader": {"dataset": 0},
}
"""MONAI's subclasses of torch's DataLoader, with the positions of their own signatures
(``DataLoader(dataset, num_workers=0, **kwargs)``; ``ThreadDataLoader(dataset, buffer_size,
buffer_timeout, repeats, use_thread_workers, **kwargs)`` passes ``**kwargs`` to it); their
default ``worker_init_fn`` reseeds MONAI's transforms. ``ThreadDataLoader`` reads its
loader's batches in a thread, but starts the loader's iterator (and so its worker
processes) in the caller (``monai/data/thread_buffer.py``, MONAI 1.6.1)."""
MONAI_RANDOMIZABLE_DATASETS = {
    "SmartCacheDataset": "0.5.0", "MedNISTDataset": None, "DecathlonDataset": None, "TciaDataset": None,
}
"""MONAI datasets that are themselves ``Randomizable`` (from the release given; None: every
release that has them): MONAI's per-worker reseeding reseeds their own ``R`` and stops, so the
transform they hold keeps the parent's copy of its RandomState."""
MONAI_COMPOSE_WRAPPING_DATASETS = {
    "CacheDataset": None, "PersistentDataset": None, "CacheNTransDataset": None, "LMDBDataset": None,
    "GDSDataset": None, "SmartCacheDataset": None, "MedNISTDataset": None, "DecathlonDataset": None,
    "TciaDataset": None, "Dataset": "1.4.0", "CSVDataset": "1.4.0", "NPZDictItemDataset": "1.4.0",
}
"""MONAI datasets that wrap a ``transform`` that is not a ``Compose`` in one (from the release
given; None: every release): an object of the project's own that holds MONAI pipelines is then
an item of that ``Compose``, which reseeds only ``Randomizable`` items."""
THREAD_WORKER_SWITCHES = {
    "monai.data.ThreadDataLoader": "use_thread_workers",
    "monai.data.thread_buffer.ThreadDataLoader": "use_thread_workers",
}
"""Library loaders whose keyword, when true, makes their workers threads of the main process
(MONAI 1.6.1 ``ThreadDataLoader``: a ``multiprocessing_context`` whose processes are
threads): nothing is copied or pickled into them."""
TORCH_SIGNATURE = {
    "dataset": 0, "batch_size": 1, "shuffle": 2, "sampler": 3, "batch_sampler": 4, "num_workers": 5,
    "collate_fn": 6, "pin_memory": 7, "drop_last": 8, "timeout": 9, "worker_init_fn": 10,
    "multiprocessing_context": 11, "generator": 12,
}
"""The positions of torch's ``DataLoader(dataset, batch_size, shuffle, sampler, ...)``."""
WEBDATASET_LOADERS = {
    "webdataset.WebLoader": TORCH_SIGNATURE,
    "webdataset.compat.WebLoader": TORCH_SIGNATURE,
}
"""webdataset's ``WebLoader(*args, **kw)`` builds ``DataLoader(*args, **kw)`` and wraps it in a
pipeline (``webdataset/compat.py`` in 0.2.x, ``webdataset/pipeline.py`` before): torch's
loader with torch's signature, its workers started by torch. It is no ``DataLoader`` itself,
so Lightning injects no sampler, ``worker_init_fn`` or ``set_epoch`` into it."""
TIMM_LOADERS = {
    "timm.data.loader.MultiEpochsDataLoader": TORCH_SIGNATURE,
}
"""timm's ``MultiEpochsDataLoader(*args, **kwargs)`` (``timm/data/loader.py``, 0.4.12 to 1.0):
torch's DataLoader with torch's signature, whose ``__init__`` wraps the (batch) sampler in a
``_RepeatSampler`` and starts its workers once (``self.iterator = super().__iter__()``); every
epoch is served by those same workers. ``timm.data`` does not export it."""
LOADERS_KEEPING_THEIR_WORKERS = frozenset(TIMM_LOADERS)
"""Library loaders whose workers start once and serve every epoch."""
LIBRARY_LOADERS = {**MONAI_LOADERS, **WEBDATASET_LOADERS, **TIMM_LOADERS}
"""Library loader classes the analysis treats as loaders, with their positions."""


@dataclass(frozen=True)
class HeldRng:
    library: str
    """The import name of the library, also how messages name it."""
    rng: str
    """How messages name the RNG the objects draw from."""
    prefixes: Tuple[str, ...]
    """Qualified-name prefixes of the library's objects."""
    random_names: Tuple[str, ...]
    """Class-name prefixes (or whole names) of the objects that draw; ``*`` is all but
    ``deterministic`` and containers."""
    deterministic: FrozenSet[str]
    """Class names under the prefixes that draw nothing."""
    containers: FrozenSet[str]
    """Class names that hold other objects (their first argument) and draw only through them."""
    run_methods: FrozenSet[str]
    """Methods that run the object (besides calling it)."""
    reseeders: FrozenSet[str]
    """Calls that reseed it when a worker makes them."""
    reseed_methods: FrozenSet[str]
    """Methods of the objects that reseed them (``aug.seed_(s)``)."""
    reseeders_need_fork: bool = False
    """The reseeders reseed a module-level RNG that the objects share only in a forked
    worker; a worker started by spawn or forkserver unpickles its own copy of it."""
    seeding_loaders: FrozenSet[str] = frozenset()
    """Loader classes whose default ``worker_init_fn`` reseeds it."""
    reseed: str = ""
    """The statement that reseeds ``{held}`` from ``{seed}`` (a worker's seed)."""
    worker_init: str = ""
    """A function of the library's that, called with the worker id in a worker, reseeds every
    object of the library the worker's dataset holds in its attributes."""
    advice: str = ""
    """What to add, when no fix is offered."""
    distributions: Tuple[Tuple[str, str], ...] = ()
    """(distribution, affected version specifiers): versions of the library where the
    RNG is copied into workers; no entry means every version."""
    fixed_seed_follows_workers: Tuple[Tuple[str, str], ...] = ()
    """(distribution, specifiers) where an object built with an int ``seed`` is reseeded per
    worker by the library itself."""
    affected_releases: str = ""
    """How messages name the affected releases when the project declares none."""
    reseed_since: str = ""
    """The first library version that has the method ``reseed`` calls."""
    built_in_worker_alike: str = ""
    """Specifiers of the releases where an object built in worker code draws from a global
    generator that every worker starts alike; outside them that generator is made at first
    use from the worker's own NumPy state. Empty: every release."""
    built_in_worker_alike_named: str = ""
    """How messages name those releases."""
    fresh_per_object: bool = False
    """An object built without a seed draws from a generator of its own, made from fresh OS
    entropy: one built in worker code (inside ``__getitem__``) is no copy of the parent's."""
    fresh_containers: FrozenSet[str] = frozenset()
    """Containers that, when built, seed themselves and what they hold (from fresh OS entropy
    unless a global seed is set): one built in worker code holds no copy."""


IMGAUG = HeldRng(
    library="imgaug",
    rng="imgaug's global RNG",
    prefixes=("imgaug.augmenters.",),
    random_names=("*",),
    deterministic=frozenset({
        "Identity", "Noop", "Lambda", "AssertLambda", "AssertShape", "Resize", "CenterCropToFixedSize",
        "CenterPadToFixedSize", "CenterCropToMultiplesOf", "CenterPadToMultiplesOf", "KeepSizeByResize",
        "ChangeColorspace",
    }),
    containers=frozenset({"Sequential"}),
    run_methods=frozenset({
        "augment", "augment_image", "augment_images", "augment_batch", "augment_batch_",
        "augment_batches", "augment_keypoints", "augment_bounding_boxes", "augment_segmentation_maps",
        "augment_heatmaps", "augment_polygons", "to_deterministic",
    }),
    reseeders=frozenset({"imgaug.seed", "imgaug.random.seed", "imgaug.imgaug.seed"}),
    reseed_methods=frozenset({"seed_", "reseed"}),
    reseeders_need_fork=True,
    reseed="{held}.seed_({seed} % 2**32)",
    reseed_since="0.4",
    built_in_worker_alike="<0.3",
    built_in_worker_alike_named="on imgaug < 0.3, whose global RNG starts from seed 42 in every worker",
    advice="call `.seed_(torch.initial_seed() % 2**32)` on the augmenter in each worker "
           "(`imgaug.seed(...)` in a worker_init_fn reaches it only under the fork start method)",
)

MONAI = HeldRng(
    library="monai",
    rng="MONAI's `Randomizable.R` RandomState",
    prefixes=("monai.transforms.",),
    random_names=("Rand", "OneOf", "SomeOf", "RandomOrder"),
    deterministic=frozenset(),
    containers=frozenset({"Compose"}),
    run_methods=frozenset({"__call__", "randomize"}),
    reseeders=frozenset({
        "monai.data.utils.worker_init_fn", "monai.data.worker_init_fn",
        "monai.data.utils.set_rnd", "monai.data.set_rnd",
    }),
    reseed_methods=frozenset({"set_random_state"}),
    seeding_loaders=frozenset(MONAI_LOADERS),
    fresh_containers=frozenset({"Compose", "OneOf", "SomeOf", "RandomOrder"}),
    reseed="{held}.set_random_state(seed={seed} % 2**32)",
    worker_init="monai.data.worker_init_fn",
    advice="load it with `monai.data.DataLoader` and no worker_init_fn of your own, or call "
           "`monai.data.utils.worker_init_fn(worker_id)` from yours",
)

ALBUMENTATIONS = HeldRng(
    library="albumentations",
    rng="the generators albumentations gives each transform",
    prefixes=("albumentations.",),
    random_names=("*",),
    deterministic=frozenset({
        "Normalize", "Resize", "ToTensorV2", "ToFloat", "FromFloat", "PadIfNeeded", "CenterCrop",
        "LongestMaxSize", "SmallestMaxSize", "Lambda", "NoOp", "Crop", "ToRGB",
    }),
    containers=frozenset({"Compose", "Sequential", "ReplayCompose"}),
    run_methods=frozenset({"__call__"}),
    reseeders=frozenset(),
    reseed_methods=frozenset({"set_random_seed", "set_random_state"}),
    reseed="{held}.set_random_seed({seed} % 2**32)",
    advice="call `.set_random_seed(torch.utils.data.get_worker_info().seed % 2**32)` on the "
           "pipeline in each worker",
    distributions=(("albumentations", ">=1.4.21"), ("albumentationsx", "<2.3.1")),
    fixed_seed_follows_workers=(("albumentationsx", ">=2.0.9"),),
    affected_releases="albumentations 1.4.21 to 2.0.8 and albumentationsx before 2.3.1 keep these generators",
    reseed_since="1.4.21",
    fresh_per_object=True,
)

HELD_RNGS: Tuple[HeldRng, ...] = (IMGAUG, MONAI, ALBUMENTATIONS)


def held_rng_of(qualified: str) -> Optional[HeldRng]:
    """The entry whose objects ``qualified`` names, if any."""
    return next((entry for entry in HELD_RNGS if qualified.startswith(entry.prefixes)), None)


def class_name(qualified: str) -> str:
    return qualified.rsplit(".", 1)[-1]


def draws_itself(entry: HeldRng, qualified: str) -> bool:
    """An object of this class draws from the held RNG when it runs (containers draw only
    through what they hold)."""
    name = class_name(qualified)
    if name in entry.containers or name in entry.deterministic:
        return False
    if "*" in entry.random_names:
        return name[:1].isupper()
    return name.startswith(entry.random_names)


def is_container(entry: HeldRng, qualified: str) -> bool:
    return class_name(qualified) in entry.containers


def reseeded_by(qualified: str) -> Tuple[HeldRng, ...]:
    """The entries whose RNG a call of ``qualified`` reseeds (``imgaug.seed``)."""
    return tuple(entry for entry in HELD_RNGS if qualified in entry.reseeders)
