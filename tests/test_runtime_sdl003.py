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
