"""The rule registry: adding a rule is one module and one line here."""

from typing import Dict, Tuple

from seedlint.rules.base import Project, Rule
from seedlint.rules.sdl001_numpy_global_rng_in_workers import NumpyGlobalRngInWorkers
from seedlint.rules.sdl002_rng_object_copied_to_workers import RngObjectCopiedToWorkers
from seedlint.rules.sdl003_worker_init_fn_repeats_every_epoch import WorkerInitFnRepeatsEveryEpoch
from seedlint.rules.sdl004_worker_seed_out_of_range import WorkerSeedOutOfRange
from seedlint.rules.sdl005_iterable_dataset_not_sharded import IterableDatasetNotSharded
from seedlint.rules.sdl006_unpicklable_worker_callable import UnpicklableWorkerCallable
from seedlint.rules.sdl007_global_reseed_every_epoch import GlobalReseedEveryEpoch
from seedlint.rules.sdl008_identical_worker_streams_across_ranks import IdenticalWorkerStreamsAcrossRanks
from seedlint.rules.sdl009_distributed_sampler_without_set_epoch import DistributedSamplerWithoutSetEpoch
from seedlint.rules.sdl010_persistent_workers_stale_dataset import PersistentWorkersStaleDataset
from seedlint.rules.sdl011_library_rng_copied_to_workers import LibraryRngCopiedToWorkers
from seedlint.rules.sdl012_notebook_worker_code_under_spawn import NotebookWorkerCodeUnderSpawn
from seedlint.rules.sdl101_batch_sampler_not_reinstantiable import BatchSamplerNotReinstantiable
from seedlint.rules.sdl102_batch_sampler_without_sampler_arg import BatchSamplerWithoutSamplerArg
from seedlint.rules.sdl103_replace_sampler_ddp_removed import ReplaceSamplerDdpRemoved
from seedlint.rules.sdl104_plain_batch_sampler_dropped import PlainBatchSamplerDropped
from seedlint.rules.sdl105_use_distributed_sampler_on_lightning_1 import UseDistributedSamplerOnLightning1
from seedlint.rules.sdl106_batch_sampler_extra_args_lost import BatchSamplerExtraArgsLost
from seedlint.rules.sdl107_batch_sampler_set_epoch_ignored import BatchSamplerSetEpochIgnored
from seedlint.rules.sdl110_dataloader_argument_conflict import DataloaderArgumentConflict

RULES: Tuple[Rule, ...] = (
    NumpyGlobalRngInWorkers(),
    RngObjectCopiedToWorkers(),
    WorkerInitFnRepeatsEveryEpoch(),
    WorkerSeedOutOfRange(),
    IterableDatasetNotSharded(),
    UnpicklableWorkerCallable(),
    GlobalReseedEveryEpoch(),
    IdenticalWorkerStreamsAcrossRanks(),
    DistributedSamplerWithoutSetEpoch(),
    PersistentWorkersStaleDataset(),
    LibraryRngCopiedToWorkers(),
    NotebookWorkerCodeUnderSpawn(),
    BatchSamplerNotReinstantiable(),
    BatchSamplerWithoutSamplerArg(),
    ReplaceSamplerDdpRemoved(),
    PlainBatchSamplerDropped(),
    UseDistributedSamplerOnLightning1(),
    BatchSamplerExtraArgsLost(),
    BatchSamplerSetEpochIgnored(),
    DataloaderArgumentConflict(),
)
BY_CODE: Dict[str, Rule] = {rule.code: rule for rule in RULES}

__all__ = ["BY_CODE", "RULES", "Project", "Rule"]
