"""SDL002's fix: reseed an RNG object held on ``self`` once per DataLoader worker, at the
top of each method that draws from it.

The inserted guard compares a marker on the object with ``get_worker_info().seed``, which
differs per worker and per epoch: new (non-persistent) workers start from the parent's copy
without the marker and reseed; persistent workers reseed once and keep their stream; in the
main process ``get_worker_info()`` is None and nothing changes.
"""

from __future__ import annotations

from typing import Dict, List, Optional, Tuple

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider

from seedlint.diagnostics import Fix
from seedlint.fixes.imports import add_import, extend_from_import
from seedlint.fixes.module_edits import free_name, is_docstring, module_bindings
from seedlint.knowledge.library_rngs import HELD_RNGS
from seedlint.line_length import DEFAULT as DEFAULT_LINE_LENGTH

WORKER_INFO = "torch.utils.data.get_worker_info"
GUARD = """\
if {info} is not None and getattr({self}, "{marker}", None) != {info}.seed:
    {self}.{marker} = {info}.seed
    {reseed}
"""


def reference(module: cst.Module, qualified: str) -> Optional[str]:
    """The shortest expression naming ``qualified`` through the module's own imports."""
    best = None
    for name, target in module_bindings(module).items():
        if not target:
            continue
        if target == qualified:
            return name
        if qualified.startswith(target + "."):
            candidate = name + qualified[len(target):]
            if best is None or len(candidate) < len(best):
                best = candidate
    return best


def marker(attribute: str) -> str:
    """The attribute remembering which worker seed ``attribute`` was last reseeded from."""
    return f"_{attribute.lstrip('_')}_worker_seed"


def reseed_statement(self_name: str, attribute: str, kind: str, info: str, default_rng: str) -> str:
    held = f"{self_name}.{attribute}"
    seed = f"{info}.seed"
    if kind.startswith("library:"):  # SDL011: a library's own reseeding method
        entry = next(e for e in HELD_RNGS if e.library == kind[len("library:"):])
        return entry.reseed.format(held=held, seed=seed)
    if kind == "numpy-generator":
        return f"{held} = {default_rng}({seed})"
    if kind == "numpy-randomstate":
        return f"{held}.seed({seed} % 2**32)"
    # torch seeds the worker's global `random` and `torch` RNGs with worker_info.seed itself.
    method = "manual_seed" if kind == "torch-generator" else "seed"
    return f"{held}.{method}({seed} + 2**32)  # a stream apart from the global RNG's"


class _InsertReseed(cst.CSTTransformer):
    METADATA_DEPENDENCIES = (PositionProvider,)

    def __init__(self, wanted: Dict[Tuple[int, int], List[Tuple[str, str]]], get_info: str, default_rng: str) -> None:
        super().__init__()
        self.wanted = wanted
        self.get_info = get_info
        self.default_rng = default_rng
        self.changed = False

    def leave_FunctionDef(self, original_node: cst.FunctionDef, updated_node: cst.FunctionDef) -> cst.FunctionDef:
        start = self.get_metadata(PositionProvider, original_node).start
        objects = self.wanted.get((start.line, start.column))
        params = updated_node.params.posonly_params or updated_node.params.params
        if not objects or not params:
            return updated_node
        body = updated_node.body
        if isinstance(body, cst.SimpleStatementSuite):
            body = cst.IndentedBlock(body=[cst.SimpleStatementLine(body=body.body)])
        text = cst.Module(body=[]).code_for_node(updated_node)
        self_name = params[0].name.value
        missing = [(a, k) for a, k in objects if f'"{marker(a)}"' not in text]
        if not missing:
            return updated_node
        info = next(n for n in ("worker_info", "_worker_info", "seedlint_worker_info") if n not in _names_in(updated_node))
        guards = [
            cst.parse_statement(GUARD.format(
                info=info, self=self_name, marker=marker(a), reseed=reseed_statement(self_name, a, k, info, self.default_rng)
            ))
            for a, k in missing
        ]
        statements = list(body.body)
        position = 1 if statements and is_docstring(statements[0]) else 0
        lookup = cst.parse_statement(f"{info} = {self.get_info}()\n")
        self.changed = True
        new = [*statements[:position], lookup, *guards, *statements[position:]]
        return updated_node.with_changes(body=body.with_changes(body=new))


def _names_in(node: cst.CSTNode) -> set:
    names = set()

    class _Names(cst.CSTVisitor):
        def visit_Name(self, name: cst.Name) -> None:
            names.add(name.value)

    node.visit(_Names())
    return names


def worker_info_function(module: cst.Module, path: Optional[str], planned: Optional[str] = None) -> Tuple[cst.Module, str]:
    """How to call ``get_worker_info`` here, extending ``from torch.utils.data import ...``
    when the module has one; otherwise through ``torch`` or a new import (named
    ``planned`` when the name was chosen before code that uses it was inserted)."""
    found = reference(module, WORKER_INFO)
    if found is not None and "." not in found:
        return module, found
    if "get_worker_info" not in module_bindings(module):
        extended = extend_from_import(module, "torch.utils.data", "get_worker_info", DEFAULT_LINE_LENGTH)
        if extended is not None:
            return extended, "get_worker_info"
    if found is not None:
        return module, found
    name = planned or free_name(module, ("get_worker_info", "torch_get_worker_info"))
    alias = "" if name == "get_worker_info" else f" as {name}"
    return add_import(module, f"from torch.utils.data import get_worker_info{alias}", path), name


def _default_rng_function(module: cst.Module, path: Optional[str], planned: Optional[str] = None) -> Tuple[cst.Module, str]:
    found = reference(module, "numpy.random.default_rng")
    if found is not None:
        return module, found
    alias = planned.split(".", 1)[0] if planned else free_name(module, ("np", "numpy"))
    line = "import numpy" if alias == "numpy" else f"import numpy as {alias}"
    return add_import(module, line, path), f"{alias}.random.default_rng"


def apply(module: cst.Module, fixes: List[Fix]) -> cst.Module:
    wanted: Dict[Tuple[int, int], List[Tuple[str, str]]] = {}
    for fix in fixes:
        for line, col, attribute, kind in fix.data:
            objects = wanted.setdefault((line, col), [])
            if (attribute, kind) not in objects:
                objects.append((attribute, kind))
    needs_numpy = any(kind == "numpy-generator" for objects in wanted.values() for _, kind in objects)
    # Names are decided on the original module; imports are added after the edit so that
    # positions still match the fix spans.
    get_info = reference(module, WORKER_INFO)
    get_info = get_info if get_info is not None and "." not in get_info else None
    path = fixes[0].path
    probe, planned_info = worker_info_function(module, path)
    probe, planned_rng = _default_rng_function(probe, path) if needs_numpy else (probe, "")
    transformer = _InsertReseed(wanted, get_info or planned_info, planned_rng)
    updated = MetadataWrapper(module, unsafe_skip_copy=True).visit(transformer)
    if not transformer.changed:
        return module
    updated, _ = worker_info_function(updated, path, planned_info)
    if needs_numpy:
        updated, _ = _default_rng_function(updated, path, planned_rng)
    return updated
