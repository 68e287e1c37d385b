"""Runtime truth for a loader the Hugging Face Trainer builds: the Trainer's own DataLoader
(``get_train_dataloader``, with ``dataloader_num_workers=2``) copies a NumPy generator the
dataset built in the parent into each worker, so both workers mask the same spans (SDL002);
the --fix output reseeds it in each worker."""

from __future__ import annotations

import importlib.util
import os
import sys
from pathlib import Path

import pytest
import torch

if not os.environ.get("CI"):
    pytest.importorskip("transformers")  # a test dependency; in CI its absence is a failure
from transformers import TrainingArguments  # noqa: E402

CASE = Path(__file__).resolve().parent.parent / "fixtures" / "SDL002" / "hf_trainer_subclass_rng_in_dataset"


class TinyModel(torch.nn.Module):
    """A model the Trainer accepts without downloading anything."""

    def __init__(self):
        super().__init__()
        self.weight = torch.nn.Parameter(torch.zeros(1))

    def forward(self, input_ids=None, labels=None):
        return {"loss": (self.weight * input_ids.float().mean()).sum()}


def masked_starts(file_name: str, tmp_path) -> list:
    spec = importlib.util.spec_from_file_location(f"hf_case_{file_name.split('.')[0]}", CASE / file_name)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    token_ids = [list(range(100 + i, 120 + i)) for i in range(32)]
    args = TrainingArguments(
        output_dir=str(tmp_path / "runs"), per_device_train_batch_size=8, dataloader_num_workers=2,
        report_to=[], use_cpu=True, seed=7,
    )
    trainer = module.WeightedLossTrainer(TinyModel(), args, train_dataset=module.SpanMasking(token_ids, 0))
    loader = trainer.get_train_dataloader()
    return [[int((row != -100).nonzero()[0]) for row in batch["labels"]] for batch in loader]


def test_trainer_workers_copy_the_dataset_generator(tmp_path):
    batches = masked_starts("finetune.py", tmp_path)
    assert len(batches) == 4
    assert batches[0] == batches[1] and batches[2] == batches[3], "worker 1 masks what worker 0 masks"


def test_fixed_dataset_masks_apart_in_each_worker(tmp_path):
    batches = masked_starts("finetune.fixed.py", tmp_path)
    assert batches[0] != batches[1] and batches[2] != batches[3], "each worker masks its own spans"
