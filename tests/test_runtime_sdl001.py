"""Runtime truth for SDL001: the flagged fixture duplicates NumPy randomness across
workers and epochs under torch < 1.9 seeding; its --fix output does not."""

import sys
from pathlib import Path

import numpy as np
import pytest

from runtime_support import duplicate_count, epochs_of_values, load_module

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "SDL001"


def test_flagged_loader_repeats_numpy_values_across_workers_and_epochs(monkeypatch):
    module = load_module(FIXTURES / "basic_getitem.py")
    first, second = epochs_of_values(module.make_loader(), monkeypatch=monkeypatch)
    assert len(first) == 64
    # 2 workers start from one NumPy state: each value appears once per worker.
    assert duplicate_count(first) == 64 - 32
    assert sorted(first) == sorted(second), "every epoch replays the same values"


def test_fixed_loader_draws_distinct_values_per_worker_and_epoch(monkeypatch):
    module = load_module(FIXTURES / "basic_getitem.fixed.py")
    assert module.make_loader().worker_init_fn is module.seed_worker
    first, second = epochs_of_values(module.make_loader(), monkeypatch=monkeypatch)
    assert duplicate_count(first) == 0
    assert duplicate_count(first + second) == 0, "epochs draw fresh values"


@pytest.mark.parametrize("fixture", ["basic_getitem.py", "basic_getitem.fixed.py"])
def test_current_torch_reseeds_numpy_itself(fixture, monkeypatch):
    """Why SDL001 stays silent for torch >= 1.9: the installed torch reseeds NumPy."""
    module = load_module(FIXTURES / fixture)
    first, second = epochs_of_values(module.make_loader(), legacy_numpy_seeding=False)
    assert duplicate_count(first + second) == 0


def test_fix_through_a_loader_class_chosen_at_run_time_runs_with_both_classes(monkeypatch):
    """The fix adds ``worker_init_fn=`` to a call that builds torch's DataLoader or a
    subclass forwarding ``**kwargs``: both accept it, and the workers draw apart."""
    module = load_module(FIXTURES / "flow_loader_class_chosen_by_flag" / "loaders.fixed.py")
    plain = module.create_loader(32, 4, 2, weighted=True)
    assert type(plain).__name__ == "DataLoader" and plain.worker_init_fn is module.seed_worker
    first, second = epochs_of_values(plain, monkeypatch=monkeypatch)
    scaled = [row for row in first + second if any(row)]  # sample 0 is all zeros whatever the gain
    assert len(scaled) == 62 and duplicate_count(scaled) == 0
    repeating = module.create_loader(32, 4, 2, weighted=False)
    assert type(repeating).__name__ == "RepeatingLoader" and repeating.worker_init_fn is module.seed_worker
    values = [tuple(row) for batch in repeating for row in batch.reshape(batch.shape[0], -1).tolist()]
    scaled = [row for row in values if any(row)]
    assert len(values) == 32 and duplicate_count(scaled) == 0


def _partial_seeding_loader(case: str, **arguments):
    root = FIXTURES / case
    sys.path.insert(0, str(root))
    try:
        module = load_module(root / "lib" / "data.py")
    finally:
        sys.path.pop(0)
    return module.build_loader("val", batch_size=8, workers=2, **arguments)


def test_worker_init_fn_given_seed_none_leaves_workers_duplicated(monkeypatch):
    """The flagged call site passes no seed: the partial binds ``seed=None`` and the
    worker_init_fn's ``if seed is not None`` skips every seeding."""
    first, _ = epochs_of_values(_partial_seeding_loader("seed_partial_none_at_call_site"), monkeypatch=monkeypatch)
    assert len(first) == 32
    assert duplicate_count(first) == 16, "both workers draw the same points"


def test_worker_init_fn_given_a_seed_separates_workers(monkeypatch):
    loader = _partial_seeding_loader("clean_seed_partial_given_at_call_site", seed=7 + 100)
    first, _ = epochs_of_values(loader, monkeypatch=monkeypatch)
    assert duplicate_count(first) == 0


def _spectrogram_loader(file_name: str):
    root = FIXTURES / "module_augmentation_forward_draws"
    sys.path.insert(0, str(root))
    try:
        module = load_module(root / file_name)
    finally:
        sys.path.pop(0)
    return module.make_loader([np.zeros((4, 64), dtype=np.float32) + i + 1 for i in range(32)], workers=2)


def test_module_augmentation_forward_repeats_across_workers(monkeypatch):
    """An ``nn.Module`` augmentation's ``forward`` runs when the dataset calls the module: its
    NumPy draws are worker draws (the masked span shows where the mask started)."""
    first, second = epochs_of_values(_spectrogram_loader("train.py"), monkeypatch=monkeypatch)
    starts = [[row.index(0.0) for row in epoch] for epoch in (first, second)]
    assert starts[0][:16] == starts[0][16:], "the second worker's batch is masked where the first's is"
    assert starts[0] == starts[1], "every epoch repeats them"


def test_fixed_module_augmentation_draws_apart(monkeypatch):
    first, second = epochs_of_values(_spectrogram_loader("train.fixed.py"), monkeypatch=monkeypatch)
    first_starts = [row.index(0.0) for row in first]
    assert first_starts[:16] != first_starts[16:]
    assert first_starts != [row.index(0.0) for row in second]


def test_a_reseed_only_when_serving_the_first_item_leaves_the_other_workers_duplicated(monkeypatch):
    # fixtures/SDL001/reseeded_only_when_serving_the_first_item: only the worker that
    # serves item 0 reseeds, so the other three draw the same values from the copied state.
    module = load_module(FIXTURES / "reseeded_only_when_serving_the_first_item" / "synthetic.py")
    from torch.utils.data import DataLoader

    dataset = module.RandomClicks(8, 4)
    loader = DataLoader(dataset, batch_size=None, num_workers=4)
    loader.collate_fn = lambda sample: sample[0]
    first, _ = epochs_of_values(loader, monkeypatch=monkeypatch)
    per_item = [first[i * 4:(i + 1) * 4] for i in range(8)]  # item k is served by worker k % 4
    assert per_item[1] == per_item[2] == per_item[3], "workers 1-3 draw the same values"
    assert per_item[0] != per_item[1], "the worker that served item 0 reseeded"

    fixed = load_module(FIXTURES / "reseeded_only_when_serving_the_first_item" / "synthetic.fixed.py")
    loader = DataLoader(fixed.RandomClicks(8, 4), batch_size=None, num_workers=4, worker_init_fn=fixed.seed_worker)
    loader.collate_fn = lambda sample: sample[0]
    first, _ = epochs_of_values(loader, monkeypatch=monkeypatch)
    per_item = [tuple(first[i * 4:(i + 1) * 4]) for i in range(8)]
    assert len(set(per_item[1:4])) == 3, "after the fix each worker draws its own values"


def test_a_reseed_under_a_test_the_training_dataset_fails_leaves_workers_duplicated(monkeypatch):
    """``if not self.is_train: np.random.seed(1991)`` never runs in a training dataset's
    workers: under torch < 1.9 seeding they draw the same points; the --fix output's
    ``seed_worker`` gives each worker its own."""
    import torch

    folder = FIXTURES / "reseed_only_under_a_test_the_training_dataset_fails"
    monkeypatch.syspath_prepend(str(folder))
    data = load_module(folder / "mesh_data.py")
    meshes = [np.arange(300, dtype=np.float64).reshape(100, 3) for _ in range(8)]
    train_set = data.SurfaceSamples(meshes, phase="train", points=4)
    loader = torch.utils.data.DataLoader(train_set, batch_size=1, num_workers=2)
    first, second = epochs_of_values(loader, monkeypatch=monkeypatch)
    assert duplicate_count(first) == 4, "worker 1 repeats worker 0's four samples"
    fixed = load_module(folder / "train_shape.fixed.py")
    loader = torch.utils.data.DataLoader(train_set, batch_size=1, num_workers=2, worker_init_fn=fixed.seed_worker)
    first, second = epochs_of_values(loader, monkeypatch=monkeypatch)
    assert duplicate_count(first + second) == 0


def test_a_collate_fn_that_draws_repeats_its_values_across_workers_until_fixed(monkeypatch):
    """The collate_fn runs in the workers: its NumPy draws are duplicated like a dataset's
    (each row is the gain drawn for one sample: the batch divided by the samples)."""
    module = load_module(FIXTURES / "collate_draws_random_gains.py")
    first, second = epochs_of_values(module.make_loader(), monkeypatch=monkeypatch)
    assert len(first) == 64
    assert duplicate_count(first) == 64 - 32
    assert sorted(first) == sorted(second), "every epoch replays the same gains"
    fixed = load_module(FIXTURES / "collate_draws_random_gains.fixed.py")
    first, second = epochs_of_values(fixed.make_loader(), monkeypatch=monkeypatch)
    assert duplicate_count(first + second) == 0



def test_a_collate_object_that_draws_cuts_the_same_segments_in_every_worker_until_fixed(monkeypatch):
    """A callable object as collate_fn (``SegmentCollater()``) runs in the workers too: the
    two workers' first batches cut at the same offsets, and the next epoch cuts them again."""
    def starts(epoch):
        return [int(row[0]) % 100 for row in epoch]  # each row starts at 100 * index + offset

    module = load_module(FIXTURES / "collate_object_cuts_random_segments.py")
    first, second = epochs_of_values(module.make_loader(), monkeypatch=monkeypatch)
    assert starts(first)[0:8] == starts(first)[8:16], "both workers cut at the same offsets"
    assert starts(first) == starts(second), "every epoch replays the same cuts"
    fixed = load_module(FIXTURES / "collate_object_cuts_random_segments.fixed.py")
    first, second = epochs_of_values(fixed.make_loader(), monkeypatch=monkeypatch)
    assert starts(first)[0:8] != starts(first)[8:16]
    assert starts(first) != starts(second)

SPAWNED_DATASET = '''
import numpy as np
import torch.utils.data._utils.worker as worker_module
from torch.utils.data import Dataset

worker_module.HAS_NUMPY = False  # torch < 1.9: workers do not reseed NumPy (runs in each worker on import)


class Jitter(Dataset):
    def __len__(self):
        return 16

    def __getitem__(self, index):
        return np.random.uniform()
'''


@pytest.mark.parametrize("context, duplicated", [("fork", True), ("spawn", False), ("forkserver", False)])
def test_workers_started_by_spawn_or_forkserver_import_numpy_afresh(context, duplicated, tmp_path, monkeypatch):
    """Why SDL001 is silent where the code makes workers start by spawn or forkserver: each
    worker imports NumPy itself, seeded from the operating system, so workers and epochs
    differ even without torch's reseeding; forked workers copy the parent's state."""
    import importlib

    import torch
    from torch.utils.data import DataLoader

    (tmp_path / "spawned_jitter.py").write_text(SPAWNED_DATASET)
    monkeypatch.syspath_prepend(str(tmp_path))
    module = importlib.import_module("spawned_jitter")
    np.random.seed(1234)
    loader = DataLoader(module.Jitter(), batch_size=4, num_workers=2, multiprocessing_context=context)
    epochs = [[round(v, 10) for batch in loader for v in torch.as_tensor(batch).tolist()] for _ in range(2)]
    assert (duplicate_count(epochs[0]) > 0) is duplicated
    assert (sorted(epochs[0]) == sorted(epochs[1])) is duplicated


SPAWNED_RANK = SPAWNED_DATASET + '''

def run(rank, out_path):
    import json
    import multiprocessing

    import torch
    from torch.utils.data import DataLoader

    np.random.seed(1234)
    loader = DataLoader(Jitter(), batch_size=4, num_workers=2)
    epochs = [[round(v, 10) for batch in loader for v in torch.as_tensor(batch).tolist()] for _ in range(2)]
    with open(out_path, "w") as handle:
        json.dump({"method": multiprocessing.get_start_method(), "epochs": epochs}, handle)
'''


def test_a_loader_built_in_a_process_torch_spawn_starts_gets_spawned_workers(tmp_path, monkeypatch):
    """Why SDL001 is silent for a loader built only in ``torch.multiprocessing.spawn``
    ranks: Python gives a spawned process spawn as its start method, so the rank's
    DataLoader workers start by spawn whatever the parent set, and import NumPy afresh."""
    import importlib
    import json

    import torch.multiprocessing as mp

    (tmp_path / "spawned_rank.py").write_text(SPAWNED_RANK)
    monkeypatch.syspath_prepend(str(tmp_path))
    module = importlib.import_module("spawned_rank")
    out = tmp_path / "rank0.json"
    mp.spawn(module.run, args=(str(out),), nprocs=1)
    result = json.loads(out.read_text())
    assert result["method"] == "spawn"
    first, second = result["epochs"]
    assert duplicate_count(first) == 0
    assert sorted(first) != sorted(second)
