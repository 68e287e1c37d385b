"""SDL008's fix: pass ``workers=True`` to Lightning's ``seed_everything``."""

from __future__ import annotations

from typing import List, Set, Tuple

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider

from seedlint.diagnostics import Fix
from seedlint.fixes.seed_worker import pass_keyword


class _AddWorkersTrue(cst.CSTTransformer):
    METADATA_DEPENDENCIES = (PositionProvider,)

    def __init__(self, starts: Set[Tuple[int, int]]) -> None:
        super().__init__()
        self.starts = starts

    def leave_Call(self, original_node: cst.Call, updated_node: cst.Call) -> cst.Call:
        start = self.get_metadata(PositionProvider, original_node).start
        if (start.line, start.column) not in self.starts:
            return updated_node
        if any(arg.keyword is not None and arg.keyword.value == "workers" for arg in updated_node.args):
            return updated_node
        return pass_keyword(updated_node, "workers", cst.Name("True"))


def apply(module: cst.Module, fixes: List[Fix]) -> cst.Module:
    starts = {(f.span.line, f.span.col) for f in fixes}
    return MetadataWrapper(module, unsafe_skip_copy=True).visit(_AddWorkersTrue(starts))
