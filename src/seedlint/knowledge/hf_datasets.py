"""Hugging Face ``datasets``: the dataset objects the package returns, and the transform a
dataset keeps and runs in the DataLoader's workers.

Sources:
- The ``datasets`` documentation of ``Dataset.set_transform`` and ``Dataset.with_transform``
  ("the transform is applied on-the-fly on batches when ``__getitem__`` is called";
  ``with_transform`` returns a new dataset, ``set_transform`` sets it in place); ``DatasetDict``
  has both and applies them to each split.
- ``datasets/arrow_dataset.py``: the transform is kept in the dataset's format arguments
  (``self._format_kwargs``), which pickle with the dataset, and ``map``, ``filter``,
  ``select``, ``shuffle`` and the column edits carry the format over to the dataset they
  return (``transmit_format``).
- Checked with datasets 5.2.0 (``tests/test_runtime_hf_datasets.py``): a DataLoader's workers
  run the transform on each item, and under spawn a transform defined inside a function fails
  to pickle with the dataset.
"""

from __future__ import annotations

PACKAGE = "datasets."
"""Where the objects come from: ``load_dataset``, ``load_from_disk``, ``Dataset.from_dict`` ...
(a project module of the same name resolves to the project, not here)."""

TRANSFORM_RETURNING = frozenset({"with_transform"})
"""Methods that return a new dataset running the transform they are given."""
TRANSFORM_SETTING = frozenset({"set_transform"})
"""Methods that give the dataset itself the transform."""
FORMAT_KEEPING = frozenset({
    "map", "filter", "select", "shuffle", "sort", "flatten_indices", "rename_column", "rename_columns",
    "remove_columns", "select_columns", "cast", "cast_column",
})
"""Methods that return a dataset with the receiver's format, transform included."""

DATASET_CLASS = "datasets.Dataset"
"""What ``with_transform`` returns (named so in messages)."""


def from_hf_datasets(qualified: str) -> bool:
    """An object the Hugging Face ``datasets`` package made (a ``Dataset`` or ``DatasetDict``)."""
    return qualified.startswith(PACKAGE)
