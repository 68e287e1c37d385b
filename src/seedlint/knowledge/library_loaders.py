"""Training loops from libraries that build the DataLoader themselves: the call that builds
the loop stands for the loader, and its arguments for the loader's.

Source: transformers ``trainer.py`` as of 4.44 and in 5.x (the releases read; the worker
seeding of releases before 4.3x was not checked) (``Trainer.__init__(model, args, data_collator,
train_dataset, eval_dataset, ...)``; ``get_train_dataloader`` builds ``DataLoader(train_dataset,
collate_fn=data_collator, num_workers=args.dataloader_num_workers,
persistent_workers=args.dataloader_persistent_workers, worker_init_fn=seed_worker, ...)``
for a map-style dataset; ``TrainingArguments`` defaults ``dataloader_num_workers=0`` and
``dataloader_persistent_workers=False``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Dict, FrozenSet, Optional, Tuple


@dataclass(frozen=True, eq=False)
class LibraryLoop:
    classes: FrozenSet[str]
    """Qualified names of the loop classes (a project subclass counts unless it builds the
    loader itself, by overriding ``builder``)."""
    builder: str
    """The method that builds the loader."""
    parameters: Dict[str, Tuple[str, int]]
    """Loader parameter -> (the loop's keyword, its position)."""
    settings: Tuple[str, int]
    """The keyword (and position) of the object that holds the other loader settings."""
    settings_classes: FrozenSet[str]
    setting_names: Dict[str, Tuple[str, object]]
    """Loader parameter -> (the settings object's field, its default)."""
    worker_init: str
    """The ``worker_init_fn`` the loop passes (``knowledge.library_worker_inits``)."""
    spelled: str
    """How messages name the loader."""


HF_TRAINER = LibraryLoop(
    classes=frozenset({
        "transformers.Trainer", "transformers.trainer.Trainer",
        "transformers.Seq2SeqTrainer", "transformers.trainer_seq2seq.Seq2SeqTrainer",
    }),
    builder="get_train_dataloader",
    parameters={"dataset": ("train_dataset", 3), "collate_fn": ("data_collator", 2)},
    settings=("args", 1),
    settings_classes=frozenset({
        "transformers.TrainingArguments", "transformers.training_args.TrainingArguments",
        "transformers.Seq2SeqTrainingArguments", "transformers.training_args_seq2seq.Seq2SeqTrainingArguments",
    }),
    setting_names={"num_workers": ("dataloader_num_workers", 0), "persistent_workers": ("dataloader_persistent_workers", False)},
    worker_init="transformers.trainer_utils.seed_worker",
    spelled="the Hugging Face Trainer's DataLoader",
)

LIBRARY_LOOPS: Tuple[LibraryLoop, ...] = (HF_TRAINER,)
LIBRARY_LOOP_SPELLINGS: Tuple[bytes, ...] = tuple(sorted({
    name.rsplit(".", 1)[-1].encode() for loop in LIBRARY_LOOPS for name in loop.classes
}))
"""The class names a file spells when it builds one of these loops: a file that builds its
loader through them mentions no ``DataLoader``."""


def library_loop(qualified: str) -> Optional[LibraryLoop]:
    return next((loop for loop in LIBRARY_LOOPS if qualified in loop.classes), None)
