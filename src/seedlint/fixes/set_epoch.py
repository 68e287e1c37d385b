"""SDL009's fix: ``sampler.set_epoch(epoch)`` as the first statement of the epoch loop.

A receiver spelled ``?name`` may be None (``sampler = DistributedSampler(d) if ddp else None``);
its call is guarded with ``if name is not None:``. One spelled ``~name`` may be a sampler
without ``set_epoch`` (a ``RandomSampler`` when the run is not distributed); its call is
guarded with ``if hasattr(name, "set_epoch"):``.
"""

from __future__ import annotations

from typing import Dict, List, Tuple

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider

from seedlint.diagnostics import Fix


class _InsertSetEpoch(cst.CSTTransformer):
    METADATA_DEPENDENCIES = (PositionProvider,)

    def __init__(self, module: cst.Module, wanted: Dict[Tuple[int, int], Tuple[str, ...]]) -> None:
        super().__init__()
        self.module = module
        self.wanted = wanted

    def leave_For(self, original_node: cst.For, updated_node: cst.For) -> cst.For:
        start = self.get_metadata(PositionProvider, original_node).start
        data = self.wanted.get((start.line, start.column))
        if not data or not isinstance(updated_node.body, cst.IndentedBlock):
            return updated_node
        epoch, receivers = data[0], data[1:]
        body = list(updated_node.body.body)
        present = "\n".join(self.module.code_for_node(statement) for statement in body)
        new = []
        for receiver in receivers:
            guard = receiver[0] if receiver[0] in "?~" else ""
            receiver = receiver.lstrip("?~")
            if f"{receiver}.set_epoch(" in present:
                continue
            text = f"{receiver}.set_epoch({epoch})"
            if guard == "?":
                text = f"if {receiver} is not None:\n{self.module.default_indent}{text}"
            elif guard == "~":
                text = f'if hasattr({receiver}, "set_epoch"):\n{self.module.default_indent}{text}'
            new.append(cst.parse_statement(text + "\n", self.module.config_for_parsing))
        if not new:
            return updated_node
        return updated_node.with_changes(body=updated_node.body.with_changes(body=[*new, *body]))


def apply(module: cst.Module, fixes: List[Fix]) -> cst.Module:
    wanted = {(f.span.line, f.span.col): tuple(f.data) for f in fixes if f.data}
    if not wanted:
        return module
    return MetadataWrapper(module, unsafe_skip_copy=True).visit(_InsertSetEpoch(module, wanted))
