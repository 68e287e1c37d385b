"""Wrapping the calls a fix made too long, the way black lays them out: a call on one line
that now runs past the project's line length gets its arguments on an indented line of
their own when they fit there, else one per line with a trailing comma; the closing
parenthesis goes on its own line at the indentation of the line the call starts on.
Only lines the fix wrote are touched, and only calls that are a statement's value or an
argument alone on its line (what black would split first); a line long only because of
its comment is left alone."""

from __future__ import annotations

import io
import tokenize
from typing import List, Set

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider

MAX_ROUNDS = 4


def _split(module: cst.Module, call: cst.Call, indent: str, line_length: int) -> cst.Call:
    """The arguments on one line of their own when they fit there, else one per line with
    a trailing comma (black's two layouts)."""
    inner = indent + module.default_indent

    break_to = _break_to
    bare = [arg.with_changes(comma=cst.MaybeSentinel.DEFAULT, whitespace_after_arg=cst.SimpleWhitespace("")) for arg in call.args]
    together = ", ".join(module.code_for_node(arg) for arg in bare)
    args = []
    if len(inner) + len(together) <= line_length:
        for index, arg in enumerate(bare):
            last = index == len(bare) - 1
            comma = cst.MaybeSentinel.DEFAULT if last else cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))
            args.append(arg.with_changes(comma=comma, whitespace_after_arg=break_to(indent) if last else cst.SimpleWhitespace("")))
    else:
        for index, arg in enumerate(bare):
            last = index == len(bare) - 1
            comma = cst.Comma(whitespace_before=cst.SimpleWhitespace(""), whitespace_after=break_to(indent if last else inner))
            args.append(arg.with_changes(comma=comma))
    return call.with_changes(args=args, whitespace_before_args=break_to(inner))


def _splittable(call: cst.Call, code: str) -> bool:
    if not call.args or "\n" in code or "#" in code:
        return False
    # A lone unparenthesised generator argument takes no trailing comma.
    return not (len(call.args) == 1 and isinstance(call.args[0].value, cst.GeneratorExp) and not call.args[0].value.lpar)


def _break_to(whitespace: str) -> cst.ParenthesizedWhitespace:
    return cst.ParenthesizedWhitespace(indent=False, last_line=cst.SimpleWhitespace(whitespace))


def _one_operand_per_line(node: cst.BaseExpression, operator: type, inner: str) -> cst.BaseExpression:
    """``a and b and c`` with a line break before each operator of the same kind."""
    if not isinstance(node, cst.BooleanOperation) or not isinstance(node.operator, operator) or node.lpar:
        return node
    return node.with_changes(
        left=_one_operand_per_line(node.left, operator, inner),
        operator=node.operator.with_changes(whitespace_before=_break_to(inner), whitespace_after=cst.SimpleWhitespace(" ")),
    )


def _code_length(text: str) -> int:
    """The length of a line without its trailing comment: a comment is no reason to split."""
    if "#" not in text:
        return len(text)
    try:
        for token in tokenize.generate_tokens(io.StringIO(text).readline):
            if token.type == tokenize.COMMENT:
                return len(text[: token.start[1]].rstrip())
    except (tokenize.TokenError, IndentationError, SyntaxError):
        pass
    return len(text)


class _SplitLongLines(cst.CSTTransformer):
    """Splits the outermost call of each long line: the value of a statement
    (``x = f(...)``, ``return f(...)``, ``f(...)``), or an argument alone on its line;
    and the ``and``/``or`` test of a long ``if``."""

    METADATA_DEPENDENCIES = (PositionProvider,)

    def __init__(self, module: cst.Module, long_lines: Set[int], lines: List[str], line_length: int) -> None:
        super().__init__()
        self.module = module
        self.line_length = line_length
        self.long_lines = long_lines
        self.lines = lines
        self.eligible: Set[int] = set()
        self.changed = False

    def visit_SimpleStatementLine(self, node: cst.SimpleStatementLine) -> None:
        for small in node.body:
            value = getattr(small, "value", None)
            if isinstance(small, (cst.Expr, cst.Assign, cst.AnnAssign, cst.AugAssign, cst.Return)) and isinstance(value, cst.Call):
                self.eligible.add(id(value))

    def visit_Arg(self, node: cst.Arg) -> None:
        if isinstance(node.value, cst.Call):
            position = self.get_metadata(PositionProvider, node.value)
            text = self.lines[position.start.line - 1].strip()
            bare = self.module.code_for_node(node.with_changes(comma=cst.MaybeSentinel.DEFAULT, whitespace_after_arg=cst.SimpleWhitespace("")))
            if text in (bare, bare + ","):
                self.eligible.add(id(node.value))

    def leave_If(self, original_node: cst.If, updated_node: cst.If) -> cst.If:
        """``if a and b:`` too long: ``if (`` / one operand per line / ``):``."""
        test = original_node.test
        position = self.get_metadata(PositionProvider, test)
        line = position.start.line
        if line not in self.long_lines or position.end.line != line or test.lpar:
            return updated_node
        if not isinstance(test, cst.BooleanOperation) or "#" in self.module.code_for_node(test):
            return updated_node
        text = self.lines[line - 1]
        indent = text[: len(text) - len(text.lstrip())]
        inner = indent + self.module.default_indent
        self.changed = True
        split = _one_operand_per_line(updated_node.test, type(test.operator), inner)
        split = split.with_changes(
            lpar=[cst.LeftParen(whitespace_after=_break_to(inner))],
            rpar=[cst.RightParen(whitespace_before=_break_to(indent))],
        )
        return updated_node.with_changes(test=split, whitespace_before_test=cst.SimpleWhitespace(" "))

    def leave_Call(self, original_node: cst.Call, updated_node: cst.Call) -> cst.BaseExpression:
        if id(original_node) not in self.eligible:
            return updated_node
        position = self.get_metadata(PositionProvider, original_node)
        line = position.start.line
        if line not in self.long_lines or position.end.line != line:
            return updated_node
        if not _splittable(original_node, self.module.code_for_node(original_node)):
            return updated_node
        text = self.lines[line - 1]
        indent = text[: len(text) - len(text.lstrip())]
        self.changed = True
        return _split(self.module, updated_node, indent, self.line_length)


def wrap_long_calls(original: str, new: cst.Module, line_length: int) -> cst.Module:
    """``new`` with every call the fix made longer than ``line_length`` split."""
    before = set(original.splitlines())
    for _ in range(MAX_ROUNDS):
        lines = new.code.splitlines()
        long_lines = {
            number for number, text in enumerate(lines, start=1)
            if len(text) > line_length and text not in before and _code_length(text) > line_length
        }
        if not long_lines:
            return new
        wrapper = MetadataWrapper(new)
        transformer = _SplitLongLines(wrapper.module, long_lines, lines, line_length)
        updated = wrapper.visit(transformer)
        if not transformer.changed:
            return new
        new = updated
    return new
