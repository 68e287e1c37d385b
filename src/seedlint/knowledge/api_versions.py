"""APIs that exist only from, or only until, some release: code that uses one outside a
guard cannot run on the other side, so the use bounds the version its program runs on.

Each entry names a qualified API (a module, a function, a class attribute, or a keyword as
``Callable(keyword=)``), the package it belongs to, the range it exists in, and its source.
A use counts when it is not behind a feature or version check (``hasattr``, a version
comparison, ``try``/``except ImportError``): ``if args.compile: torch.compile(m)`` still says
which torch the authors run, ``if hasattr(torch, "compile")`` does not.

Sources: the PyTorch release notes of the release named (and the docs' "New in version"),
the Lightning changelog (``src/lightning/pytorch/CHANGELOG.md``: 2.0.0's "Removed" section
lists ``LightningLite``, ``Trainer.from_argparse_args`` and ``replace_sampler_ddp``), and for
albumentations the module contents of its released wheels (0.5.2, 1.0.0, 1.3.1, 1.4.0 compared:
1.0.0 moved the geometric transforms and functions to ``albumentations.augmentations.geometric``,
1.4.0 removed ``RandomBrightness``/``RandomContrast``, and the tags 1.4.3 and 1.4.4 of its
repository show ``to_tuple`` leaving ``core.transforms_interface``); for imgaug, its source at 0.4.0, its last release.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Dict, Optional, Tuple


@dataclass(frozen=True)
class ApiEra:
    api: str
    package: str
    bound: str
    source: str
    unless_written: str = ""
    """An attribute whose assignment by the program voids the entry: a project that puts
    ``numpy.sctypes`` back runs imgaug on NumPy 2."""


API_ERAS: Tuple[ApiEra, ...] = (
    ApiEra("torch.compile", "torch", ">=2.0", "PyTorch 2.0 release notes: torch.compile"),
    ApiEra("torch.func", "torch", ">=2.0", "PyTorch 2.0 release notes: functorch as torch.func"),
    ApiEra("torch.nn.functional.scaled_dot_product_attention", "torch", ">=2.0", "PyTorch 2.0 release notes"),
    ApiEra("torch.set_float32_matmul_precision", "torch", ">=1.12", "PyTorch 1.12 release notes"),
    ApiEra("torch.autocast", "torch", ">=1.10", "PyTorch 1.10 release notes: torch.autocast"),
    ApiEra("torch.inference_mode", "torch", ">=1.9", "PyTorch 1.9 release notes: torch.inference_mode"),
    ApiEra("torch.special", "torch", ">=1.9", "PyTorch 1.9 release notes: torch.special"),
    ApiEra("torch.utils.data.default_collate", "torch", ">=1.11", "PyTorch 1.11 release notes: default_collate public"),
    ApiEra("torch.backends.mps", "torch", ">=1.12", "PyTorch 1.12 release notes: MPS backend"),
    ApiEra("torch.utils.data.DataLoader(persistent_workers=)", "torch", ">=1.7", "PyTorch 1.7 release notes: DataLoader persistent_workers"),
    ApiEra("torch.utils.data.DataLoader(prefetch_factor=)", "torch", ">=1.7", "PyTorch 1.7 release notes: DataLoader prefetch_factor"),
    ApiEra("torchvision.transforms.v2", "torchvision", ">=0.15",
           "torchvision 0.15 release notes: the transforms.v2 namespace (paired with torch 2.0)"),
    ApiEra("lightning.pytorch", "lightning", ">=1.8", "lightning 1.8.0.post1, the first release of the package, ships lightning.pytorch"),
    ApiEra("lightning.fabric", "lightning", ">=1.9", "lightning.fabric first ships in 1.9.0 (src/lightning/__init__.py at tag 1.9.0)"),
    ApiEra("lightning_fabric", "lightning-fabric", ">=1.9", "lightning-fabric's first release is 1.9.0"),
    ApiEra("pytorch_lightning.lite", "pytorch-lightning", ">=1.5,<2.0", "Lightning changelog: LightningLite added in 1.5.0 (#10175), removed in 2.0.0 (#15953)"),
    ApiEra("pytorch_lightning.Trainer.from_argparse_args", "pytorch-lightning", "<2.0", "Lightning 2.0.0 changelog: Trainer.from_argparse_args removed"),
    ApiEra("pytorch_lightning.Trainer.add_argparse_args", "pytorch-lightning", "<2.0", "Lightning 2.0.0 changelog: Trainer.add_argparse_args removed"),
    ApiEra("lightning.pytorch.Trainer.from_argparse_args", "lightning", "<2.0", "Lightning 2.0.0 changelog: Trainer.from_argparse_args removed"),
    ApiEra("lightning.pytorch.Trainer.add_argparse_args", "lightning", "<2.0", "Lightning 2.0.0 changelog: Trainer.add_argparse_args removed"),
    ApiEra("lightning.lite", "lightning", "<2.0", "Lightning 2.0.0 changelog: lightning.lite removed"),
    ApiEra("albumentations.augmentations.transforms.RandomRotate90", "albumentations", "<1.0",
           "albumentations 1.0.0 wheel: RandomRotate90 lives in augmentations.geometric, not augmentations.transforms"),
    ApiEra("albumentations.augmentations.transforms.Resize", "albumentations", "<1.0",
           "albumentations 1.0.0 wheel: Resize lives in augmentations.geometric, not augmentations.transforms"),
    ApiEra("albumentations.augmentations.transforms.ShiftScaleRotate", "albumentations", "<1.0",
           "albumentations 1.0.0 wheel: ShiftScaleRotate lives in augmentations.geometric, not augmentations.transforms"),
    ApiEra("imgaug", "numpy", "<2.0",
           "imgaug's last release, 0.4.0, reads `np.sctypes` when imported (imgaug/imgaug.py: NP_FLOAT_TYPES), "
           "which NumPy 2.0 removed (NumPy 2.0.0 release notes, expired attributes)",
           unless_written="numpy.sctypes"),
    ApiEra("albumentations.augmentations.functional.resize", "albumentations", "<1.0",
           "albumentations 1.0.0 wheel: resize lives in augmentations.geometric.functional; 0.5.2's augmentations.functional has it"),
    ApiEra("albumentations.core.transforms_interface.to_tuple", "albumentations", "<1.4.4",
           "albumentations tags 1.4.3 and 1.4.4: core/transforms_interface.py defines to_tuple up to 1.4.3, not from 1.4.4"),
    ApiEra("albumentations.augmentations.transforms.RandomBrightness", "albumentations", "<1.4",
           "albumentations 1.4.0 wheel: RandomBrightness removed (1.3.1 still has it)"),
    ApiEra("albumentations.augmentations.transforms.RandomContrast", "albumentations", "<1.4",
           "albumentations 1.4.0 wheel: RandomContrast removed (1.3.1 still has it)"),
)

ERAS_BY_API: Dict[str, ApiEra] = {era.api: era for era in API_ERAS}
VOIDING_WRITES: Tuple[str, ...] = tuple(sorted({era.unless_written for era in API_ERAS if era.unless_written}))
"""Attributes whose assignment the facts pass records (as ``numpy.sctypes=``), guarded or not."""


_TRAINER_HOMES = {"pytorch_lightning": "pytorch_lightning", "lightning": "lightning.pytorch"}


def era_of(qualified: str) -> Optional[ApiEra]:
    """The entry whose API ``qualified`` is or lies under (``torch.func.vmap``), else None.
    A Trainer method is found whichever module the Trainer was imported from
    (``pytorch_lightning.trainer.trainer.Trainer.from_argparse_args``)."""
    parts = qualified.split(".")
    if len(parts) > 2 and parts[-2] == "Trainer" and parts[0] in _TRAINER_HOMES:
        era = ERAS_BY_API.get(f"{_TRAINER_HOMES[parts[0]]}.Trainer.{parts[-1]}")
        if era is not None:
            return era
    for cut in range(len(parts), 0, -1):
        era = ERAS_BY_API.get(".".join(parts[:cut]))
        if era is not None:
            return era
    return None
