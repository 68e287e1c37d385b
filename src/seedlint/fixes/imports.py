"""Adding an import where isort would put it: in its section (future, standard library,
third party, first party), among the section's ``import x`` lines in alphabetical order,
before the section's ``from x import y`` lines; a section the module lacks is opened in
its place, one blank line from its neighbours."""

from __future__ import annotations

import os
import sys
from typing import List, Optional, Sequence, Tuple

import libcst as cst

FUTURE, STANDARD_LIBRARY, THIRD_PARTY, FIRST_PARTY = 0, 1, 2, 3
ROOT_MARKERS = ("pyproject.toml", "setup.py", "setup.cfg", ".git")


def _dotted(node: cst.BaseExpression) -> str:
    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Attribute):
        return f"{_dotted(node.value)}.{node.attr.value}"
    return ""


def imported_module(statement: cst.BaseStatement) -> Optional[Tuple[str, bool]]:
    """(module name, is ``from`` import) of a line that holds only imports, else None."""
    if not isinstance(statement, cst.SimpleStatementLine) or not statement.body:
        return None
    first = statement.body[0]
    if not all(isinstance(small, (cst.Import, cst.ImportFrom)) for small in statement.body):
        return None
    if isinstance(first, cst.Import):
        return _dotted(first.names[0].name), False
    prefix = "." * len(first.relative)
    return prefix + (_dotted(first.module) if first.module is not None else ""), True


def _search_roots(path: Optional[str]) -> List[str]:
    """Directories from which the file's own project is importable: the file's directory,
    the directory above its outermost package, and the project root and its ``src``."""
    if not path:
        return []
    directory = os.path.dirname(os.path.abspath(path))
    roots = [directory]
    package = directory
    while os.path.isfile(os.path.join(package, "__init__.py")):
        package = os.path.dirname(package)
    roots.append(package)
    probe = directory
    while True:
        if any(os.path.exists(os.path.join(probe, marker)) for marker in ROOT_MARKERS):
            roots.extend([probe, os.path.join(probe, "src")])
            break
        parent = os.path.dirname(probe)
        if parent == probe:
            break
        probe = parent
    return list(dict.fromkeys(roots))


def section(module_name: str, path: Optional[str]) -> int:
    if module_name.startswith("."):
        return FIRST_PARTY
    top = module_name.split(".", 1)[0]
    if top == "__future__":
        return FUTURE
    if top in sys.stdlib_module_names:
        return STANDARD_LIBRARY
    for root in _search_roots(path):
        if os.path.isfile(os.path.join(root, top + ".py")) or os.path.isdir(os.path.join(root, top)):
            return FIRST_PARTY
    return THIRD_PARTY


def _header(module: cst.Module) -> List[Tuple[int, str, bool]]:
    """(index, module name, is ``from``) of the import lines before the first def or class."""
    found = []
    for index, statement in enumerate(module.body):
        if isinstance(statement, (cst.FunctionDef, cst.ClassDef)):
            break
        imported = imported_module(statement)
        if imported is not None:
            found.append((index, *imported))
    return found


def _blank_prefix(lines: Sequence[cst.EmptyLine]) -> int:
    count = 0
    for line in lines:
        if line.comment is not None:
            break
        count += 1
    return count


def _docstring_end(module: cst.Module) -> int:
    if module.body and isinstance(module.body[0], cst.SimpleStatementLine):
        small = module.body[0].body[0]
        if isinstance(small, cst.Expr) and isinstance(small.value, (cst.SimpleString, cst.ConcatenatedString)):
            return 1
    return 0


def add_import(module: cst.Module, line: str, path: Optional[str]) -> cst.Module:
    """``module`` with the import statement ``line`` added in isort's place."""
    statement = cst.parse_statement(line + module.default_newline, module.config_for_parsing)
    name, is_from = imported_module(statement)
    wanted = section(name, path)
    header = _header(module)
    body = list(module.body)
    same = [(i, n, f) for i, n, f in header if section(n, path) == wanted]
    if same:
        plain = [(i, n) for i, n, f in same if not f]
        later = [i for i, n in plain if n.lower() > name.lower()] if not is_from else []
        if is_from:
            froms = [i for i, n, f in same if f and n.lower() > name.lower()]
            index = froms[0] if froms else same[-1][0] + 1
        elif later:
            index = later[0]
        elif plain:
            index = plain[-1][0] + 1
        else:
            index = same[0][0]
        if index < len(body) and index == same[0][0]:
            first = body[index]
            statement = statement.with_changes(leading_lines=first.leading_lines)
            body[index] = first.with_changes(leading_lines=[])
        return module.with_changes(body=[*body[:index], statement, *body[index:]])
    after = [i for i, n, f in header if section(n, path) > wanted]
    if after:
        index = after[0]
        following = body[index]
        lines = list(following.leading_lines)
        blank = _blank_prefix(lines)
        statement = statement.with_changes(leading_lines=lines[:blank])
        body[index] = following.with_changes(leading_lines=[cst.EmptyLine()] + lines[blank:])
        return module.with_changes(body=[*body[:index], statement, *body[index:]])
    if header:
        index = header[-1][0] + 1
        statement = statement.with_changes(leading_lines=[cst.EmptyLine()])
    else:
        index = _docstring_end(module)
        if index == 0 and body:
            statement = statement.with_changes(leading_lines=body[0].leading_lines)
            body[0] = body[0].with_changes(leading_lines=[])
        elif index > 0:
            statement = statement.with_changes(leading_lines=[cst.EmptyLine()])
    if index < len(body) and _blank_prefix(body[index].leading_lines) == 0:
        body[index] = body[index].with_changes(leading_lines=[cst.EmptyLine(), *body[index].leading_lines])
    return module.with_changes(body=[*body[:index], statement, *body[index:]])


def add_imports(module: cst.Module, lines: Sequence[str], path: Optional[str]) -> cst.Module:
    for line in lines:
        module = add_import(module, line, path)
    return module


def _isort_key(name: str) -> Tuple[int, str]:
    """isort's default order of names in a ``from`` import: constants, classes, the rest."""
    kind = 0 if name.isupper() and len(name) > 1 else 1 if name[:1].isupper() else 2
    return kind, name.lower()


def extend_from_import(module: cst.Module, parent: str, name: str, line_length: int) -> Optional[cst.Module]:
    """``module`` with ``name`` added to its module-level ``from parent import ...`` line, in
    isort's order; None when there is no such line, or a one-line one would grow past
    ``line_length``."""
    body = list(module.body)
    for index, statement in enumerate(body):
        if not isinstance(statement, cst.SimpleStatementLine) or len(statement.body) != 1:
            continue
        small = statement.body[0]
        if (
            not isinstance(small, cst.ImportFrom) or small.relative or small.module is None
            or isinstance(small.names, cst.ImportStar) or _dotted(small.module) != parent
        ):
            continue
        names = list(small.names)
        position = len(names)
        while position > 0 and _isort_key(_dotted(names[position - 1].name)) > _isort_key(name):
            position -= 1
        if position < len(names):  # before names[position]: it takes that one's place and comma layout
            new = names[position].with_changes(name=cst.Name(name), asname=None)
            names.insert(position, new)
        else:
            last = names[-1]
            if isinstance(last.comma, cst.Comma):  # a trailing comma: one name per line
                separator = names[-2].comma if len(names) > 1 else last.comma
                names[-1] = last.with_changes(comma=separator)
                names.append(cst.ImportAlias(name=cst.Name(name), comma=last.comma))
            else:
                names[-1] = last.with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))
                names.append(cst.ImportAlias(name=cst.Name(name)))
        extended = statement.with_changes(body=[small.with_changes(names=names)])
        if small.lpar is None and len(cst.Module(body=[extended]).code.rstrip()) > line_length:
            if statement.trailing_whitespace.comment is not None:
                return None
            extended = _one_name_per_line(module, statement, parent, names)
        body[index] = extended
        return module.with_changes(body=body)
    return None


def _one_name_per_line(
    module: cst.Module, statement: cst.SimpleStatementLine, parent: str, names: List[cst.ImportAlias]
) -> cst.SimpleStatementLine:
    """``from parent import (`` with one name per line and a trailing comma, as black writes
    an import too long for one line."""
    newline, indent = module.default_newline, module.default_indent
    spelled = [cst.Module(body=[]).code_for_node(alias.with_changes(comma=cst.MaybeSentinel.DEFAULT)) for alias in names]
    text = f"from {parent} import ({newline}" + "".join(f"{indent}{name},{newline}" for name in spelled) + f"){newline}"
    return cst.parse_statement(text, module.config_for_parsing).with_changes(leading_lines=statement.leading_lines)
