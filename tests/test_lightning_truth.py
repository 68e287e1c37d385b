"""Truth for SDL101-SDL107, SDL110 against the real library: every batch sampler class in the
fixtures goes through the code Lightning itself runs to re-create a DataLoader with a
distributed sampler (``lightning.pytorch.utilities.data._update_dataloader``); each class
seedlint flags must fail there (or silently misbehave) the way its message says, and each
class it does not flag must be re-created around the injected sampler."""

from __future__ import annotations

import inspect
import re
import sys
from pathlib import Path

import pytest
import torch
from torch.utils.data import BatchSampler, DataLoader, DistributedSampler, RandomSampler, TensorDataset

from fixture_cases import ROOT, Case
from runtime_support import load_module
from seedlint.engine import Engine

lightning = pytest.importorskip("lightning", reason="lightning is not installed (pip install -e .[test])")
from lightning.fabric.utilities.data import _set_sampler_epoch  # noqa: E402
from lightning.pytorch.trainer.states import RunningStage  # noqa: E402
from lightning.pytorch.utilities.data import _update_dataloader  # noqa: E402
from lightning.fabric.utilities.data import _replace_dunder_methods  # noqa: E402

DATASET = TensorDataset(torch.arange(64.0))


class _SpokenDataset(TensorDataset):
    """The dataset as a speech corpus: its items' audio paths."""

    def __init__(self):
        super().__init__(torch.arange(64.0))
        self.audio_paths = [f"clip{i:03d}" + "x" * (i % 7) + ".wav" for i in range(64)]
LIGHTNING_TYPE_ERROR = (
    "Lightning can't inject a (distributed) sampler into your batch sampler, because it doesn't subclass "
    "PyTorch's `BatchSampler`"
)


def diagnostics(case_path: Path, tmp_path: Path):
    case = Case(case_path.parent.name, case_path.stem, case_path)
    project = case.install(tmp_path)
    return Engine(case.settings_for(project)).check([str(project)]).diagnostics


def message_for(found, class_line_code):
    for diagnostic in found:
        if diagnostic.code == class_line_code:
            return diagnostic.message
    return None


def recreate(batch_sampler_factory, in_hook: bool):
    """Build the loader as the fixture does (inside a hook: under Lightning's argument
    recording), then re-create it exactly as Lightning does under DDP."""
    if in_hook:
        with _replace_dunder_methods(BatchSampler):
            batch_sampler = batch_sampler_factory()
    else:
        batch_sampler = batch_sampler_factory()
    loader = DataLoader(DATASET, batch_sampler=batch_sampler)
    injected = DistributedSampler(DATASET, num_replicas=2, rank=0, shuffle=False)
    return batch_sampler, injected, lambda: _update_dataloader(loader, injected, mode=RunningStage.TRAINING)


def module(relative: str):
    path = ROOT / relative
    sys.path.insert(0, str(path.parent.parent if path.parent.name == "semi" else path.parent))
    try:
        return load_module(path)
    finally:
        sys.path.pop(0)


# (fixture case, module file, code seedlint reports or None, factory, built inside a hook)
def cases():
    labeled, unlabeled = list(range(16)), list(range(16, 64))
    return [
        ("SDL101/two_stream_ddp", "SDL101/two_stream_ddp/semi/samplers.py", "SDL101",
         lambda m: m.TwoStreamBatchSampler(labeled, unlabeled, 8, 4), True),
        ("SDL101/unexpected_keyword_batch_size.py", "SDL101/unexpected_keyword_batch_size.py", "SDL101",
         lambda m: m.TwoStreamBatchSampler(labeled, unlabeled, 4, 4), True),
        ("SDL101/missing_required_argument.py", "SDL101/missing_required_argument.py", "SDL101",
         lambda m: m.GroupedBatchSampler(RandomSampler(DATASET), [i % 2 for i in range(64)], 8), False),
        ("SDL101/sampler_attribute_read_on_recreation.py", "SDL101/sampler_attribute_read_on_recreation.py", "SDL101",
         lambda m: m.LengthGroupedSampler(RandomSampler(DATASET), batch_size=8, shuffle=True), False),
        ("SDL106/lost_argument_guarded_source_read.py", "SDL106/lost_argument_guarded_source_read.py", "SDL106",
         lambda m: m.LengthGroupedSampler(RandomSampler(DATASET), batch_size=8, shuffle=True), False),
        ("SDL101/lightning_cli_ddp_config", "SDL101/lightning_cli_ddp_config/speech/data.py", "SDL101",
         lambda m: m.BucketSampler(list(range(1, 65)), 8), True),
        ("SDL101/sampler_attribute_read_in_comprehension.py", "SDL101/sampler_attribute_read_in_comprehension.py", "SDL101",
         lambda m: m.DurationBatchSampler(RandomSampler(_SpokenDataset()), batch_size=8), True),
        ("SDL101/distributed_sampler_subclass_as_batch_sampler.py", "SDL101/distributed_sampler_subclass_as_batch_sampler.py",
         "SDL101", lambda m: m.LengthBucketBatches(DATASET, 8, num_replicas=2, rank=0), True),
        ("SDL101/distributed_sampler_subclass_without_init.py", "SDL101/distributed_sampler_subclass_without_init.py",
         "SDL101", lambda m: m.PairedBatches(DATASET, num_replicas=2, rank=0), True),
        ("SDL101/clean_proper_batch_sampler.py", "SDL101/clean_proper_batch_sampler.py", None,
         lambda m: m.TwoStreamBatchSampler(RandomSampler(DATASET), 8, False, unlabeled, 2), True),
        ("SDL102/bucket_sampler_without_sampler.py", "SDL102/bucket_sampler_without_sampler.py", "SDL102",
         lambda m: m.BucketBatchSampler(list(range(64)), 8), True),
        ("SDL102/clean_bucket_sampler_with_sampler.py", "SDL102/clean_bucket_sampler_with_sampler.py", None,
         lambda m: m.BucketBatchSampler(RandomSampler(DATASET), 8, lengths=list(range(64))), True),
        ("SDL106/first_parameter_not_sampler.py", "SDL106/first_parameter_not_sampler.py", "SDL106",
         lambda m: m.ChunkBatchSampler(range(64), 16), True),
        ("SDL106/extra_arguments_outside_hook.py", "SDL106/extra_arguments_outside_hook.py", "SDL106",
         lambda m: m.BucketBatchSampler(RandomSampler(DATASET), 8, drop_last=True, bucket_width=20), False),
        ("SDL106/clean_extra_arguments_in_hook.py", "SDL106/clean_extra_arguments_in_hook.py", None,
         lambda m: m.BucketBatchSampler(RandomSampler(DATASET), 8, drop_last=True, bucket_width=20), True),
        ("SDL107/set_epoch_on_batch_sampler.py", "SDL107/set_epoch_on_batch_sampler.py", "SDL107",
         lambda m: m.EpochShuffledBatches(torch.utils.data.SequentialSampler(DATASET), 8, seed=7), True),
    ]


@pytest.mark.parametrize("case", cases(), ids=[c[0] for c in cases()])
def test_batch_sampler_recreation_matches_message(case, tmp_path):
    case_name, module_file, code, factory, in_hook = case
    found = diagnostics(ROOT / case_name, tmp_path)
    assert [d.code for d in found] == ([code] if code else []), [d.message for d in found]
    fixture = module(module_file)
    original, injected, run = recreate(lambda: factory(fixture), in_hook)
    message = found[0].message if code else ""

    if code in ("SDL101", "SDL102"):
        with pytest.raises((TypeError, AttributeError)) as raised:
            run()
        error = str(raised.value)
        if LIGHTNING_TYPE_ERROR in error:
            assert LIGHTNING_TYPE_ERROR.split("`")[0] in message
        elif code == "SDL102":
            assert f"`TypeError: {error.split(' To mitigate')[0]}`" in message, (error, message)
        else:
            assert f"`{type(raised.value).__name__}: {error}`" in message, (error, message)
        return

    recreated = run().batch_sampler
    assert recreated is not original
    if code == "SDL106":
        first = re.search(r"arrives as `(\w+)`", message)
        if first:
            landed = getattr(recreated, first.group(1))  # the sampler landed in the wrong parameter
            assert landed is injected or list(landed) == list(injected)
            assert list(landed) != list(getattr(original, first.group(1)))
        else:
            lost = re.search(r"argument `(\w+)`", message).group(1)
            assert getattr(recreated, lost) != getattr(original, lost)
        return
    assert recreated.sampler is injected
    if code == "SDL107":
        _set_sampler_epoch(DataLoader(DATASET, batch_sampler=recreated), 3)
        assert recreated.epoch == 0, "Lightning never calls set_epoch on the batch sampler"
        assert injected.epoch == 3


def test_plain_batch_sampler_is_dropped(tmp_path):
    found = diagnostics(ROOT / "SDL104/plain_batch_sampler.py", tmp_path)
    assert {d.code for d in found} == {"SDL104"}
    plain = BatchSampler(RandomSampler(DATASET), 32, drop_last=True)
    injected = DistributedSampler(DATASET, num_replicas=2, rank=0)
    loader = DataLoader(DATASET, batch_sampler=plain)
    recreated = _update_dataloader(loader, injected, mode=RunningStage.TRAINING)
    assert recreated.sampler is injected and recreated.batch_sampler is not plain
    assert recreated.batch_size in (None, 1)
    with _replace_dunder_methods(DataLoader, "dataset"):
        in_hook = DataLoader(DATASET, batch_sampler=BatchSampler(RandomSampler(DATASET), 32, drop_last=True))
    assert _update_dataloader(in_hook, injected, mode=RunningStage.TRAINING).batch_size == 1


def test_renamed_flags_against_real_signatures(tmp_path):
    from lightning.fabric import Fabric
    from lightning.pytorch import Trainer

    trainer_params = inspect.signature(Trainer.__init__).parameters
    assert "use_distributed_sampler" in trainer_params and "replace_sampler_ddp" not in trainer_params
    fabric_params = inspect.signature(Fabric.setup_dataloaders).parameters
    assert "use_distributed_sampler" in fabric_params and "replace_sampler" not in fabric_params
    found = diagnostics(ROOT / "SDL103/trainer_keyword_undeclared.py", tmp_path)
    with pytest.raises(TypeError) as raised:
        Trainer(replace_sampler_ddp=False)
    assert f"`TypeError: {raised.value}`" in found[0].message


def test_dataloader_argument_conflicts_raise(tmp_path):
    found = diagnostics(ROOT / "SDL110/batch_size_none.py", tmp_path)
    batches = BatchSampler(RandomSampler(DATASET), batch_size=8, drop_last=False)
    for kwargs in ({"batch_size": None}, {"shuffle": True}, {"drop_last": True}, {"sampler": RandomSampler(DATASET)}):
        with pytest.raises(ValueError) as raised:
            DataLoader(DATASET, batch_sampler=batches, **kwargs)
        assert f"`ValueError: {raised.value}`" in found[0].message
    DataLoader(DATASET, batch_sampler=batches, shuffle=False, sampler=None, batch_size=1)
