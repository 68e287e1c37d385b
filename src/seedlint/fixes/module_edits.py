"""Module-level edits shared by fixes: finding import aliases, adding imports, and
inserting a helper function after the imports with the module's own style."""

from __future__ import annotations

from typing import Dict, List, Optional, Sequence, Set

import libcst as cst


def _dotted(node: cst.BaseExpression) -> str:
    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Attribute):
        return f"{_dotted(node.value)}.{node.attr.value}"
    return ""


def _is_import_line(statement: cst.CSTNode) -> bool:
    return isinstance(statement, cst.SimpleStatementLine) and all(
        isinstance(small, (cst.Import, cst.ImportFrom)) for small in statement.body
    )


def _is_docstring(statement: cst.CSTNode) -> bool:
    return (
        isinstance(statement, cst.SimpleStatementLine)
        and len(statement.body) == 1
        and isinstance(statement.body[0], cst.Expr)
        and isinstance(statement.body[0].value, (cst.SimpleString, cst.ConcatenatedString))
    )


def module_bindings(module: cst.Module) -> Dict[str, str]:
    """Top-level names bound by imports (name -> imported module/object), plus every
    other top-level binding (name -> "")."""
    bound: Dict[str, str] = {}
    for statement in module.body:
        if isinstance(statement, (cst.FunctionDef, cst.ClassDef)):
            bound.setdefault(statement.name.value, "")
        if not isinstance(statement, cst.SimpleStatementLine):
            continue
        for small in statement.body:
            if isinstance(small, cst.Import):
                for alias in small.names:
                    full = _dotted(alias.name)
                    if alias.asname is not None:
                        bound[alias.asname.name.value] = full
                    else:
                        bound[full.split(".")[0]] = full.split(".")[0]
            elif isinstance(small, cst.ImportFrom) and not isinstance(small.names, cst.ImportStar) and not small.relative:
                base = _dotted(small.module) if small.module else ""
                for alias in small.names:
                    name = alias.asname.name.value if alias.asname else _dotted(alias.name)
                    bound[name] = f"{base}.{_dotted(alias.name)}"
            elif isinstance(small, (cst.Assign, cst.AnnAssign)):
                targets = small.targets if isinstance(small, cst.Assign) else [small]
                for target in targets:
                    if isinstance(target.target, cst.Name):
                        bound.setdefault(target.target.value, "")
    return bound


def alias_for(module: cst.Module, imported: str, preferred: Sequence[str]) -> Optional[str]:
    """The local name under which ``imported`` is already available at module level."""
    for name, target in module_bindings(module).items():
        if target == imported:
            return name
    return None


def free_name(module: cst.Module, candidates: Sequence[str]) -> str:
    bound = module_bindings(module)
    for candidate in candidates:
        if candidate not in bound:
            return candidate
    raise ValueError(f"no free name among {candidates}")


def import_statement(module: str, alias: str) -> str:
    if alias == module:
        return f"import {module}"
    return f"import {module} as {alias}"


def header_end(module: cst.Module) -> int:
    """Index after the last import of the module's leading block (before any def/class)."""
    end = 1 if module.body and _is_docstring(module.body[0]) else 0
    for index, statement in enumerate(module.body):
        if isinstance(statement, (cst.FunctionDef, cst.ClassDef)):
            break
        if _is_import_line(statement) or _is_import_block(statement):
            end = index + 1
    return end


def _is_import_block(statement: cst.CSTNode) -> bool:
    """``try: import x / except ImportError: ...`` and ``if TYPE_CHECKING: import x``."""
    if not isinstance(statement, (cst.Try, cst.If)):
        return False
    body = statement.body.body
    return bool(body) and all(_is_import_line(s) or isinstance(s, cst.SimpleStatementLine) and isinstance(s.body[0], cst.Pass) for s in body)


def _blank(count: int) -> List[cst.EmptyLine]:
    return [cst.EmptyLine() for _ in range(count)]


def _with_blank_lines_before(statement: cst.BaseStatement, count: int) -> cst.BaseStatement:
    lines = list(statement.leading_lines)
    existing = 0
    for line in lines:
        if line.comment is not None:
            break
        existing += 1
    if existing >= count:
        return statement
    return statement.with_changes(leading_lines=_blank(count - existing) + lines)


def insert_helper(
    module: cst.Module,
    helper_source: str,
    imports: Sequence[str],
    before: Optional[int] = None,
) -> cst.Module:
    """Insert ``imports`` after the module's imports, then ``helper_source`` (a def) with two
    blank lines around it. ``before`` caps the position (a statement index that must come
    after the helper, e.g. a module-level call that uses it)."""
    position = header_end(module)
    if before is not None:
        position = min(position, before)
    config = module.config_for_parsing
    new_imports = [cst.parse_statement(line + config.default_newline, config) for line in imports]
    helper = cst.parse_statement(helper_source, config)
    helper = helper.with_changes(leading_lines=_blank(2) if position > 0 else [])
    body = list(module.body)
    following = body[position:]
    if following:
        following[0] = _with_blank_lines_before(following[0], 2)
    if new_imports and position == 0 and body:
        helper = helper.with_changes(leading_lines=_blank(2))
    return module.with_changes(body=[*body[:position], *new_imports, helper, *following])


def top_level_index(module: cst.Module, targets: Set[int], positions) -> Optional[int]:
    """Index of the first top-level statement whose span contains one of the target lines."""
    for index, statement in enumerate(module.body):
        span = positions[statement]
        if any(span.start.line <= line <= span.end.line for line in targets):
            return index
    return None
