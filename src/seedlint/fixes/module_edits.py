"""Module-level edits shared by fixes: finding import aliases, adding imports, and
inserting a helper function after the imports with the module's own style."""

from __future__ import annotations

from typing import Dict, List, Optional, Sequence, Set

import libcst as cst

from seedlint.fixes.imports import add_imports


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


def is_docstring(statement: cst.CSTNode) -> bool:
    return (
        isinstance(statement, cst.SimpleStatementLine)
        and len(statement.body) == 1
        and isinstance(statement.body[0], cst.Expr)
        and isinstance(statement.body[0].value, (cst.SimpleString, cst.ConcatenatedString))
    )


def _module_level_statements(statements) -> list:
    """Statements that run at module level: the body, and the bodies of module-level
    ``if``/``try``/``with``/``for``/``while`` blocks (not of functions or classes)."""
    found = []
    for statement in statements:
        found.append(statement)
        if isinstance(statement, (cst.If, cst.Try, cst.With, cst.For, cst.While)):
            blocks = [statement.body]
            orelse = getattr(statement, "orelse", None)
            while orelse is not None:
                blocks.append(orelse.body)
                orelse = getattr(orelse, "orelse", None) if isinstance(orelse, cst.If) else None
            if isinstance(statement, cst.Try):
                blocks.extend(handler.body for handler in statement.handlers)
                if statement.finalbody is not None:
                    blocks.append(statement.finalbody.body)
            for block in blocks:
                if isinstance(block, cst.IndentedBlock):
                    found.extend(_module_level_statements(block.body))
    return found


def module_bindings(module: cst.Module) -> Dict[str, str]:
    """Module-level names bound by imports (name -> imported module/object), plus every
    other module-level binding (name -> "")."""
    bound: Dict[str, str] = {}
    for statement in _module_level_statements(module.body):
        if isinstance(statement, (cst.FunctionDef, cst.ClassDef)):
            bound.setdefault(statement.name.value, "")
        if not isinstance(statement, cst.SimpleStatementLine):
            continue
        for small in statement.body:
            if isinstance(small, cst.Import):
                for alias in small.names:
                    full = _dotted(alias.name)
                    if alias.asname is not None:
                        bound.setdefault(alias.asname.name.value, full)
                    else:
                        bound.setdefault(full.split(".")[0], full.split(".")[0])
            elif isinstance(small, cst.ImportFrom) and not isinstance(small.names, cst.ImportStar) and not small.relative:
                base = _dotted(small.module) if small.module else ""
                for alias in small.names:
                    name = alias.asname.name.value if alias.asname else _dotted(alias.name)
                    bound.setdefault(name, f"{base}.{_dotted(alias.name)}")
            elif isinstance(small, (cst.Assign, cst.AnnAssign)):
                targets = small.targets if isinstance(small, cst.Assign) else [small]
                for target in targets:
                    if isinstance(target.target, cst.Name):
                        bound.setdefault(target.target.value, "")
    return bound


def spelled_names(module: cst.Module) -> Set[str]:
    """Every identifier the module spells as a name (not as an attribute after a dot):
    a name inserted anywhere must clash with none, whatever scope binds them."""
    found: Set[str] = set()

    class Names(cst.CSTVisitor):
        def visit_Name(self, node: cst.Name) -> None:
            found.add(node.value)

        def visit_Attribute(self, node: cst.Attribute) -> bool:
            node.value.visit(self)
            return False

        def visit_Import(self, node: cst.Import) -> bool:
            for alias in node.names:
                found.add(alias.asname.name.value if alias.asname else _dotted(alias.name).split(".")[0])
            return False

        def visit_ImportFrom(self, node: cst.ImportFrom) -> bool:
            if not isinstance(node.names, cst.ImportStar):
                for alias in node.names:
                    found.add(alias.asname.name.value if alias.asname else _dotted(alias.name))
            return False

    module.visit(Names())
    return found


def fresh_name(module: cst.Module, base: str, taken: Set[str] = frozenset()) -> str:
    """``base``, or ``base_2``, ``base_3``... : the first the module does not spell."""
    spelled = spelled_names(module) | set(taken)
    if base not in spelled:
        return base
    number = 2
    while f"{base}_{number}" in spelled:
        number += 1
    return f"{base}_{number}"


def alias_for(module: cst.Module, imported: str, preferred: Sequence[str]) -> Optional[str]:
    """The local name under which ``imported`` is already available at module level."""
    for name, target in module_bindings(module).items():
        if target == imported:
            return name
    return None


def free_name(module: cst.Module, candidates: Sequence[str]) -> str:
    """The first candidate the module does not spell; else the first, numbered."""
    spelled = spelled_names(module)
    for candidate in candidates:
        if candidate not in spelled:
            return candidate
    return fresh_name(module, candidates[0])


def import_statement(module: str, alias: str) -> str:
    if alias == module:
        return f"import {module}"
    return f"import {module} as {alias}"


def header_end(module: cst.Module) -> int:
    """Index after the last import of the module's leading block (before any def/class)."""
    end = 1 if module.body and is_docstring(module.body[0]) else 0
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
    path: Optional[str] = None,
) -> cst.Module:
    """Add ``imports`` where isort would put them, then ``helper_source`` (a def) after the
    module's imports with two blank lines around it. ``before`` caps the position (a
    statement index that must come after the helper, e.g. a module-level call that uses
    it); ``path`` is the file's, to tell first-party imports apart."""
    if before is not None and before < len(module.body):
        marker = module.body[before]
        module = add_imports(module, imports, path)
        before = next(i for i, statement in enumerate(module.body) if statement is marker)
    else:
        module = add_imports(module, imports, path)
    position = header_end(module)
    if before is not None:
        position = min(position, before)
    config = module.config_for_parsing
    helper = cst.parse_statement(helper_source, config)
    helper = helper.with_changes(leading_lines=_blank(2) if position > 0 else [])
    body = list(module.body)
    following = body[position:]
    if following:
        following[0] = _with_blank_lines_before(following[0], 2)
    return module.with_changes(body=[*body[:position], helper, *following])


def top_level_index(module: cst.Module, targets: Set[int], positions) -> Optional[int]:
    """Index of the first top-level statement whose span contains one of the target lines."""
    for index, statement in enumerate(module.body):
        span = positions[statement]
        if any(span.start.line <= line <= span.end.line for line in targets):
            return index
    return None
