"""Library calls that run a function they are given, in another process or thread, with
arguments they are given: the value flow binds that function's parameters from the launch
call as if it were a call of the function.

Sources:
- ``torch.multiprocessing.spawn(fn, args=(), nprocs=1, ...)`` and
  ``torch.multiprocessing.start_processes(fn, args=(), nprocs=1, ...)``: "``fn`` is called as
  ``fn(i, *args)``, where ``i`` is the process index" (torch.multiprocessing's documentation,
  "Spawning subprocesses").
- ``multiprocessing.Process(group=None, target=None, name=None, args=(), kwargs={}, ...)``:
  ``run()`` calls ``target(*args, **kwargs)`` (the Python library reference, "Process and
  exceptions"); ``torch.multiprocessing`` re-exports it.
- ``threading.Thread(group=None, target=None, name=None, args=(), kwargs={}, ...)``: the same
  (the Python library reference, "Thread objects").
- ``accelerate.notebook_launcher(function, args=(), num_processes=None, ...)``: runs
  ``function(*args)`` in each process (accelerate's documentation, "Launching distributed
  training from Jupyter Notebooks").
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Dict, Optional


@dataclass(frozen=True)
class Launcher:
    """How a launch call passes its function and that function's arguments."""

    function_position: Optional[int]
    """Where the function is passed positionally (None: keyword only)."""
    function_keyword: str
    args_keyword: str
    args_position: Optional[int]
    kwargs_keyword: Optional[str]
    leading: int
    """Arguments the launcher passes before ``*args`` (the process index of ``spawn``)."""


_SPAWN = Launcher(0, "fn", "args", 1, None, 1)
_PROCESS = Launcher(None, "target", "args", 3, "kwargs", 0)

LAUNCHERS: Dict[str, Launcher] = {
    "torch.multiprocessing.spawn": _SPAWN,
    "torch.multiprocessing.spawn.spawn": _SPAWN,
    "torch.multiprocessing.start_processes": _SPAWN,
    "torch.multiprocessing.spawn.start_processes": _SPAWN,
    "multiprocessing.Process": _PROCESS,
    "multiprocessing.context.Process": _PROCESS,
    "torch.multiprocessing.Process": _PROCESS,
    "threading.Thread": _PROCESS,
    "accelerate.notebook_launcher": Launcher(0, "function", "args", 1, None, 0),
    "accelerate.launchers.notebook_launcher": Launcher(0, "function", "args", 1, None, 0),
}
"""Launchers by qualified name."""

PROCESS_INDEX = "torch.multiprocessing.spawn.<process index>"
"""What the value flow calls the index ``spawn`` passes first: each process's own, ``0`` to
``nprocs - 1``, the local rank of a one-node job (a rank for the seeds analysis)."""

LAUNCHER_NAMES = frozenset(name.rsplit(".", 1)[-1] for name in LAUNCHERS)
"""How launch calls are spelled at the call (``mp.spawn``: ``spawn``)."""
