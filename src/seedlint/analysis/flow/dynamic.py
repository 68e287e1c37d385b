"""Dynamic look-ups: ``type(name, bases, namespace)``, ``getattr(module, name)``,
``eval(name)``, ``globals()[name]``.
"""

from __future__ import annotations

import os

import re
from typing import Dict, List, Optional, Set

import libcst as cst

from seedlint.analysis import library
from seedlint.analysis.index import ClassRef
from seedlint.analysis.objects import (
    UNKNOWN,
    UNKNOWN_SET,
    ClassObj,
    Constant,
    Frame,
    FunctionObj,
    Instance,
    ModuleObj,
    Values,
)
from seedlint.facts.model import (
    BinOp,
    Call,
    Class,
    Const,
    DictDisplay,
    Lambda,
    ModuleFacts,
    Name,
    Seq,
    Span,
    Unknown,
    UNKNOWN as UNKNOWN_VALUE,
    Value,
)
from seedlint.analysis.flow.shared import (
    union,
)


class DynamicMixin:
    def _runtime_class(self, call: Call, frame: Frame) -> Values:
        """``type(name, (Base, ...), {"method": function, ...})``: a class made at run time."""
        name = self.constant(call.args[0], frame)
        bases, namespace = call.args[1], call.args[2]
        if not isinstance(bases, Seq) or not isinstance(namespace, DictDisplay):
            return UNKNOWN_SET
        module = frame.module
        methods = {}
        for key, value in zip(namespace.keys, namespace.values):
            if not (isinstance(key, Const) and isinstance(key.value, str)):
                continue
            if isinstance(value, Lambda) and value.qualname in module.functions:
                methods[key.value] = value.qualname
            elif isinstance(value, Name):
                for obj in self.eval(value, frame):
                    if isinstance(obj, FunctionObj) and obj.function.module is module:
                        methods[key.value] = obj.function.function.qualname
        label = name.value if name is not None and isinstance(name.value, str) else "<type>"
        qualname = f"{label}<type:{call.span.line}:{call.span.col}>"
        cls = Class(qualname=qualname, name=label, span=call.span, bases=bases.items, methods=methods)
        return frozenset({ClassObj(ClassRef(module, cls))})

    def _getattr(self, call: Call, frame: Frame) -> Values:
        holders = self.eval(call.args[0], frame)
        name = self.constant(call.args[1], frame)
        found: List[Values] = []
        names = self.eval(call.args[1], frame) if name is None else frozenset({name})
        if names and all(isinstance(n, Constant) and isinstance(n.value, str) for n in names):
            found += [self.attribute(holders, n.value) for n in names]
        else:
            pattern = self._name_pattern(call.args[1], frame)
            for holder in holders:
                if isinstance(holder, ModuleObj):
                    found.append(self._namespace(holder.module, own_only=True))
                elif isinstance(holder, Instance) and pattern is not None:
                    matching = sorted(n for n in self.instance_attribute_names(holder) if pattern.fullmatch(n))
                    found += [self.attribute_of(holder, n) for n in matching] or [UNKNOWN_SET]
                else:
                    found.append(UNKNOWN_SET)
        if len(call.args) > 2:
            found.append(self.eval(call.args[2], frame))
        return union(found)

    def _name_pattern(self, value: Value, frame: Frame) -> Optional["re.Pattern"]:
        """``f"{split}_batch_sampler"`` as the names it may spell (``.*_batch_sampler``); None
        when no piece of it is known text."""
        pieces = self._string_parts(value, frame)
        if pieces is None or not any(pieces):
            return None
        return re.compile("".join(".+" if piece is None else re.escape(piece) for piece in pieces))

    def instance_attribute_names(self, instance: Instance, with_class_body: bool = True) -> Set[str]:
        """The attributes an object of the class gets: ``self.x = ...`` in its methods and
        its bases', those a library base's ``__init__`` stores (``library.BASE_ATTRIBUTES``:
        a ``VisionDataset``'s ``target_transform``), and (``with_class_body``) the class
        bodies' assignments."""
        names: Set[str] = set()
        for base in self.index.external_bases(instance.cls):
            names.update(library.BASE_ATTRIBUTES.get(base, ()))
        for item in self.index.mro(instance.cls):
            for qualname in item.cls.methods.values():
                function = item.module.functions[qualname]
                if function.params:
                    prefix = function.params[0] + "."
                    names.update(a.target[len(prefix):] for a in function.assigns if a.target.startswith(prefix))
            if with_class_body:
                names.update(a.target for a in item.cls.body_assigns)
        return {n for n in names if n.isidentifier()}

    def _eval_lookup(self, expression: Value, frame: Frame, span=None) -> Values:
        """``eval(name)`` with a name from config: what the module can name, narrowed to a
        module when the string starts with one (``eval("datasets." + cfg.DATASET)``). A
        string that is code (``"Compose([Flip(), Noise(0.1)])"``, from a config file) is
        evaluated as that expression in the module's names."""
        if span is not None:
            written = [v for v in self.eval(expression, frame) if isinstance(v, Constant) and isinstance(v.value, str)]
            codes = [code_value(v.value, frame.module, span, self._code_values) for v in written]
            if written and all(code is not None for code in codes):
                return union(self.eval(code, frame) for code in codes)
        prefix = expression.left if isinstance(expression, BinOp) and expression.op == "Add" else expression
        if prefix is expression:
            names = self.eval(expression, frame)
            dotted_names = [v.value for v in names if isinstance(v, Constant) and isinstance(v.value, str) and v.value.replace(".", "").isidentifier()]
            if len(names) > 1 and len(dotted_names) == len(names):
                return union(self._dotted_member(frame.module, name) for name in dotted_names)  # one name per configuration file
        constant = self.constant(prefix, frame)
        if constant is not None and isinstance(constant.value, str):
            dotted = constant.value.rstrip(".")
            if dotted.replace(".", "").isidentifier():
                head, *rest = dotted.split(".")
                values = self.module_member(frame.module, head)
                for part in rest:
                    values = self.attribute(values, part)
                if prefix is expression:
                    return values
                return union(self._namespace(v.module) for v in values if isinstance(v, ModuleObj)) or UNKNOWN_SET
        return self._namespace(frame.module)

    def _dotted_member(self, module: ModuleFacts, dotted: str) -> Values:
        """What ``eval("pkg.Name")`` names in the module."""
        head, *rest = dotted.split(".")
        values = self.module_member(module, head)
        for part in rest:
            values = self.attribute(values, part)
        return values

    def _namespace_item(self, module: ModuleFacts, key: Optional[Constant]) -> Values:
        """``globals()[name]``: the module-level name, or any class or function when the
        name is known only at run time."""
        if key is not None and isinstance(key.value, str):
            return self.module_member(module, key.value)
        return self._namespace(module)

    def _namespace(self, module: ModuleFacts, own_only: bool = False) -> Values:
        """Every project class and function a module can name: ``eval(cfg.model)``,
        ``globals()[name]``, ``getattr(module, name)``."""
        found: List[Values] = [frozenset({UNKNOWN})]
        for name, kind in module.toplevel.items():
            if kind in ("class", "def"):
                found.append(self.module_member(module, name))
        package = os.path.basename(module.path) == "__init__.py" and module.name
        for name, target in module.imports.items():
            # A package's own modules are its namespace (``from .lane import LaneDataset``).
            if own_only and not (package and target.startswith(module.name + ".")):
                continue
            values = self.module_member(module, name)
            found.append(frozenset(v for v in values if isinstance(v, (ClassObj, FunctionObj))))
        label = f"one of the classes a name looked up in `{module.name or module.path}` at run time may pick"
        return frozenset(ClassObj(v.cls, label) if isinstance(v, ClassObj) else v for v in union(found))


def code_value(text: str, module: ModuleFacts, span: Span, memo: Dict[tuple, Optional[Value]]) -> Optional[Value]:
    """The expression a string holds, as facts read in ``module`` (its imports, its own
    classes and functions, builtins), spelled at ``span``; None when the string is a plain
    name (looked up as such) or is not an expression of calls, names and literals."""
    key = (id(module), text, span)
    if key not in memo:
        memo[key] = _code_value(text, module, span)
    return memo[key]


def _code_value(text: str, module: ModuleFacts, span: Span) -> Optional[Value]:
    stripped = text.strip()
    if not stripped or stripped.replace(".", "").isidentifier():
        return None
    try:
        node = cst.parse_expression(stripped)
    except Exception:  # not code: a name or a sentence
        return None
    converted = _CodeReader(module, span).value(node)
    return None if isinstance(converted, Unknown) else converted


class _CodeReader:
    def __init__(self, module: ModuleFacts, span: Span) -> None:
        self.module = module
        self.span = span

    def value(self, node: cst.BaseExpression) -> Value:
        if isinstance(node, (cst.Integer, cst.Float, cst.SimpleString)):
            return Const(node.evaluated_value)
        if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Minus):
            inner = self.value(node.expression)
            return Const(-inner.value) if isinstance(inner, Const) and isinstance(inner.value, (int, float)) else UNKNOWN_VALUE
        if isinstance(node, (cst.Name, cst.Attribute)):
            return self._name(node)
        if isinstance(node, (cst.List, cst.Tuple)):
            if any(isinstance(e, cst.StarredElement) for e in node.elements):
                return UNKNOWN_VALUE
            return Seq(tuple(self.value(e.value) for e in node.elements))
        if isinstance(node, cst.Call):
            if any(a.star for a in node.args):
                return UNKNOWN_VALUE
            args = tuple(self.value(a.value) for a in node.args if a.keyword is None)
            kwargs = tuple((a.keyword.value, self.value(a.value)) for a in node.args if a.keyword is not None)
            return Call(self.value(node.func), args, kwargs, self.span)
        return UNKNOWN_VALUE

    def _name(self, node: cst.BaseExpression) -> Value:
        parts = []
        while isinstance(node, cst.Attribute):
            parts.append(node.attr.value)
            node = node.value
        if not isinstance(node, cst.Name):
            return UNKNOWN_VALUE
        root = node.value
        rest = "".join("." + part for part in reversed(parts))
        if root in ("True", "False", "None") and not rest:
            return Const({"True": True, "False": False, "None": None}[root])
        if root in self.module.imports:
            qualified = self.module.imports[root] + rest
        elif root in self.module.toplevel:
            qualified = f"{self.module.name}.{root}{rest}" if self.module.name else None
        elif root in _BUILTINS:
            qualified = f"builtins.{root}{rest}"
        else:
            return UNKNOWN_VALUE
        if qualified is None:
            return UNKNOWN_VALUE
        return Name(root + rest, self.span, qualified, "")


_BUILTINS = frozenset({"dict", "list", "tuple", "range", "float", "int", "str", "len", "min", "max", "abs", "round"})
