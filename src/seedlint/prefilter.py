"""The second, syntactic prefilter: does a file *use* a trigger, or only mention it?

A file that passed the byte-level test (it contains ``DataLoader``, ``Trainer``...) is
read with the standard library's ``ast``, which costs a small fraction of a libcst parse.
It is kept when a trigger is part of a name the code calls, passes as a keyword, derives a
class from, iterates over (``for batch in train_loader``) or reads as a value
(``loader = DataLoader if weighted else InfiniteDataLoader``), or, for an upper-case
trigger such as an environment variable, appears in a string. Files that only import a
name, use it in annotations or ``isinstance`` tests, or mention it in comments and
docstrings are not parsed with libcst, unless another module's analysis needs them.
"""

from __future__ import annotations

import ast
import warnings
from typing import Iterable, Iterator, Optional, Set


def _last_name(node: ast.AST) -> Optional[str]:
    if isinstance(node, ast.Attribute):
        return node.attr
    if isinstance(node, ast.Name):
        return node.id
    return None


def _names_in(node: ast.AST) -> Iterator[str]:
    for child in ast.walk(node):
        name = _last_name(child)
        if name is not None:
            yield name


def _type_tests_and_annotations(tree: ast.AST) -> Set[int]:
    """ids of the expressions that only name a type: annotations and the second argument
    of ``isinstance``/``issubclass``."""
    skipped: Set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.arg) and node.annotation is not None:
            skipped.add(id(node.annotation))
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.returns is not None:
            skipped.add(id(node.returns))
        elif isinstance(node, ast.AnnAssign):
            skipped.add(id(node.annotation))
        elif isinstance(node, ast.Call) and _last_name(node.func) in ("isinstance", "issubclass") and len(node.args) == 2:
            skipped.add(id(node.args[1]))
    return skipped


def _values(tree: ast.AST) -> Iterator[str]:
    """Names read as values anywhere (``loader = DataLoader if c else Infinite``,
    ``build(DataLoader)``), outside annotations and type tests."""
    skipped = _type_tests_and_annotations(tree)
    stack = [tree]
    while stack:
        node = stack.pop()
        if id(node) in skipped:
            continue
        if isinstance(node, (ast.Name, ast.Attribute)) and isinstance(node.ctx, ast.Load):
            name = _last_name(node)
            if name is not None:
                yield name
        stack.extend(ast.iter_child_nodes(node))


def used_names(tree: ast.AST) -> Set[str]:
    """Names called, passed as keywords, used as bases, iterated over, bound by a ``for``
    statement or read as values; import aliases count under both spellings."""
    aliases = {}
    used: Set[str] = set(_values(tree))
    for node in ast.walk(tree):
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            for alias in node.names:
                if alias.asname:
                    aliases[alias.asname] = alias.name.rsplit(".", 1)[-1]
        elif isinstance(node, ast.Call):
            name = _last_name(node.func)
            if name is not None:
                used.add(name)
            used.update(k.arg for k in node.keywords if k.arg)
        elif isinstance(node, ast.ClassDef):
            used.update(name for base in node.bases for name in [_last_name(base)] if name)
        elif isinstance(node, (ast.For, ast.AsyncFor)):
            used.update(_names_in(node.iter))
            used.update(_names_in(node.target))  # ``for epoch in ...``: an epoch loop
        elif isinstance(node, ast.comprehension):
            used.update(_names_in(node.iter))
    return used | {aliases[name] for name in used if name in aliases}


def _strings(tree: ast.AST) -> Iterator[str]:
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            yield node.value


def uses_any(text: str, tokens: Iterable[str], tree: Optional[ast.AST] = None) -> bool:
    """True when the module uses a trigger, or cannot be read by ``ast`` (libcst decides).
    ``tree`` is the module's stdlib syntax tree when the caller already has it."""
    if tree is None:
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                tree = ast.parse(text)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            return True
    tokens = tuple(tokens)
    used = used_names(tree)
    if any(token in name for name in used for token in tokens):
        return True
    constants = [t for t in tokens if t.isupper()]
    return bool(constants) and any(token in string for string in _strings(tree) for token in constants)
