"""Runtime truth for SDL008 under MONAI: when every rank calls ``set_determinism`` with the
same seed, MONAI's DataLoader gives worker k of every rank the same transform seed, so the
ranks draw the same random noise in lockstep (each rank on its own shard of the data); a
seed that adds the rank (the clean fixture) gives every rank its own draws. The ranks are
simulated in one process: what a rank's workers draw depends only on torch's global seed
and the rank's sampler, not on the process group. A seed set at import time under
``mp.spawn`` is checked with a real two-rank gloo job: each spawned rank imports the module
again and repeats it. accelerate's ``Accelerator`` joins the process group of a two-process
job started as ``accelerate launch`` starts it, and its ``set_seed`` gives every process the
same seed unless ``device_specific=True``."""

import ast
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import torch
from torch.utils.data.distributed import DistributedSampler

if not os.environ.get("CI"):
    pytest.importorskip("monai")  # a test dependency; in CI its absence is a failure

RANKS = 2
SEED = 1234


def rank_draws(rank: int, seed: int):
    """What one rank's workers return in its first epoch: noise added to equal zero frames,
    in the loader's order (2 workers, batches of 2: batch k comes from worker k % 2)."""
    from monai.data import DataLoader, Dataset
    from monai.transforms import Compose, RandGaussianNoised
    from monai.utils import set_determinism

    set_determinism(seed=seed)
    records = [{"image": np.zeros((1, 4), dtype=np.float32)} for _ in range(8)]
    dataset = Dataset(data=records, transform=Compose([RandGaussianNoised(keys=["image"], prob=1.0)]))
    sampler = DistributedSampler(dataset, num_replicas=RANKS, rank=rank, shuffle=False)
    loader = DataLoader(dataset, batch_size=2, sampler=sampler, num_workers=2, multiprocessing_context="fork")
    return [tuple(np.round(np.asarray(batch["image"]).ravel(), 6)) for batch in loader]


def test_same_seed_on_every_rank_draws_the_same_noise_on_every_rank():
    first, second = (rank_draws(rank, SEED) for rank in range(RANKS))
    assert first == second, "worker k of each rank draws what worker k of the other rank draws"
    assert len(set(first)) == len(first), "within one rank the workers and batches differ"


def test_rank_dependent_seed_gives_each_rank_its_own_draws():
    first, second = (rank_draws(rank, SEED + rank) for rank in range(RANKS))
    assert not set(first) & set(second)


SPAWNED = Path(__file__).resolve().parent.parent / "fixtures" / "SDL008" / "module_level_seed_under_mp_spawn" / "train.py"


def spawned_rank_draws(script: Path, tmp_path: Path):
    """Run a two-rank gloo job started with mp.spawn; what each rank's workers drew."""
    record = tmp_path / "draws"
    subprocess.run(
        [sys.executable, str(script), "--rendezvous", str(tmp_path / "rendezvous"), "--record", str(record)],
        check=True, cwd=tmp_path, timeout=300,
    )
    return [(tmp_path / f"draws.{rank}").read_text().splitlines() for rank in range(RANKS)]


def test_a_seed_set_at_import_repeats_in_every_spawned_rank(tmp_path):
    first, second = spawned_rank_draws(SPAWNED, tmp_path)
    assert len(first) == 2 and first == second, "worker k of each rank draws what worker k of the other draws"


def test_seeding_each_rank_with_its_rank_gives_each_its_own_draws(tmp_path):
    text = SPAWNED.read_text().replace("\ntorch.manual_seed(2023)\n", "\n")
    text = text.replace("    dataset = NoisyFrames()\n", "    torch.manual_seed(2023 + rank)\n    dataset = NoisyFrames()\n")
    script = tmp_path / "train_rank_seeded.py"
    script.write_text(text)
    first, second = spawned_rank_draws(script, tmp_path)
    assert not set(first) & set(second)


def test_a_seed_in_the_main_block_is_not_repeated_in_spawned_ranks(tmp_path):
    script = SPAWNED.parent.parent / "clean_seed_in_main_block_with_mp_spawn" / "train.py"
    first, second = spawned_rank_draws(script, tmp_path)
    assert not set(first) & set(second), "each spawned rank starts from its own random torch seed"


def torch_rank_draws(rank: int, seed: int, reseed=None, generator_seed=None):
    """One rank of a plain DDP script whose dataset draws with torch: seeded with ``seed``,
    then (as the clean fixtures do) reseeded with ``reseed`` or given a loader generator."""
    from torch.utils.data import DataLoader, Dataset

    class Noise(Dataset):
        def __len__(self):
            return 8

        def __getitem__(self, index):
            return torch.rand(())

    torch.manual_seed(seed)
    if reseed is not None:
        torch.manual_seed(reseed)
    generator = None
    if generator_seed is not None:
        generator = torch.Generator()
        generator.manual_seed(generator_seed)
    sampler = DistributedSampler(Noise(), num_replicas=RANKS, rank=rank, shuffle=False)
    loader = DataLoader(Noise(), batch_size=2, sampler=sampler, num_workers=2, multiprocessing_context="fork",
                        generator=generator)
    return [tuple(round(float(x), 6) for x in batch) for batch in loader]


def test_a_fixed_seed_followed_by_a_per_rank_reseed_gives_each_rank_its_own_draws():
    # fixtures/SDL008/clean_model_seed_then_data_seed_per_rank; the other order is the bug
    first, second = (torch_rank_draws(rank, SEED, reseed=SEED + rank) for rank in range(RANKS))
    assert not set(first) & set(second)
    first, second = (torch_rank_draws(rank, SEED + rank, reseed=SEED) for rank in range(RANKS))
    assert first == second


def test_a_loader_generator_seeded_per_rank_overrides_the_shared_global_seed():
    # fixtures/SDL008/clean_loader_with_a_generator_seeded_per_rank
    first, second = (torch_rank_draws(rank, SEED, generator_seed=SEED + rank) for rank in range(RANKS))
    assert not set(first) & set(second)
    first, second = (torch_rank_draws(rank, SEED) for rank in range(RANKS))
    assert first == second


ACCELERATE = Path(__file__).resolve().parent.parent / "fixtures" / "SDL008"


def accelerate_rank_draws(script: Path, tmp_path: Path):
    """Run the script as a two-process job, as `accelerate launch` (or torchrun) starts it:
    one process per rank, the rank in the environment; what each rank's workers drew."""
    if not os.environ.get("CI"):
        pytest.importorskip("accelerate")
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    record = tmp_path / "draws"
    processes = []
    for rank in range(RANKS):
        environment = dict(os.environ, WORLD_SIZE=str(RANKS), RANK=str(rank), LOCAL_RANK=str(rank),
                           LOCAL_WORLD_SIZE=str(RANKS), MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port))
        processes.append(subprocess.Popen([sys.executable, str(script), "--cpu", "--record", str(record)],
                                          cwd=tmp_path, env=environment))
    assert all(process.wait(timeout=300) == 0 for process in processes)
    return [(tmp_path / f"draws.{rank}").read_text().splitlines() for rank in range(RANKS)]


def as_noise(lines):
    """The recorded noise per batch; recovered as noisy minus clean, so equal up to rounding."""
    return [np.array(ast.literal_eval(line)) for line in lines]


def same_noise(a, b) -> bool:
    return a.shape == b.shape and np.allclose(a, b, atol=1e-3)


def test_accelerate_set_seed_on_every_process_repeats_the_workers_draws_across_ranks(tmp_path):
    first, second = map(as_noise, accelerate_rank_draws(
        ACCELERATE / "accelerate_same_seed_on_every_process" / "train.py", tmp_path
    ))
    assert len(first) == len(second) == 4
    assert not any(same_noise(first[i], first[j]) for i in range(4) for j in range(i)), "batches within a rank differ"
    assert all(same_noise(a, b) for a, b in zip(first, second)), "worker k of each rank draws what worker k of the other draws"


def test_accelerate_device_specific_seed_gives_each_rank_its_own_draws(tmp_path):
    first, second = map(as_noise, accelerate_rank_draws(
        ACCELERATE / "clean_accelerate_seed_specific_to_each_process" / "train.py", tmp_path
    ))
    assert len(first) == len(second) == 4
    assert not any(same_noise(a, b) for a in first for b in second)


def generator_rank_draws(rank: int, generator_seed: int):
    """What one rank's workers return in its first epoch when the loader is given its own
    generator (the workers' NumPy is seeded from torch's per-worker seed, as a seed_worker
    does): 2 workers, batches of 2, each rank on its own half of the data."""
    import random

    def seed_worker(worker_id):
        worker_seed = torch.initial_seed() % 2**32
        np.random.seed(worker_seed)
        random.seed(worker_seed)

    class Crops(torch.utils.data.Dataset):
        def __len__(self):
            return 8

        def __getitem__(self, index):
            return int(np.random.randint(0, 2**31))

    dataset = Crops()
    sampler = DistributedSampler(dataset, num_replicas=RANKS, rank=rank, shuffle=False)
    loader = torch.utils.data.DataLoader(
        dataset, batch_size=2, sampler=sampler, num_workers=2, worker_init_fn=seed_worker,
        generator=torch.Generator().manual_seed(generator_seed), multiprocessing_context="fork",
    )
    return [tuple(batch.tolist()) for batch in loader]


def test_a_loader_generator_seeded_alike_gives_every_rank_the_same_worker_draws():
    # SDL008's loader_generator_seeded_alike_on_every_rank: generator.manual_seed(args.seed) on every rank.
    first, second = (generator_rank_draws(rank, 25) for rank in range(RANKS))
    assert first == second, "worker k of each rank draws what worker k of the other rank draws"
    assert len(set(first)) == len(first)


def test_a_loader_generator_seeded_with_the_rank_gives_each_rank_its_own_draws():
    # The clean fixture: generator.manual_seed(args.seed + dist.get_rank()).
    first, second = (generator_rank_draws(rank, 25 + rank) for rank in range(RANKS))
    assert not set(first) & set(second)


def test_each_process_starts_torch_from_its_own_initial_seed():
    # SDL008's clean_loader_generator_seeded_from_each_process_initial_seed: without a
    # torch.manual_seed first, torch.initial_seed() differs between two fresh processes.
    read = [sys.executable, "-c", "import torch; print(torch.initial_seed())"]
    first, second = (subprocess.run(read, check=True, capture_output=True, text=True, timeout=120).stdout for _ in range(2))
    assert first != second


BINARIZED = Path(__file__).resolve().parent.parent / "fixtures" / "SDL008" / "tensor_binarized_in_place_on_every_rank" / "train.py"


def binarized_rank_draws(rank: int, seed: int):
    """One rank's first epoch of the fixture's dataset, whose items draw with the in-place
    ``Tensor.bernoulli_``: every pixel is 0.5, so only torch's generator decides the bits."""
    from runtime_support import load_module

    module = load_module(BINARIZED)
    torch.manual_seed(seed)
    dataset = module.BinarizedDigits(torch.full((8, 1, 4, 4), 0.5))
    sampler = DistributedSampler(dataset, num_replicas=RANKS, rank=rank, shuffle=False)
    loader = torch.utils.data.DataLoader(dataset, batch_size=2, sampler=sampler, num_workers=2, multiprocessing_context="fork")
    return [tuple(batch.flatten().tolist()) for batch in loader]


def test_an_in_place_tensor_draw_repeats_on_every_rank_seeded_alike():
    first, second = (binarized_rank_draws(rank, SEED) for rank in range(RANKS))
    assert first == second, "worker k of each rank draws the same bits"
    assert len(set(first)) == len(first)
    assert binarized_rank_draws(0, SEED) != binarized_rank_draws(1, SEED + 1), "a seed plus the rank draws apart"


def lightning_rank_draws(rank: int, monai_loader: bool):
    """One rank's first epoch under ``seed_everything(SEED, workers=True)``, with Lightning's
    own step that gives a loader its rank-aware ``worker_init_fn`` when it has none."""
    from lightning.fabric.utilities.data import _auto_add_worker_init_fn
    from lightning.pytorch import seed_everything
    from monai.data import DataLoader as MonaiLoader
    from monai.data import Dataset
    from monai.transforms import Compose, RandGaussianNoised

    seed_everything(SEED, workers=True)
    records = [{"image": np.zeros((1, 4), dtype=np.float32)} for _ in range(8)]
    dataset = Dataset(data=records, transform=Compose([RandGaussianNoised(keys=["image"], prob=1.0)]))
    sampler = DistributedSampler(dataset, num_replicas=RANKS, rank=rank, shuffle=False)
    make = MonaiLoader if monai_loader else torch.utils.data.DataLoader
    loader = make(dataset, batch_size=2, sampler=sampler, num_workers=2, multiprocessing_context="fork")
    _auto_add_worker_init_fn(loader, rank)
    return loader.worker_init_fn, [tuple(np.round(np.asarray(batch["image"]).ravel(), 6)) for batch in loader]


def test_lightning_worker_seeding_passes_over_monais_loader_which_keeps_its_own():
    """fixtures/SDL008/lightning_workers_seeding_passes_over_a_monai_loader"""
    pytest.importorskip("lightning")
    (init, first), (_, second) = (lightning_rank_draws(rank, monai_loader=True) for rank in range(RANKS))
    assert getattr(init, "__module__", "") == "monai.data.utils", "MONAI's own worker_init_fn stays"
    assert first == second, "worker k of each rank draws the same noise"


class _TorchNoise(torch.utils.data.Dataset):
    def __len__(self):
        return 8

    def __getitem__(self, index):
        return torch.randn(4)


def test_lightning_worker_seeding_reaches_torchs_loader():
    """fixtures/SDL008/clean_lightning_workers_seeding_reaches_a_torch_loader: torch's loader
    has no worker_init_fn, so Lightning gives it one that mixes in the rank."""
    pytest.importorskip("lightning")
    from lightning.fabric.utilities.data import _auto_add_worker_init_fn
    from lightning.pytorch import seed_everything

    draws = []
    for rank in range(RANKS):
        seed_everything(SEED, workers=True)
        dataset = _TorchNoise()
        sampler = DistributedSampler(dataset, num_replicas=RANKS, rank=rank, shuffle=False)
        loader = torch.utils.data.DataLoader(dataset, batch_size=2, sampler=sampler, num_workers=2, multiprocessing_context="fork")
        _auto_add_worker_init_fn(loader, rank)
        assert "pl_worker_init_function" in repr(loader.worker_init_fn)
        draws.append([tuple(np.round(batch.numpy().ravel(), 6)) for batch in loader])
    assert draws[0] != draws[1], "each rank's workers draw their own noise"
