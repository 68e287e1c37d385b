"""Runtime truth for SDL003: a worker_init_fn seeding from ``SEED + worker_id`` replays the
same NumPy values in every epoch and every run; its --fix output draws fresh ones."""

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
