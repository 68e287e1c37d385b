"""Runtime truth for SDL009: without set_epoch a DistributedSampler repeats its order in
every epoch; the --fix output draws a new order each epoch."""

from pathlib import Path

from runtime_support import load_module

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "SDL009"
ARGS = ["--epochs", "2", "--workers", "0", "--rank", "0", "--world-size", "2"]


def run(fixture):
    module = load_module(FIXTURES / fixture)
    return module.train(module.parse_args(ARGS))


def test_flagged_script_repeats_the_shuffle_every_epoch():
    first, second = run("basic_train_script.py")
    assert len(first) == 8, "rank 0 of 2 sees half of 16 samples"
    assert first == second


def test_fixed_script_shuffles_differently_each_epoch():
    first, second = run("basic_train_script.fixed.py")
    assert len(first) == len(second) == 8
    assert first != second


def run_trainer(fixture):
    module = load_module(FIXTURES / fixture)
    return module.Trainer(module.parse_args(ARGS)).train()


def test_set_epoch_on_another_sampler_leaves_this_one_repeating():
    first, second = run_trainer("set_epoch_on_another_sampler.py")
    assert len(first) == 8 and first == second


def test_fixed_trainer_advances_the_iterated_sampler():
    first, second = run_trainer("set_epoch_on_another_sampler.fixed.py")
    assert len(first) == len(second) == 8 and first != second


def test_the_guarded_fix_runs_where_the_sampler_is_a_random_sampler(tmp_path):
    # fixtures/SDL009/sampler_distributed_or_random: one process uses a RandomSampler, which
    # has no set_epoch; the fix calls it only where it exists.
    import subprocess
    import sys

    script = FIXTURES / "sampler_distributed_or_random" / "train.fixed.py"
    done = subprocess.run([sys.executable, str(script), "--epochs", "2"], cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    unguarded = script.read_text().replace('        if hasattr(sampler, "set_epoch"):\n            sampler.set_epoch(epoch)',
                                           "        sampler.set_epoch(epoch)")
    (tmp_path / "unguarded.py").write_text(unguarded)
    done = subprocess.run([sys.executable, "unguarded.py", "--epochs", "2"], cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert "AttributeError: 'RandomSampler' object has no attribute 'set_epoch'" in done.stderr


def test_monai_distributed_sampler_repeats_its_order_until_fixed():
    # MONAI's sampler subclasses torch's: the same order every epoch until set_epoch is called.
    first, second = run("monai_distributed_sampler.py")
    assert len(first) == 8 and first == second
    first, second = run("monai_distributed_sampler.fixed.py")
    assert len(first) == len(second) == 8 and first != second


def test_a_project_sampler_keyed_by_its_epoch_repeats_its_order_until_set_epoch_moves_it():
    """fixtures/SDL009/own_epoch_keyed_sampler_never_given_its_epoch: no DistributedSampler
    subclass, but ordered like one by the epoch its ``set_epoch`` stores."""
    import torch
    from torch.utils.data import DataLoader, TensorDataset

    module = load_module(FIXTURES / "own_epoch_keyed_sampler_never_given_its_epoch" / "sampler.py")
    data = TensorDataset(torch.arange(64))
    loader = DataLoader(data, batch_size=8, sampler=module.BlockShardSampler(data, num_replicas=2, rank=0))

    def epoch_order():
        return [int(i) for (batch,) in loader for i in batch]

    first, second = epoch_order(), epoch_order()
    assert len(first) == 32 and first == second, "without set_epoch every epoch repeats the order"
    loader.sampler.set_epoch(1)
    assert epoch_order() != first, "set_epoch moves it"
