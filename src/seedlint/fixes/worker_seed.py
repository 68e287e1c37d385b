"""Fixes of worker seeds: SDL003 reseeds from ``torch.initial_seed() % 2**32`` (dropping a
redundant ``torch.manual_seed``), SDL004 appends ``% 2**32`` to a 64-bit seed."""

from __future__ import annotations

from typing import Dict, List, Optional, Set, Tuple, Union

import libcst as cst
from libcst.metadata import MetadataWrapper, ParentNodeProvider, PositionProvider

from seedlint.diagnostics import Fix
from seedlint.fixes.imports import add_import
from seedlint.fixes.module_edits import alias_for

MODULUS = "2**32"
Position = Tuple[int, int]


# ---------------------------------------------------------------------- SDL004
def apply_reduce(module: cst.Module, fixes: List[Fix]) -> cst.Module:
    """Append ``% 2**32`` to the seed argument of each fixed call."""
    starts = {(f.span.line, f.span.col) for f in fixes}
    wrapper = MetadataWrapper(module, unsafe_skip_copy=True)
    return wrapper.visit(_ReduceSeed(starts))


class _ReduceSeed(cst.CSTTransformer):
    METADATA_DEPENDENCIES = (PositionProvider,)

    def __init__(self, starts: Set[Position]) -> None:
        super().__init__()
        self.starts = starts

    def leave_Call(self, original_node: cst.Call, updated_node: cst.Call) -> cst.Call:
        start = self.get_metadata(PositionProvider, original_node).start
        if (start.line, start.column) not in self.starts or not updated_node.args:
            return updated_node
        return _replace_seed(updated_node, reduced(updated_node.args[0].value))


def reduced(value: cst.BaseExpression) -> cst.BaseExpression:
    """``value % 2**32``, parenthesising ``value`` unless it is an atom."""
    if not isinstance(value, (cst.Name, cst.Attribute, cst.Call, cst.Subscript, cst.Integer)) and not value.lpar:
        value = value.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
    return cst.BinaryOperation(
        left=value,
        operator=cst.Modulo(whitespace_before=cst.SimpleWhitespace(" "), whitespace_after=cst.SimpleWhitespace(" ")),
        right=cst.parse_expression(MODULUS),
    )


def _replace_seed(call: cst.Call, value: cst.BaseExpression) -> cst.Call:
    args = list(call.args)
    seed = next((i for i, a in enumerate(args) if a.keyword is None and not a.star), None)
    if seed is None:
        return call
    args[seed] = args[seed].with_changes(value=value)
    return call.with_changes(args=args)


# ---------------------------------------------------------------------- SDL003
def apply_reseed(module: cst.Module, fixes: List[Fix]) -> cst.Module:
    """Seed NumPy/random from ``torch.initial_seed() % 2**32``; drop ``torch.manual_seed``
    statements (torch seeds each worker itself)."""
    actions = {(f.span.line, f.span.col): f.data[0] if f.data else "reseed" for f in fixes}
    wrapper = MetadataWrapper(module, unsafe_skip_copy=True)
    finder = _FindSeedings(actions)
    wrapper.visit(finder)
    torch = alias_for(module, "torch", ("torch",)) or "torch"
    plan = _plan(finder, torch)
    updated = module.visit(_Reseed(plan))
    if alias_for(module, "torch", ("torch",)) is None and plan.changed:
        updated = add_import(updated, "import torch", fixes[0].path)
    return updated


class _Seeding:
    __slots__ = ("call", "action", "statement", "function")

    def __init__(self, call: cst.Call, action: str, statement: Optional[cst.SimpleStatementLine], function) -> None:
        self.call = call
        self.action = action
        self.statement = statement
        """The statement line when the call is a whole expression statement."""
        self.function = function


class _FindSeedings(cst.CSTVisitor):
    METADATA_DEPENDENCIES = (PositionProvider, ParentNodeProvider)

    def __init__(self, actions: Dict[Position, str]) -> None:
        super().__init__()
        self.actions = actions
        self.functions: List[Union[cst.FunctionDef, cst.Lambda]] = []
        self.found: List[_Seeding] = []

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self.functions.append(node)

    def leave_FunctionDef(self, original_node: cst.FunctionDef) -> None:
        self.functions.pop()

    def visit_Lambda(self, node: cst.Lambda) -> None:
        self.functions.append(node)

    def leave_Lambda(self, original_node: cst.Lambda) -> None:
        self.functions.pop()

    def visit_Call(self, node: cst.Call) -> None:
        start = self.get_metadata(PositionProvider, node).start
        action = self.actions.get((start.line, start.column))
        if action is None:
            return
        statement = None
        expr = self.get_metadata(ParentNodeProvider, node)
        if isinstance(expr, cst.Expr) and expr.value is node:
            line = self.get_metadata(ParentNodeProvider, expr)
            if isinstance(line, cst.SimpleStatementLine) and len(line.body) == 1:
                statement = line
        self.found.append(_Seeding(node, action, statement, self.functions[-1] if self.functions else None))


class _Plan:
    def __init__(self) -> None:
        self.calls: Dict[int, cst.BaseExpression] = {}
        """id(call) -> new seed argument."""
        self.drop: Set[int] = set()
        """id(expression statement) to remove."""
        self.assigns: Dict[int, cst.BaseExpression] = {}
        """id(assignment) -> new value."""

    @property
    def changed(self) -> bool:
        return bool(self.calls or self.drop or self.assigns)


def _plan(finder: _FindSeedings, torch: str) -> _Plan:
    plan = _Plan()
    new_seed = cst.parse_expression(f"{torch}.initial_seed() % {MODULUS}")
    by_function: Dict[int, List[_Seeding]] = {}
    for seeding in finder.found:
        if seeding.action == "torch" and seeding.statement is not None:
            plan.drop.add(id(seeding.statement))
        elif seeding.action == "torch":
            plan.calls[id(seeding.call)] = cst.parse_expression(f"{torch}.initial_seed()")
        else:
            by_function.setdefault(id(seeding.function), []).append(seeding)
    for seedings in by_function.values():
        function = seedings[0].function
        rewritable = isinstance(function, cst.FunctionDef)
        assign = _seed_variable_assignment(function, finder.found) if rewritable else None
        for seeding in seedings:
            if assign is not None and _first_arg_name(seeding.call) == assign[1]:
                continue
            plan.calls[id(seeding.call)] = new_seed
        if assign is not None:
            plan.assigns[id(assign[0])] = new_seed
    return plan


def _first_arg_name(call: cst.Call) -> Optional[str]:
    args = [a for a in call.args if a.keyword is None and not a.star]
    return args[0].value.value if args and isinstance(args[0].value, cst.Name) else None


def _seed_variable_assignment(function: cst.FunctionDef, seedings: List[_Seeding]) -> Optional[Tuple[cst.Assign, str]]:
    """``seed = <expr>`` at the top of the function body when ``seed`` is used nowhere but as
    the seed of the fixed calls: rewriting the assignment reads better than each call."""
    mine = [s for s in seedings if s.function is function]
    names = {_first_arg_name(s.call) for s in mine}
    if len(names) != 1 or None in names:
        return None
    variable = names.pop()
    assigns = []
    for statement in function.body.body:
        if isinstance(statement, cst.SimpleStatementLine):
            for small in statement.body:
                if isinstance(small, cst.Assign) and len(small.targets) == 1:
                    target = small.targets[0].target
                    if isinstance(target, cst.Name) and target.value == variable:
                        assigns.append(small)
    if len(assigns) != 1:
        return None
    counter = _NameUses(variable)
    function.body.visit(counter)
    if counter.count != 1 + len(mine):
        return None
    return assigns[0], variable


class _NameUses(cst.CSTVisitor):
    """Counts the places a name is spelled (not as an attribute name or keyword)."""

    def __init__(self, name: str) -> None:
        super().__init__()
        self.name = name
        self.count = 0

    def visit_Name(self, node: cst.Name) -> None:
        if node.value == self.name:
            self.count += 1

    def visit_Attribute(self, node: cst.Attribute) -> bool:
        node.value.visit(self)
        return False

    def visit_Arg(self, node: cst.Arg) -> bool:
        node.value.visit(self)
        return False


class _Reseed(cst.CSTTransformer):
    def __init__(self, plan: _Plan) -> None:
        super().__init__()
        self.plan = plan

    def leave_Call(self, original_node: cst.Call, updated_node: cst.Call) -> cst.Call:
        new = self.plan.calls.get(id(original_node))
        return _replace_seed(updated_node, new) if new is not None else updated_node

    def leave_Assign(self, original_node: cst.Assign, updated_node: cst.Assign) -> cst.Assign:
        new = self.plan.assigns.get(id(original_node))
        return updated_node.with_changes(value=new) if new is not None else updated_node

    def leave_SimpleStatementLine(
        self, original_node: cst.SimpleStatementLine, updated_node: cst.SimpleStatementLine
    ) -> Union[cst.SimpleStatementLine, cst.RemovalSentinel]:
        if id(original_node) in self.plan.drop:
            return cst.RemovalSentinel.REMOVE
        return updated_node

    def leave_IndentedBlock(self, original_node: cst.IndentedBlock, updated_node: cst.IndentedBlock) -> cst.IndentedBlock:
        if original_node.body and not updated_node.body:
            return updated_node.with_changes(body=[cst.SimpleStatementLine([cst.Pass()])])
        return updated_node
