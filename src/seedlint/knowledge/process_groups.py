"""Calls that make the running process one rank of a process group, and seeding helpers
that give each rank its own seed when asked.

Sources:
- torch.distributed: ``init_process_group`` (its documentation).
- accelerate 1.15.0: ``accelerate/state.py``: ``PartialState.__init__``, which
  ``AcceleratorState`` and ``Accelerator.__init__`` run, calls
  ``torch.distributed.init_process_group`` when the launcher started several processes
  (``accelerate launch``, or ``torchrun``, which set ``WORLD_SIZE`` and ``LOCAL_RANK``); with
  ``Accelerator(cpu=True)`` the backend is gloo. ``accelerate/utils/random.py``:
  ``set_seed(seed, device_specific=False, deterministic=False)`` adds the process index to the
  seed only when ``device_specific`` is true, and then needs the ``Accelerator`` built first.
  Checked with a real two-process gloo job (``tests/test_runtime_sdl008.py``): with the same
  ``set_seed`` on both ranks, worker k of each rank draws the same numbers, and with
  ``device_specific=True`` it does not.
"""

from __future__ import annotations

from typing import Dict, Tuple

INIT_PROCESS_GROUP = frozenset({"torch.distributed.init_process_group", "torch.distributed.distributed_c10d.init_process_group"})
"""torch's own call that joins the process group."""
LIBRARY_PROCESS_GROUP_STARTS = frozenset({
    "accelerate.Accelerator", "accelerate.accelerator.Accelerator",
    "accelerate.PartialState", "accelerate.state.PartialState",
    "accelerate.state.AcceleratorState",
})
"""Library objects whose construction joins the process group the launcher started."""
PROCESS_GROUP_STARTS = INIT_PROCESS_GROUP | LIBRARY_PROCESS_GROUP_STARTS
PROCESS_GROUP_START_SPELLINGS = ("init_process_group", "Accelerator", "PartialState", "AcceleratorState")
"""The last names those calls are spelled with, for a text search of the project."""

RANK_SPECIFIC_SEED_SWITCHES: Dict[str, Tuple[str, int]] = {
    "accelerate.utils.set_seed": ("device_specific", 1),
    "accelerate.utils.random.set_seed": ("device_specific", 1),
}
"""Seeding helpers that add the rank to the seed when the given argument (keyword, position)
is true."""
