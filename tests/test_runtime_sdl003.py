"""Runtime truth for SDL003: a worker_init_fn seeding from ``SEED + worker_id`` replays the
same NumPy values in every epoch and every run; its --fix output draws fresh ones. Read
through one iterator made once, that seed repeats nothing, and a constant seed gives every
worker the same values."""

from pathlib import Path

from runtime_support import duplicate_count, epochs_of_values, load_module

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "SDL003"


def test_flagged_worker_init_fn_repeats_values_every_epoch_and_run():
    module = load_module(FIXTURES / "basic_seed_plus_worker_id.py")
    first, second = epochs_of_values(module.make_loader(), legacy_numpy_seeding=False)
    assert len(first) == 16
    assert first == second, "both epochs draw exactly the same values"
    [another_run] = epochs_of_values(module.make_loader(), epochs=1, legacy_numpy_seeding=False)
    assert another_run == first, "a new loader (a new run) replays them again"


def test_fixed_worker_init_fn_draws_fresh_values_each_epoch():
    module = load_module(FIXTURES / "basic_seed_plus_worker_id.fixed.py")
    first, second = epochs_of_values(module.make_loader(), legacy_numpy_seeding=False)
    assert duplicate_count(first) == 0
    assert duplicate_count(first + second) == 0, "epochs draw fresh values"


def _first_batch_of_each_worker(module):
    batches = iter(module.make_loader())
    return [tuple(next(batches).flatten().tolist()) for _ in range(4)]


def test_one_iterator_with_a_constant_seed_gives_every_worker_the_same_values():
    module = load_module(FIXTURES / "iterator_made_once_constant_seed" / "train.py")
    firsts = _first_batch_of_each_worker(module)
    assert len(set(firsts)) == 1, "the four workers draw the same values"
    fixed = load_module(FIXTURES / "iterator_made_once_constant_seed" / "train.fixed.py")
    assert len(set(_first_batch_of_each_worker(fixed))) == 4


def test_one_iterator_with_seed_plus_worker_id_repeats_nothing():
    module = load_module(FIXTURES / "clean_iterator_made_once" / "train.py")
    batches = iter(module.make_loader())
    values = [tuple(next(batches).flatten().tolist()) for _ in range(64)]
    assert duplicate_count(values) == 0, "workers start once, each from its own seed"


def test_a_loader_that_keeps_its_workers_draws_fresh_values_every_epoch():
    """The clean fixture's loader starts its workers once: a seed fixed for the run is set
    once per worker, and the next epoch goes on from where that stream stopped. The same
    dataset under a plain DataLoader replays every value."""
    module = load_module(FIXTURES / "clean_loader_keeps_its_workers" / "loaders.py")
    first, second = epochs_of_values(module.make_loader(), legacy_numpy_seeding=False)
    assert len(first) == len(second) == 512
    assert not {row[1] for row in first} & {row[1] for row in second}, "the second epoch draws new values"
    plain = module.DataLoader(module.Patches(512), batch_size=16, shuffle=True, num_workers=4, worker_init_fn=module.seed_worker)
    replayed, again = epochs_of_values(plain, legacy_numpy_seeding=False)
    assert sorted(row[1] for row in replayed) == sorted(row[1] for row in again), "a restarted loader replays them"
