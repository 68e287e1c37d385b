"""Bounds that one package's version puts on another's, from the packages' own metadata.

A project that declares ``torchvision>=0.15`` cannot run torch 1.x: every torchvision
release pins the torch it was built against (``pytorch_dep == version`` in torchvision's
``setup.py``, which becomes ``Requires-Dist: torch==2.0.0`` in 0.15.0's metadata). Each
entry reads: when the dependent's whole declared range lies in ``when``, the target's
range lies in ``bound``. The version model applies the entries until nothing changes.

Sources, per family:
- torchvision, torchaudio, torchtext: each release's ``Requires-Dist: torch==X`` (their
  ``setup.py`` pins the torch release they were built with); the pairing tables in the
  README of pytorch/vision and pytorch/audio ("Installation" / compatibility matrix).
- pytorch-lightning and lightning: ``Requires-Dist: torch>=X`` of each release
  (``requirements/pytorch/base.txt`` in Lightning-AI/pytorch-lightning at the release tag).
- MONAI, timm: ``install_requires`` at each release tag.
- Python -> torch: the first torch release with wheels for that CPython (cp38 from 1.4.0, cp39 from 1.7.1,
  cp310 from 1.11.0, cp311 from 1.13.0 on Linux, cp312 from 2.2.0, cp313 from 2.5.0,
  cp314 from 2.9.0: the files of each release on the registry).
- torch <-> Python: the oldest CPython each torch release installs on: ``Requires-Python
  >=3.7.0`` from 1.11.0 and ``>=3.8.0`` from 2.0.0 (setup.py's ``python_min_version``), no
  CPython 3.8 wheels from 2.5.0 (its metadata still says 3.8; pytorch/pytorch#138979 and
  #140798: "Python-3.8 has reached its end of life ... PyTorch stopped supporting it"), and
  ``Requires-Python >=3.10`` from 2.9.0 (2.13.0's metadata says the same).
- NumPy 2 -> torch: 2.3.0 is the first torch that supports NumPy 2 (pytorch/pytorch#132179;
  older wheels report "A module that was compiled using NumPy 1.x cannot be run in NumPy 2").
- NumPy and SciPy -> Python: ``requires-python`` at each release tag; and NumPy 1.26.0 and
  2.1.0 are the first releases for CPython 3.12 and 3.13 (their release notes: "supports
  Python 3.9-3.12", "supports Python 3.10-3.13"; older releases do not build on them).
- albumentations <-> Python: ``requires-python`` at each release tag (a Python too old for a
  release rules the release out, which decides whether its per-transform generators exist).
- NumPy -> albumentations: every release from 1.4.0 on has ``Requires-Dist: numpy>=1.24.4``
  (read in the wheels of 1.4.0, 1.4.4, 1.4.8 to 1.4.24, 2.0.0 and 2.0.8; 1.3.1 has
  ``numpy>=1.11.1``), so a project that pins an older NumPy runs an albumentations before 1.4.0.
- TensorFlow -> Python: tensorflow and tensorflow-gpu before 2.2.0 have no wheels for CPython 3.8
  or later (1.14.0 and 2.1.0 resolve for 3.7 and not for 3.8 on the registry; 2.2.0 does).
- transformers: from 4.52.1 its import disables PyTorch below a minimum (``utils/import_utils.py``:
  "Disabling PyTorch because PyTorch >= X is required"), so a project that needs it needs that torch.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import List, Tuple


@dataclass(frozen=True)
class Implies:
    """When ``dependent``'s declared range lies within ``when``, ``target`` lies in ``bound``."""

    dependent: str
    when: str
    target: str
    bound: str
    source: str


def _floors(dependent: str, target: str, table: List[Tuple[str, str]], source: str) -> List[Implies]:
    """Entries from releases that each need a newer ``target``: ``dependent>=d`` needs
    ``target>=t``. ``source`` is formatted with ``release`` and ``needs``."""
    return [
        Implies(dependent, f">={release}", target, f">={needs}", source.format(release=release, needs=needs))
        for release, needs in table
    ]


def _paired(dependent: str, pairs: List[Tuple[str, str]], source: str) -> List[Implies]:
    """Entries from releases that pin one torch release each: ``dependent>=d`` needs
    ``torch>=t``, and ``dependent<d`` needs ``torch<t`` among the releases that pin one (the
    releases before the table's first, torchvision 0.2.x and 0.3.0, pin none, so a range
    that reaches them bounds torch from above no more)."""
    first = pairs[0][0]
    entries = []
    for dependent_version, torch_version in pairs:
        pinned = f"{dependent} {dependent_version} pins torch {torch_version}; {source}"
        entries.append(Implies(dependent, f">={dependent_version}", "torch", f">={torch_version}", pinned))
        if dependent_version != first:
            entries.append(Implies(dependent, f">={first},<{dependent_version}", "torch", f"<{torch_version}", pinned))
    return entries


_TORCHVISION = [("0.4", "1.2"), ("0.4.1", "1.3"), ("0.5", "1.4")]
_TORCHVISION += [(f"0.{minor + 1}", f"1.{minor}") for minor in range(5, 14)]
_TORCHVISION += [(f"0.{minor + 15}", f"2.{minor}") for minor in range(0, 15)]
"""torchvision 0.4.0's metadata pins torch==1.2.0, 0.4.1 torch==1.3.0, 0.21.0 torch==2.6.0, 0.29.0
torch==2.14.0; the README's table gives the rest (its 0.4.x rows are off by one)."""
_TORCHAUDIO = [(f"0.{minor}", f"1.{minor}") for minor in range(4, 14)] + [(f"2.{minor}", f"2.{minor}") for minor in range(0, 11)]
"""torchaudio's compatibility matrix (its installation page); 2.10.0's metadata pins torch==2.10.0;
2.11 requires no torch release at all."""
_TORCHTEXT = [(f"0.{minor + 1}", f"1.{minor}") for minor in range(7, 14)]
_TORCHTEXT += [(f"0.{minor + 15}", f"2.{minor}") for minor in range(0, 3)]
"""torchtext 0.8-0.17's setup.py pins the torch it was built with; 0.5-0.7 pin nothing."""

_LIGHTNING_TORCH = [
    ("1.0", "1.3"), ("1.2", "1.4"), ("1.4", "1.6"), ("1.6", "1.8"), ("1.7", "1.9"), ("1.9", "1.10"),
    ("2.0", "1.11"), ("2.1", "1.12"), ("2.2", "1.13"), ("2.3", "2.0"), ("2.4", "2.1"),
]
"""(pytorch-lightning / lightning release, the oldest torch it admits): requirements/pytorch/base.txt
at each tag (requirements.txt up to 1.6); lightning 1.8.0.post1's metadata: torch>=1.9, 2.0.0's:
torch>=1.11.0, 2.6.0's: torch>=2.1.0."""
_MONAI_TORCH = [("0.8", "1.6"), ("0.9", "1.7"), ("1.1", "1.8"), ("1.2", "1.9"), ("1.5", "2.4.1")]
"""MONAI's setup.cfg install_requires at each release tag."""
_TIMM_TORCH = [("0.4", "1.4"), ("0.6.12", "1.7")]
"""timm's setup.py at v0.4.x-v0.9.12 (from v0.9.16 it names no minimum)."""

_PYTHON_TORCH = [("3.8", "1.4"), ("3.9", "1.7.1"), ("3.10", "1.11"), ("3.11", "1.13"), ("3.12", "2.2"), ("3.13", "2.5"), ("3.14", "2.9")]
"""The first torch release with wheels for that CPython (the release's files on the registry)."""
_TORCH_PYTHON = [("1.11", "3.7"), ("2.0", "3.8"), ("2.5", "3.9"), ("2.9", "3.10")]
"""(torch release, the oldest CPython it installs on): Requires-Python, and 2.5.0's wheels."""
_NUMPY_PYTHON = [("1.22", "3.8"), ("1.25", "3.9"), ("2.1", "3.10"), ("2.3", "3.11")]
_PYTHON_NUMPY = [("3.12", "1.26"), ("3.13", "2.1")]
"""The first NumPy release for that CPython (its release notes)."""
_SCIPY_PYTHON = [("1.8", "3.8"), ("1.11", "3.9"), ("1.14", "3.10"), ("1.16", "3.11")]
"""numpy's and scipy's pyproject.toml/setup.py requires-python at each release tag."""
_ALBUMENTATIONS_PYTHON = [("1.4.0", "3.8"), ("1.4.21", "3.9")]
"""albumentations' requires-python: ``python_requires=">=3.8"`` in setup.py at tag 1.4.0 (1.3.1:
>=3.7), ``requires-python = ">=3.9"`` in pyproject.toml at tag 1.4.21 (1.4.18: >=3.8)."""
_TRANSFORMERS_TORCH = [("4.52.1", "2.1"), ("5.0", "2.2"), ("5.6", "2.4")]
"""transformers' utils/import_utils.py: from 4.52.1 it disables PyTorch below that version."""

IMPLIED: Tuple[Implies, ...] = tuple(
    _paired("torchvision", _TORCHVISION, "each release's Requires-Dist torch==X")
    + _paired("torchaudio", _TORCHAUDIO, "torchaudio's compatibility matrix")
    + _paired("torchtext", _TORCHTEXT, "each release's setup.py pins the torch it was built with")
    + _floors("torchtext", "torch", [("0.18", "2.3")], "torchtext {release}'s Requires-Dist torch>={needs}")
    + _floors("monai", "torch", _MONAI_TORCH, "monai {release}'s install_requires torch>={needs}")
    + _floors("timm", "torch", _TIMM_TORCH, "timm {release}'s install_requires torch>={needs}")
    + _floors("numpy", "torch", [("2.0", "2.3")], "torch {needs} is the first release built for NumPy 2 (pytorch/pytorch#132179)")
    + [
        entry
        for package in ("pytorch-lightning", "lightning", "lightning-fabric")
        for entry in _floors(package, "torch", _LIGHTNING_TORCH, package + " {release}'s Requires-Dist torch>={needs}")
    ]
    + _floors("python", "torch", _PYTHON_TORCH, "no torch release before {needs} has wheels for CPython {release}")
    + [
        Implies("torch", f"<{torch}", "python", f"<{python}", f"no torch release before {torch} has wheels for CPython {python}")
        for python, torch in _PYTHON_TORCH
    ]
    + _floors("torch", "python", _TORCH_PYTHON, "torch {release} installs on no CPython before {needs}")
    + [
        Implies("python", f"<{python}", "torch", f"<{release}", f"torch {release} installs on no CPython before {python}")
        for release, python in _TORCH_PYTHON
    ]
    + _floors("numpy", "python", _NUMPY_PYTHON, "numpy {release}'s Requires-Python >={needs}")
    + [
        Implies("numpy", f"<{release}", "python", f"<{python}", f"numpy {release} is the first release for CPython {python} (its release notes)")
        for python, release in _PYTHON_NUMPY
    ]
    + _floors("scipy", "python", _SCIPY_PYTHON, "scipy {release}'s Requires-Python >={needs}")
    + _floors("albumentations", "python", _ALBUMENTATIONS_PYTHON, "albumentations {release}'s Requires-Python >={needs}")
    + [
        Implies("python", f"<{python}", "albumentations", f"<{release}", f"albumentations {release}'s Requires-Python >={python}")
        for release, python in _ALBUMENTATIONS_PYTHON
    ]
    + [Implies("numpy", "<1.24.4", "albumentations", "<1.4.0", "albumentations from 1.4.0 on requires numpy>=1.24.4 (its Requires-Dist)")]
    + [
        Implies(package, "<2.2", "python", "<3.8", f"{package} before 2.2.0 has no wheels for CPython 3.8 or later, per its files on the registry")
        for package in ("tensorflow", "tensorflow-gpu")
    ]
    + _floors("transformers", "torch", _TRANSFORMERS_TORCH, "transformers {release} disables torch<{needs} at import (utils/import_utils.py)")
)
