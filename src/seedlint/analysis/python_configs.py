"""Python configuration files as OpenMMLab's ``Config.fromfile`` reads them (mmcv 1.x and
mmengine): the file's module-level names, merged onto the files its ``_base_`` names.

A base is a path relative to the file (a string or a list of them); bases are read in order,
and the file's own keys are merged onto them key by key, recursively, a mapping with
``_delete_=True`` replacing what it merges onto. ``{{_base_.a.b}}`` reads the merged
bases. Only values written as literals are read: numbers, strings, ``True``/``False``/
``None``, lists, tuples, dict displays and ``dict(...)`` calls, and names bound earlier in
the same file (``pipeline=train_pipeline``); anything else (arithmetic, calls, imports, a
base in another package, ``mmdet::...``) is unknown. Each key keeps its file and line.
"""

from __future__ import annotations

import os
from typing import Dict, List, Optional

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider

from seedlint.analysis import inputs
from seedlint.analysis.config_files import Located, Tree

CONFIG_FROMFILE = frozenset({
    "mmcv.Config.fromfile", "mmcv.utils.Config.fromfile", "mmcv.utils.config.Config.fromfile",
    "mmengine.Config.fromfile", "mmengine.config.Config.fromfile", "mmengine.config.config.Config.fromfile",
})
BASE_KEY = "_base_"
DELETE_KEY = "_delete_"
MAX_CONFIGS = 24
"""Configuration files a path given at run time may be: a project with more (a model zoo of
hundreds) leaves such a path unknown rather than reading every one."""
MAX_BASES = 64
"""Base files one configuration may read (with their own bases): a guard against cycles."""



class Opaque:
    """A value the file computes in a way this reader does not follow."""


class BaseReference:
    """``{{_base_.a.b}}``: what the merged bases hold at ``a.b``."""

    def __init__(self, dotted: str) -> None:
        self.dotted = dotted


def read_config(path: str, files: Optional[Dict[str, Optional[Located]]] = None) -> Optional[Tree]:
    """The configuration ``Config.fromfile(path)`` gives, or None when the file does not
    exist or does not parse. ``files`` keeps each file's names across calls (bases are
    shared by many configurations)."""
    return _Reader(files if files is not None else {}).read(os.path.abspath(path))


class _Reader:
    def __init__(self, files: Dict[str, Optional[Located]]) -> None:
        self.read_files = 0
        self.files = files

    def read(self, path: str, depth: int = 0) -> Optional[Tree]:
        if self.read_files >= MAX_BASES or not os.path.isfile(path):
            return None
        self.read_files += 1
        if path not in self.files:
            self.files[path] = _module_names(path)
        own = self.files[path]
        if own is None:
            return None
        bases = own.get(BASE_KEY)
        base_paths = [bases] if isinstance(bases, str) else bases if isinstance(bases, list) else []
        merged: Tree = Located()
        for base in base_paths:
            if not isinstance(base, str) or "::" in base:
                continue
            loaded = self.read(os.path.normpath(os.path.join(os.path.dirname(path), base)), depth + 1)
            if isinstance(loaded, dict):
                merged = _merge_deleting(merged, loaded)
        own = _resolve_base_references(own, merged)
        kept = Located((k, v) for k, v in own.items() if k != BASE_KEY)
        kept.places.update((k, p) for k, p in own.places.items() if k != BASE_KEY)
        return _merge_deleting(merged, kept)


def _merge_deleting(base: Tree, over: Tree) -> Tree:
    """``_merge``, where a mapping with ``_delete_=True`` replaces the one under it."""
    if isinstance(over, dict) and over.get(DELETE_KEY) is True:
        replaced = Located((k, v) for k, v in over.items() if k != DELETE_KEY)
        replaced.places.update(getattr(over, "places", {}))
        return replaced
    if isinstance(base, dict) and isinstance(over, dict):
        merged = Located(base)
        merged.places.update(getattr(base, "places", {}))
        for key, value in over.items():
            merged[key] = _merge_deleting(merged[key], value) if key in merged else _without_delete(value)
            place = getattr(over, "places", {}).get(key)
            if place is not None:
                merged.places[key] = place
        return merged
    return _without_delete(over)


def _without_delete(tree: Tree) -> Tree:
    if isinstance(tree, dict) and DELETE_KEY in tree:
        kept = Located((k, v) for k, v in tree.items() if k != DELETE_KEY)
        kept.places.update(getattr(tree, "places", {}))
        return kept
    return tree


def _resolve_base_references(tree: Tree, bases: Tree) -> Tree:
    """``{{_base_.a.b}}`` replaced by what the merged bases hold there."""
    if isinstance(tree, BaseReference):
        node: Tree = bases
        for part in tree.dotted.split("."):
            if not isinstance(node, dict) or part not in node:
                return Opaque()
            node = node[part]
        return node
    if isinstance(tree, dict):
        resolved = Located((k, _resolve_base_references(v, bases)) for k, v in tree.items())
        resolved.places.update(getattr(tree, "places", {}))
        return resolved
    if isinstance(tree, list):
        return [_resolve_base_references(v, bases) for v in tree]
    return tree


def _module_names(path: str) -> Optional[Located]:
    """The module-level names a configuration file binds, in order, each with its line."""
    try:
        inputs.read(path)
        with open(path, "rb") as handle:
            module = cst.parse_module(handle.read())
        wrapper = MetadataWrapper(module, unsafe_skip_copy=True)
        positions = wrapper.resolve(PositionProvider)
    except Exception:  # a file that does not parse declares nothing
        return None
    names = Located()
    reader = _Literals(names, positions, path)
    for statement in wrapper.module.body:
        if not isinstance(statement, cst.SimpleStatementLine):
            continue
        for small in statement.body:
            if isinstance(small, cst.Assign) and len(small.targets) == 1 and isinstance(small.targets[0].target, cst.Name):
                name = small.targets[0].target.value
                if name.startswith("__") and name != BASE_KEY:
                    continue
                names[name] = reader.value(small.value)
                names.places[name] = (path, positions[small].start.line)
    return names


class _Literals:
    def __init__(self, names: Dict[str, Tree], positions, path: str) -> None:
        self.names = names
        self.positions = positions
        self.path = path

    def value(self, node: cst.BaseExpression) -> Tree:
        if isinstance(node, (cst.Integer, cst.Float, cst.SimpleString)):
            return node.evaluated_value
        if isinstance(node, cst.ConcatenatedString):
            value = node.evaluated_value
            return value if isinstance(value, str) else Opaque()
        if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Minus):
            inner = self.value(node.expression)
            return -inner if isinstance(inner, (int, float)) and not isinstance(inner, bool) else Opaque()
        if isinstance(node, cst.Name):
            constants = {"True": True, "False": False, "None": None}
            if node.value in constants:
                return constants[node.value]
            return self.names[node.value] if node.value in self.names else Opaque()
        if isinstance(node, (cst.List, cst.Tuple)):
            if any(isinstance(e, cst.StarredElement) for e in node.elements):
                return Opaque()
            return [self.value(e.value) for e in node.elements]
        if isinstance(node, cst.Dict):
            return self._mapping((e.key, e.value) for e in node.elements if isinstance(e, cst.DictElement)) \
                if all(isinstance(e, cst.DictElement) for e in node.elements) else Opaque()
        if isinstance(node, cst.Call) and isinstance(node.func, cst.Name) and node.func.value == "dict":
            return self._dict_call(node)
        reference = _base_reference(node)
        if reference is not None:
            return BaseReference(reference)
        return Opaque()

    def _dict_call(self, node: cst.Call) -> Tree:
        """``dict(a=1, **norm)``: keywords, and the items of mappings spread in, in order."""
        mapping = Located()
        for argument in node.args:
            if argument.keyword is not None:
                mapping[argument.keyword.value] = self.value(argument.value)
                mapping.places[argument.keyword.value] = (self.path, self.positions[argument.keyword].start.line)
                continue
            spread = self.value(argument.value) if argument.star == "**" else Opaque()
            if not isinstance(spread, dict):
                return Opaque()
            mapping.update(spread)
            mapping.places.update(getattr(spread, "places", {}))
        return mapping

    def _mapping(self, pairs) -> Tree:
        mapping = Located()
        for key_node, value_node in pairs:
            key = key_node.value if isinstance(key_node, cst.Name) else self.value(key_node)
            if not isinstance(key, (str, int, float, bool)) and key is not None:
                return Opaque()
            mapping[key] = self.value(value_node)
            mapping.places[key] = (self.path, self.positions[key_node].start.line)
        return mapping


def _base_reference(node: cst.BaseExpression) -> Optional[str]:
    """``a.b`` in ``{{_base_.a.b}}``, which the loader substitutes before running the file."""
    if not (isinstance(node, cst.Set) and len(node.elements) == 1):
        return None
    inner = node.elements[0].value
    if not (isinstance(inner, cst.Set) and len(inner.elements) == 1):
        return None
    parts = []
    chain = inner.elements[0].value
    while isinstance(chain, cst.Attribute):
        parts.append(chain.attr.value)
        chain = chain.value
    if not (isinstance(chain, cst.Name) and chain.value == BASE_KEY and parts):
        return None
    return ".".join(reversed(parts))


def config_candidates(root: Optional[str], limit: int) -> List[str]:
    """The project's Python configuration files, for a path given on the command line: the
    ``.py`` files under folders named ``configs`` (or ``config``), bases excluded."""
    if root is None:
        return []
    found: List[str] = []
    for directory, folders, files in os.walk(root):
        inputs.read(directory)
        folders[:] = sorted(f for f in folders if not f.startswith(".") and f not in _SKIPPED and f != BASE_KEY)
        parts = os.path.relpath(directory, root).split(os.sep)
        if not any(part in ("configs", "config") for part in parts):
            continue
        for name in sorted(files):
            if name.endswith(".py") and name != "__init__.py":
                found.append(os.path.join(directory, name))
                if len(found) > limit:
                    return found
    return found


_SKIPPED = frozenset({"node_modules", "__pycache__", "site-packages", "build", "dist", "venv", ".venv", "env"})
