"""Runtime truth for SDL110: the errors its messages quote are torch's own, raised as the
DataLoader is built, and the --fix output builds (and still shuffles without a sampler)."""

import argparse
import socket
from pathlib import Path

import pytest
import torch
import torch.distributed as dist
from torch.utils.data import BatchSampler, DataLoader, RandomSampler, SequentialSampler

from runtime_support import load_module
from seedlint.rules.sdl110_dataloader_argument_conflict import SAMPLER_ERROR, TORCH_ERROR

FIXTURE = Path(__file__).resolve().parent.parent / "fixtures" / "SDL110" / "sampler_with_shuffle_true"


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.fixture
def one_process_group():
    dist.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{_free_port()}", rank=0, world_size=1)
    yield
    dist.destroy_process_group()


def test_the_quoted_errors_are_torchs():
    data = list(range(8))
    with pytest.raises(ValueError) as batch_sampler_error:
        DataLoader(data, batch_size=4, batch_sampler=BatchSampler(SequentialSampler(data), 4, False))
    assert f"{type(batch_sampler_error.value).__name__}: {batch_sampler_error.value}" == TORCH_ERROR
    with pytest.raises(ValueError) as sampler_error:
        DataLoader(data, shuffle=True, sampler=SequentialSampler(data))
    assert f"{type(sampler_error.value).__name__}: {sampler_error.value}" == SAMPLER_ERROR


def test_flagged_loaders_fail_only_where_the_sampler_is_built(one_process_group):
    module = load_module(FIXTURE / "train.py")
    single = module.build_loader(argparse.Namespace(distributed=False), module.Volumes())
    assert isinstance(single.sampler, RandomSampler)
    with pytest.raises(ValueError, match="sampler option is mutually exclusive with shuffle"):
        module.build_loader(argparse.Namespace(distributed=True), module.Volumes())
    with pytest.raises(ValueError, match="sampler option is mutually exclusive with shuffle"):
        module.build_eval_loader(module.Volumes())


def test_fixed_loaders_build_and_shuffle_without_a_sampler(one_process_group):
    module = load_module(FIXTURE / "train.fixed.py")
    single = module.build_loader(argparse.Namespace(distributed=False), module.Volumes())
    assert isinstance(single.sampler, RandomSampler), "without a sampler the loader still shuffles"
    distributed = module.build_loader(argparse.Namespace(distributed=True), module.Volumes())
    assert type(distributed.sampler).__name__ == "DistributedSampler"
    assert len(list(module.build_eval_loader(module.Volumes()))) == 64
    assert torch.is_tensor(next(iter(distributed)))


def test_monais_loader_raises_the_same():
    monai_data = pytest.importorskip("monai.data")
    data = list(range(8))
    with pytest.raises(ValueError) as sampler_error:
        monai_data.DataLoader(data, shuffle=True, sampler=SequentialSampler(data))
    assert f"{type(sampler_error.value).__name__}: {sampler_error.value}" == SAMPLER_ERROR
