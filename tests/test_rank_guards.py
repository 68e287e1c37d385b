"""Which guards hold on the main process only (``analysis.rank_guards``)."""

from __future__ import annotations

import libcst as cst
import pytest

from seedlint.analysis.rank_guards import on_one_rank
from seedlint.facts.collector import collect_facts


def guards_of_seeding(body: str):
    source = "import torch\nimport torch.distributed as dist\n\ndef step(args, accelerator, trainer):\n" + body
    facts = collect_facts(cst.parse_module(source), "probe", "probe.py")
    function = next(f for f in facts.functions.values() if f.name == "step")
    return next(call for call in function.calls if call.func.dotted == "torch.manual_seed").guards


@pytest.mark.parametrize("body", [
    "    if accelerator.is_main_process:\n        torch.manual_seed(0)\n",
    "    if accelerator.is_local_main_process and args.log:\n        torch.manual_seed(0)\n",
    "    if trainer.is_global_zero:\n        torch.manual_seed(0)\n",
    "    if dist.get_rank() == 0:\n        torch.manual_seed(0)\n",
    "    if 0 == args.rank:\n        torch.manual_seed(0)\n",
    "    if args.local_rank in [-1, 0]:\n        torch.manual_seed(0)\n",
    "    if args.local_rank != 0:\n        pass\n    else:\n        torch.manual_seed(0)\n",
    "    if not is_main_process():\n        pass\n    else:\n        torch.manual_seed(0)\n",
])
def test_main_process_guards(body):
    assert on_one_rank(guards_of_seeding(body))


@pytest.mark.parametrize("body", [
    "    torch.manual_seed(0)\n",
    "    if not accelerator.is_main_process:\n        torch.manual_seed(0)\n",
    "    if args.rank == 1:\n        torch.manual_seed(0)\n",
    "    if args.local_rank in [-1, 0, 1]:\n        torch.manual_seed(0)\n",
    "    if accelerator.is_main_process or args.debug:\n        torch.manual_seed(0)\n",
    "    if args.world_size == 0:\n        torch.manual_seed(0)\n",
    "    if args.seed is not None:\n        torch.manual_seed(0)\n",
])
def test_guards_that_hold_on_other_ranks(body):
    assert not on_one_rank(guards_of_seeding(body))
