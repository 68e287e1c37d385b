"""Library objects that keep the callables they are given, so pickling the object (a dataset
sent to spawned workers) pickles those callables too.

Sources:
- torchvision: ``VisionDataset.__init__`` stores ``transform``, ``target_transform`` and
  ``transforms`` on the dataset (``torchvision/datasets/vision.py``), which every dataset
  class under ``torchvision.datasets`` inherits; ``transforms.Compose`` keeps its list
  (``self.transforms``), ``transforms.Lambda`` its function (``self.lambd``), and the
  ``RandomApply``/``RandomChoice``/``RandomOrder`` containers their lists
  (``torchvision/transforms/transforms.py``; ``torchvision/transforms/v2`` likewise).
- MONAI: ``monai.data.Dataset`` and its subclasses (``CacheDataset``, ``PersistentDataset``,
  ...) store ``self.transform`` (``monai/data/dataset.py``); the ``monai.apps`` datasets
  (``DecathlonDataset``, ``MedNISTDataset``) are ``CacheDataset`` subclasses; the
  ``monai.transforms`` ``Compose`` keeps ``self.transforms`` and ``Lambda``/``Lambdad`` their
  ``func`` (``monai/transforms/utility/array.py``, ``dictionary.py``).
- albumentations: ``Compose`` keeps its transforms and ``Lambda`` its functions
  (``albumentations/core/composition.py``, ``augmentations/transforms.py``).
- Hugging Face ``datasets``: a ``Dataset`` keeps the transform ``with_transform`` or
  ``set_transform`` gave it and calls it in ``__getitem__`` (``knowledge.hf_datasets``).
- ``functools.partial`` keeps ``func``, ``args`` and ``keywords`` (the standard library's
  documentation of partial objects).

Functions such as ``map``, ``sorted`` or ``filter`` that a dataset's ``__init__`` calls with a
lambda and whose result it stores (``list(map(f, paths))``, ``sorted(names, key=f)``) keep
nothing the dataset pickles: the lambda is gone once the list is built.
"""

from __future__ import annotations

from seedlint.knowledge.hf_datasets import from_hf_datasets

LIBRARY_DATASET_MODULES = ("torchvision.datasets.", "monai.data.", "monai.apps.")
"""Modules whose dataset classes keep the callables they are given (``transform=``)."""

KEEPING_MODULES = LIBRARY_DATASET_MODULES + (
    "torchvision.transforms.", "monai.transforms.", "albumentations.",
)
"""Modules whose classes keep the callables they are built with."""

KEEPING_CLASSES = frozenset({"functools.partial"})

CALLED_BY_LIBRARY_GETITEM = ("transform", "target_transform", "transforms")
"""The attributes a library dataset's own ``__getitem__`` calls on each item, which a project
subclass that defines no ``__getitem__`` runs in its workers: torchvision's
``DatasetFolder.__getitem__`` (``ImageFolder``), ``CIFAR10.__getitem__`` and the others call
``self.transform`` and ``self.target_transform``, and ``VisionDataset`` builds
``self.transforms`` from them (``torchvision/datasets/folder.py``, ``cifar.py``, ``vision.py``);
MONAI's ``Dataset._transform`` applies ``self.transform`` (``monai/data/dataset.py``)."""


def keeps_callables(qualified: str) -> bool:
    """An object of this library class holds the callables it was given."""
    if qualified in KEEPING_CLASSES or from_hf_datasets(qualified):
        return True
    last = qualified.rsplit(".", 1)[-1]
    return qualified.startswith(KEEPING_MODULES) and last[:1].isupper()


def library_dataset(qualified: str) -> bool:
    """A library dataset class that stores the transforms it is given."""
    if from_hf_datasets(qualified):
        return True
    last = qualified.rsplit(".", 1)[-1]
    return qualified.startswith(LIBRARY_DATASET_MODULES) and last[:1].isupper()
