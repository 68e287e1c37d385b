"""SDL006's fix: hoist a lambda passed as ``collate_fn``/``worker_init_fn`` to a module-level
def named after its role, so worker processes started by spawn can pickle it."""

from __future__ import annotations

from typing import Dict, List, Optional, Set, Tuple

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider

from seedlint.diagnostics import Fix
from seedlint.fixes.module_edits import insert_helper, spelled_names

ROLE_NAMES = {"collate_fn": "collate_batch", "worker_init_fn": "init_worker"}


def apply(module: cst.Module, fixes: List[Fix]) -> cst.Module:
    roles = {(f.span.line, f.span.col): f.data[0] if f.data else "collate_fn" for f in fixes}
    wrapper = MetadataWrapper(module, unsafe_skip_copy=True)
    positions = wrapper.resolve(PositionProvider)
    lambdas = [
        (node, roles[(pos.start.line, pos.start.column)])
        for node, pos in positions.items()
        if isinstance(node, cst.Lambda) and (pos.start.line, pos.start.column) in roles
    ]
    if not lambdas:
        return module
    lambdas.sort(key=lambda item: (positions[item[0]].start.line, positions[item[0]].start.column))
    taken = spelled_names(module)
    renamed: Dict[int, str] = {}
    statements: Dict[int, cst.FunctionDef] = {}
    helpers: List[str] = []
    by_text: Dict[Tuple[str, str], str] = {}
    for node, role in lambdas:
        assigned = _module_level_assignment(module, node)
        if assigned is not None:
            statement, name = assigned
            statements[id(statement)] = _function_def(module, name, node, role)
            continue
        text = (role, module.code_for_node(node.with_changes(lpar=[], rpar=[])))
        name = by_text.get(text)
        if name is None:
            name = by_text[text] = _free_name(ROLE_NAMES.get(role, "worker_callable"), taken)
            taken.add(name)
            helpers.append(module.code_for_node(_function_def(module, name, node, role)))
        renamed[id(node)] = name
    updated = module.visit(_Hoist(renamed, statements))
    for source in reversed(helpers):
        updated = insert_helper(updated, source, [], path=fixes[0].path)
    return updated


def _function_def(module: cst.Module, name: str, node: cst.Lambda, role: str) -> cst.FunctionDef:
    body = node.body
    if "\n" in module.code_for_node(body) and not body.lpar:
        body = body.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
    if role == "worker_init_fn" and isinstance(body, cst.Call):
        statement: cst.BaseSmallStatement = cst.Expr(body)
    else:
        statement = cst.Return(body)
    return cst.FunctionDef(
        name=cst.Name(name),
        params=node.params,
        body=cst.IndentedBlock([cst.SimpleStatementLine([statement])], indent=module.default_indent),
    )


def _module_level_assignment(module: cst.Module, node: cst.Lambda) -> Optional[Tuple[cst.SimpleStatementLine, str]]:
    """``name = lambda ...`` as a whole module-level statement, with ``name`` bound once."""
    for statement in module.body:
        if not (isinstance(statement, cst.SimpleStatementLine) and len(statement.body) == 1):
            continue
        small = statement.body[0]
        if isinstance(small, cst.Assign) and small.value is node and len(small.targets) == 1:
            target = small.targets[0].target
            if isinstance(target, cst.Name) and _module_binding_count(module, target.value) == 1:
                return statement, target.value
    return None


def _module_binding_count(module: cst.Module, name: str) -> int:
    count = 0
    for statement in module.body:
        if isinstance(statement, (cst.FunctionDef, cst.ClassDef)) and statement.name.value == name:
            count += 1
        if isinstance(statement, cst.SimpleStatementLine):
            for small in statement.body:
                if isinstance(small, (cst.Assign, cst.AnnAssign, cst.AugAssign)):
                    targets = [t.target for t in small.targets] if isinstance(small, cst.Assign) else [small.target]
                    count += sum(1 for t in targets if isinstance(t, cst.Name) and t.value == name)
    return count


def _free_name(base: str, taken: Set[str]) -> str:
    if base not in taken:
        return base
    number = 2
    while f"{base}_{number}" in taken:
        number += 1
    return f"{base}_{number}"


class _Hoist(cst.CSTTransformer):
    def __init__(self, renamed: Dict[int, str], statements: Dict[int, cst.FunctionDef]) -> None:
        super().__init__()
        self.renamed = renamed
        self.statements = statements
        self.defs: Set[int] = set()

    def leave_Lambda(self, original_node: cst.Lambda, updated_node: cst.Lambda) -> cst.BaseExpression:
        name = self.renamed.get(id(original_node))
        if name is None:
            return updated_node
        return cst.Name(name, lpar=updated_node.lpar, rpar=updated_node.rpar)

    def leave_SimpleStatementLine(self, original_node: cst.SimpleStatementLine, updated_node: cst.SimpleStatementLine):
        replacement = self.statements.get(id(original_node))
        if replacement is None:
            return updated_node
        replacement = replacement.with_changes(leading_lines=original_node.leading_lines)
        self.defs.add(id(replacement))
        return replacement

    def leave_Module(self, original_node: cst.Module, updated_node: cst.Module) -> cst.Module:
        body = list(updated_node.body)
        for index, statement in enumerate(updated_node.body):
            if id(statement) in self.defs:
                if index > 0:
                    body[index] = _blank_lines_before(body[index], 2)
                if index + 1 < len(body):
                    body[index + 1] = _blank_lines_before(body[index + 1], 2)
        return updated_node.with_changes(body=body)


def _blank_lines_before(statement: cst.BaseStatement, count: int) -> cst.BaseStatement:
    lines = list(statement.leading_lines)
    blank = 0
    for line in lines:
        if line.comment is not None:
            break
        blank += 1
    if blank >= count:
        return statement
    return statement.with_changes(leading_lines=[cst.EmptyLine()] * (count - blank) + lines)
