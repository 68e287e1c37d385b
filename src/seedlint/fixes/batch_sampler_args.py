"""DataLoader batching-argument edits.

SDL104: ``batch_sampler=BatchSampler(S, B, D)`` becomes ``sampler=S, batch_size=B, drop_last=D``.
SDL110: a conflicting ``batch_size=None`` keyword is dropped; ``shuffle=True`` beside a
``sampler`` becomes ``shuffle=sampler is None`` (a sampler that may be None), or is dropped
(one built in the call).
All locate the keyword by its start position (the fix span).
"""

from __future__ import annotations

from typing import List, Optional, Set, Tuple

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider

from seedlint.diagnostics import Fix

SAMPLER_PARAMETERS = ("sampler", "batch_size", "drop_last")


class _EditLoaderArgs(cst.CSTTransformer):
    METADATA_DEPENDENCIES = (PositionProvider,)

    def __init__(self, starts: Set[Tuple[int, int]], split: bool, unless: Optional[dict] = None) -> None:
        super().__init__()
        self.starts = starts
        self.split = split
        self.unless = unless or {}
        """Keyword start -> the sampler name its new value tests (``shuffle=sampler is None``)."""

    def _targeted(self, arg: cst.Arg) -> bool:
        if arg.keyword is None:
            return False
        start = self.get_metadata(PositionProvider, arg.keyword).start
        return (start.line, start.column) in self.starts

    def leave_Call(self, original_node: cst.Call, updated_node: cst.Call) -> cst.Call:
        for index, arg in enumerate(original_node.args):
            if not self._targeted(arg):
                continue
            if self.split:
                return _split(updated_node, index)
            start = self.get_metadata(PositionProvider, arg.keyword).start
            name = self.unless.get((start.line, start.column))
            if name is not None:
                return _shuffle_unless(updated_node, index, name)
            return _drop(updated_node, index)
        return updated_node


def _split(call: cst.Call, index: int) -> cst.Call:
    arg = call.args[index]
    inner = arg.value
    if not isinstance(inner, cst.Call) or arg.keyword is None or arg.keyword.value != "batch_sampler":
        return call
    values = _sampler_arguments(inner)
    if values is None:
        return call
    equal = arg.equal
    separator = cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))
    new_args = [
        cst.Arg(keyword=cst.Name(name), equal=equal, value=value, comma=separator)
        for name, value in zip(SAMPLER_PARAMETERS, values)
    ]
    new_args[-1] = new_args[-1].with_changes(comma=arg.comma, whitespace_after_arg=arg.whitespace_after_arg)
    args = list(call.args)
    args[index: index + 1] = new_args
    return call.with_changes(args=args)


def _sampler_arguments(call: cst.Call) -> Optional[List[cst.BaseExpression]]:
    found = {}
    for position, arg in enumerate(call.args):
        if arg.star:
            return None
        name = arg.keyword.value if arg.keyword is not None else (SAMPLER_PARAMETERS[position] if position < 3 else None)
        if name not in SAMPLER_PARAMETERS or name in found:
            return None
        found[name] = arg.value
    if len(found) != 3:
        return None
    return [found[name] for name in SAMPLER_PARAMETERS]


def _drop(call: cst.Call, index: int) -> cst.Call:
    args = list(call.args)
    removed = args.pop(index)
    if index == len(args) and args:
        args[-1] = args[-1].with_changes(comma=removed.comma, whitespace_after_arg=removed.whitespace_after_arg)
    return call.with_changes(args=args)


def _shuffle_unless(call: cst.Call, index: int, sampler: str) -> cst.Call:
    arg = call.args[index]
    test = cst.Comparison(left=cst.parse_expression(sampler), comparisons=[
        cst.ComparisonTarget(cst.Is(), cst.Name("None")),
    ])
    args = list(call.args)
    args[index] = arg.with_changes(value=test)
    return call.with_changes(args=args)


def _apply(module: cst.Module, fixes: List[Fix], split: bool) -> cst.Module:
    starts = {(f.span.line, f.span.col) for f in fixes}
    unless = {(f.span.line, f.span.col): f.data[1] for f in fixes if len(f.data) == 2 and f.data[0] == "unless"}
    return MetadataWrapper(module, unsafe_skip_copy=True).visit(_EditLoaderArgs(starts, split, unless))


def apply_split(module: cst.Module, fixes: List[Fix]) -> cst.Module:
    return _apply(module, fixes, split=True)


def apply_drop(module: cst.Module, fixes: List[Fix]) -> cst.Module:
    return _apply(module, fixes, split=False)


def apply_shuffle(module: cst.Module, fixes: List[Fix]) -> cst.Module:
    return _apply(module, fixes, split=False)
