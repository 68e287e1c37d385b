"""Code that runs on Linux only: a program that uses it outside a feature check never runs
where ``spawn`` is the default start method (Windows, macOS), so its DataLoader workers
start by ``fork`` unless it runs on Python 3.14 or later (``forkserver``) or sets a method.

Sources:
- NCCL: the torch.distributed documentation's backend table ("Backends that come with
  PyTorch": NCCL is available on Linux only).
- NVIDIA DALI: its installation guide (wheels for Linux x86_64 and aarch64 only).
- MinkowskiEngine: its README's requirements ("Ubuntu >= 14.04", CUDA; no Windows or macOS build).
- Colossal-AI: its installation guide ("Requirements: ... Linux OS"; "only Linux is supported
  for now"), and its ``setup.py`` raises on ``win32``; its launchers default to NCCL.
- Unix-only names: the Python library reference marks the signals ``SIGUSR1``, ``SIGUSR2``,
  ``SIGHUP``, ``SIGKILL``, ``SIGALRM`` and ``signal.alarm``, ``os.fork``, and the modules
  ``fcntl``, ``resource``, ``pwd`` and ``grp`` "Availability: Unix" (on Windows the names do
  not exist: ``AttributeError``, ``ModuleNotFoundError``).
- CUDA on macOS: PyTorch's installation matrix ("Start Locally") offers no CUDA build for
  macOS (its macOS wheels run on the CPU or on Apple's MPS), and torch.cuda's documentation
  ties ``torch.cuda.set_device`` and ``.cuda()`` to a CUDA device; so a program that moves its
  model to CUDA on every run does not run on macOS.
"""

from __future__ import annotations

from typing import Dict

LINUX_ONLY: Dict[str, str] = {
    "torch.distributed.init_process_group(backend=nccl)": "the NCCL backend exists on Linux only",
    "nvidia.dali": "NVIDIA DALI ships for Linux only",
    "MinkowskiEngine": "MinkowskiEngine builds on Linux only",
    "colossalai": "Colossal-AI supports Linux only",
}
"""Watched API keys (see ``watched_apis``) and why each one needs Linux."""


UNIX_ONLY = frozenset({
    "signal.SIGUSR1", "signal.SIGUSR2", "signal.SIGHUP", "signal.SIGKILL", "signal.SIGALRM", "signal.alarm", "os.fork",
    "fcntl", "resource", "pwd", "grp",
})
"""Watched API keys that exist on Unix only: a program that uses one does not run on Windows."""


CUDA_CALLS = frozenset({"cuda", "torch.cuda.set_device", "torch.cuda.current_device"})
"""Calls that raise without a CUDA build of torch: a method named ``cuda`` (``model.cuda()``,
``x.cuda(gpu)``), and the device-selection functions."""
NO_CUDA_PLATFORM = "macOS"
"""Where torch has no CUDA build (see the module's sources)."""
