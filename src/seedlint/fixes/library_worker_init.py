"""SDL011's fix where a library reseeds its own objects from inside a worker (MONAI's
``worker_init_fn``): pass that function as the loader's ``worker_init_fn`` when the loader
has none (data ``("pass", qualified)`` at the loader call), or call it first thing in the
loader's own ``worker_init_fn`` (``("call", qualified)`` at that function's ``def``).

The function is spelled through the module's own imports when they reach it, else added to
the module's ``from <package> import ...`` line, else imported under its own name, or
``<library>_<name>`` when the module already spells that name."""

from __future__ import annotations

from typing import Dict, List, Optional, Tuple

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider

from seedlint.diagnostics import Fix
from seedlint.fixes.imports import add_import, extend_from_import
from seedlint.fixes.module_edits import free_name, is_docstring
from seedlint.fixes.reseed_rng_object import reference
from seedlint.fixes.seed_worker import pass_keyword
from seedlint.line_length import DEFAULT as DEFAULT_LINE_LENGTH

Position = Tuple[int, int]


def _spelling(module: cst.Module, qualified: str) -> Tuple[str, Optional[str]]:
    """How the module can name ``qualified``, and the import to add for it: None when the
    module's imports reach it, ``("extend", parent)`` when its ``from parent import``
    line can take the name, else an import line."""
    found = reference(module, qualified)
    if found is not None:
        return found, None
    parent, name = qualified.rsplit(".", 1)
    local = free_name(module, (name, f"{qualified.split('.', 1)[0]}_{name}"))
    if local == name and extend_from_import(module, parent, name, DEFAULT_LINE_LENGTH) is not None:
        return name, f"extend:{parent}"
    alias = "" if local == name else f" as {local}"
    return local, f"from {parent} import {name}{alias}"


class _UseLibraryWorkerInit(cst.CSTTransformer):
    METADATA_DEPENDENCIES = (PositionProvider,)

    def __init__(self, passes: Dict[Position, str], calls: Dict[Position, str]) -> None:
        super().__init__()
        self.passes = passes
        self.calls = calls
        self.changed = False

    def _start(self, node: cst.CSTNode) -> Position:
        start = self.get_metadata(PositionProvider, node).start
        return start.line, start.column

    def leave_Call(self, original_node: cst.Call, updated_node: cst.Call) -> cst.Call:
        spelled = self.passes.get(self._start(original_node))
        if spelled is None:
            return updated_node
        self.changed = True
        return pass_keyword(updated_node, "worker_init_fn", cst.parse_expression(spelled))

    def leave_FunctionDef(self, original_node: cst.FunctionDef, updated_node: cst.FunctionDef) -> cst.FunctionDef:
        spelled = self.calls.get(self._start(original_node))
        params = updated_node.params.posonly_params or updated_node.params.params
        if spelled is None or not params:
            return updated_node
        body = updated_node.body
        if isinstance(body, cst.SimpleStatementSuite):
            body = cst.IndentedBlock(body=[cst.SimpleStatementLine(body=body.body)])
        statements = list(body.body)
        position = 1 if statements and is_docstring(statements[0]) else 0
        call = cst.parse_statement(f"{spelled}({params[0].name.value})\n")
        self.changed = True
        return updated_node.with_changes(body=body.with_changes(body=[*statements[:position], call, *statements[position:]]))


def apply(module: cst.Module, fixes: List[Fix]) -> cst.Module:
    spellings: Dict[str, Tuple[str, Optional[str]]] = {}
    passes: Dict[Position, str] = {}
    calls: Dict[Position, str] = {}
    for fix in fixes:
        action, qualified = fix.data
        if qualified not in spellings:
            spellings[qualified] = _spelling(module, qualified)
        (passes if action == "pass" else calls)[(fix.span.line, fix.span.col)] = spellings[qualified][0]
    transformer = _UseLibraryWorkerInit(passes, calls)
    updated = MetadataWrapper(module, unsafe_skip_copy=True).visit(transformer)
    if not transformer.changed:
        return module
    for spelled, line in spellings.values():
        if line is not None and line.startswith("extend:"):
            updated = extend_from_import(updated, line[len("extend:"):], spelled, DEFAULT_LINE_LENGTH) or updated
        elif line is not None:
            updated = add_import(updated, line, fixes[0].path)
    return updated
