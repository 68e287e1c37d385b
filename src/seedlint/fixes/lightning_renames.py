"""SDL103/SDL105 fixes: rename the sampler-injection flag across the Lightning 2.0 rename,
as a keyword (``Trainer(replace_sampler_ddp=...)``, ``**dict(...)``), a ``**{"key": ...}``
string key, or the environment variable name string. ``Fix.data`` is ``(old, new)``."""

from __future__ import annotations

from typing import Dict, List, Tuple

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider

from seedlint.diagnostics import Fix


class _Rename(cst.CSTTransformer):
    METADATA_DEPENDENCIES = (PositionProvider,)

    def __init__(self, renames: Dict[Tuple[int, int], Tuple[str, str]]) -> None:
        super().__init__()
        self.renames = renames

    def _rename_at(self, node: cst.CSTNode):
        start = self.get_metadata(PositionProvider, node).start
        return self.renames.get((start.line, start.column))

    def leave_Arg(self, original_node: cst.Arg, updated_node: cst.Arg) -> cst.Arg:
        if original_node.keyword is None:
            return updated_node
        rename = self._rename_at(original_node.keyword)
        if rename is None or original_node.keyword.value != rename[0]:
            return updated_node
        return updated_node.with_changes(keyword=cst.Name(rename[1]))

    def leave_SimpleString(self, original_node: cst.SimpleString, updated_node: cst.SimpleString) -> cst.SimpleString:
        rename = self._rename_at(original_node)
        if rename is None or original_node.raw_value != rename[0]:
            return updated_node
        node = original_node
        return updated_node.with_changes(value=f"{node.prefix}{node.quote}{rename[1]}{node.quote}")


def apply(module: cst.Module, fixes: List[Fix]) -> cst.Module:
    renames = {(f.span.line, f.span.col): (f.data[0], f.data[1]) for f in fixes}
    return MetadataWrapper(module, unsafe_skip_copy=True).visit(_Rename(renames))
