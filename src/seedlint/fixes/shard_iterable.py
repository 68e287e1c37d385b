"""SDL005's fix (unsafe): decorate ``__iter__`` with ``shard_by_worker``, a helper inserted
once per module that keeps every ``num_workers``-th item, starting at the worker's id."""

from __future__ import annotations

from typing import List, Set, Tuple

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider

from seedlint.diagnostics import Fix
from seedlint.fixes.module_edits import free_name, fresh_name, import_statement, insert_helper
from seedlint.fixes.reseed_rng_object import worker_info_function, reference

HELPER_NAME = "shard_by_worker"
HELPER = """\
def {name}(make_iterator):
    def sharded_iter(self):
        iterator = make_iterator(self)
        worker_info = {get_worker_info}()
        if worker_info is not None:
            iterator = {islice}(iterator, worker_info.id, None, worker_info.num_workers)
        return iterator

    return sharded_iter
"""


class _Decorate(cst.CSTTransformer):
    METADATA_DEPENDENCIES = (PositionProvider,)

    def __init__(self, starts: Set[Tuple[int, int]], name: str) -> None:
        super().__init__()
        self.starts = starts
        self.name = name
        self.changed = False

    def leave_FunctionDef(self, original_node: cst.FunctionDef, updated_node: cst.FunctionDef) -> cst.FunctionDef:
        start = self.get_metadata(PositionProvider, original_node).start
        if (start.line, start.column) not in self.starts:
            return updated_node
        if any(isinstance(d.decorator, cst.Name) and d.decorator.value == self.name for d in updated_node.decorators):
            return updated_node
        self.changed = True
        decorator = cst.Decorator(decorator=cst.Name(self.name))
        return updated_node.with_changes(decorators=[*updated_node.decorators, decorator])


def apply(module: cst.Module, fixes: List[Fix]) -> cst.Module:
    name = fresh_name(module, HELPER_NAME)
    transformer = _Decorate({(f.span.line, f.span.col) for f in fixes}, name)
    updated = MetadataWrapper(module, unsafe_skip_copy=True).visit(transformer)
    if not transformer.changed:
        return updated
    updated, get_worker_info = worker_info_function(updated, fixes[0].path)
    imports: List[str] = []
    islice = reference(updated, "itertools.islice")
    if islice is None:
        alias = free_name(updated, ("itertools", "_itertools"))
        imports.append(import_statement("itertools", alias))
        islice = f"{alias}.islice"
    source = HELPER.format(name=name, get_worker_info=get_worker_info, islice=islice)
    source = source.replace("    ", updated.default_indent).replace("\n", updated.default_newline)
    return insert_helper(updated, source, imports, path=fixes[0].path)
