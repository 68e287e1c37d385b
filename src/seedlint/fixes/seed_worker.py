"""SDL001's fix: pass a NumPy-seeding function as ``worker_init_fn``: the module's own
when the rule found one that seeds correctly (``("reuse", name)``), else ``seed_worker``
inserted once per module under a name the module does not spell yet (``("insert",)``)."""

from __future__ import annotations

from typing import Dict, List, Set, Tuple

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider

from seedlint.diagnostics import Fix
from seedlint.fixes.module_edits import alias_for, free_name, fresh_name, import_statement, insert_helper
from seedlint.rules.sdl001_numpy_global_rng_in_workers import HELPER_NAME

HELPER = """\
def {name}(worker_id):
    worker_seed = {torch}.initial_seed() % 2**32
    {numpy}.random.seed(worker_seed)
    {random}.seed(worker_seed)
"""


def helper_source(module: cst.Module, name: str, torch: str, numpy: str, random: str) -> str:
    text = HELPER.format(name=name, torch=torch, numpy=numpy, random=random)
    return text.replace("    ", module.default_indent).replace("\n", module.default_newline)


def required_imports(module: cst.Module) -> Tuple[List[str], dict]:
    """Aliases for torch, numpy and random, reusing the module's own; imports to add."""
    imports: List[str] = []
    aliases = {}
    for imported, candidates in (("torch", ("torch",)), ("numpy", ("np", "numpy")), ("random", ("random", "stdlib_random"))):
        alias = alias_for(module, imported, candidates)
        if alias is None:
            alias = free_name(module, candidates)
            imports.append(import_statement(imported, alias))
        aliases[imported] = alias
    return imports, aliases


class _PassSeedWorker(cst.CSTTransformer):
    METADATA_DEPENDENCIES = (PositionProvider,)

    def __init__(self, names: Dict[Tuple[int, int], str]) -> None:
        super().__init__()
        self.names = names
        self.lines: Set[int] = set()

    def leave_Call(self, original_node: cst.Call, updated_node: cst.Call) -> cst.Call:
        start = self.get_metadata(PositionProvider, original_node).start
        name = self.names.get((start.line, start.column))
        if name is None:
            return updated_node
        self.lines.add(start.line)
        return pass_keyword(updated_node, "worker_init_fn", cst.Name(name))


def pass_keyword(call: cst.Call, keyword: str, value: cst.BaseExpression) -> cst.Call:
    """Set ``keyword=value`` on a call, replacing an existing value or appending the
    argument in the call's own layout (same separator as the previous argument)."""
    args = list(call.args)
    for index, arg in enumerate(args):
        if arg.keyword is not None and arg.keyword.value == keyword:
            args[index] = arg.with_changes(value=value)
            return call.with_changes(args=args)
    new = cst.Arg(value=value, keyword=cst.Name(keyword), equal=cst.AssignEqual(
        whitespace_before=cst.SimpleWhitespace(""), whitespace_after=cst.SimpleWhitespace("")))
    if not args:
        return call.with_changes(args=[new])
    last = args[-1]
    if isinstance(last.comma, cst.Comma):
        separator = args[-2].comma if len(args) > 1 and isinstance(args[-2].comma, cst.Comma) else last.comma
        args[-1] = last.with_changes(comma=separator)
        new = new.with_changes(comma=last.comma)
    else:
        separator = args[-2].comma if len(args) > 1 and isinstance(args[-2].comma, cst.Comma) else None
        args[-1] = last.with_changes(comma=separator or cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))
        new = new.with_changes(whitespace_after_arg=last.whitespace_after_arg)
        args[-1] = args[-1].with_changes(whitespace_after_arg=cst.SimpleWhitespace(""))
    args.append(new)
    return call.with_changes(args=args)


def apply(module: cst.Module, fixes: List[Fix]) -> cst.Module:
    helper = fresh_name(module, HELPER_NAME)
    names = {(f.span.line, f.span.col): f.data[1] if f.data[:1] == ("reuse",) else helper for f in fixes}
    wrapper = MetadataWrapper(module, unsafe_skip_copy=True)
    transformer = _PassSeedWorker(names)
    positions = wrapper.resolve(PositionProvider)
    updated = wrapper.visit(transformer)
    inserted_for = {(f.span.line) for f in fixes if f.data[:1] != ("reuse",)}
    if not transformer.lines & inserted_for:
        return updated
    first_use = None
    for index, statement in enumerate(module.body):
        span = positions[statement]
        if any(span.start.line <= line <= span.end.line for line in transformer.lines & inserted_for):
            first_use = index
            break
    if first_use is not None and isinstance(module.body[first_use], (cst.FunctionDef, cst.ClassDef)):
        first_use = None
    imports, aliases = required_imports(updated)
    source = helper_source(updated, helper, aliases["torch"], aliases["numpy"], aliases["random"])
    return insert_helper(updated, source, imports, before=first_use, path=fixes[0].path)
