"""Dynamic look-ups: ``type(name, bases, namespace)``, ``getattr(module, name)``,
``eval(name)``, ``globals()[name]``.
"""

from __future__ import annotations

from typing import List, Optional

from seedlint.analysis.index import ClassRef
from seedlint.analysis.objects import (
    UNKNOWN,
    UNKNOWN_SET,
    ClassObj,
    Constant,
    Frame,
    FunctionObj,
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
        if name is not None and isinstance(name.value, str):
            found.append(self.attribute(holders, name.value))
        else:
            for holder in holders:
                if isinstance(holder, ModuleObj):
                    found.append(self._namespace(holder.module, own_only=True))
                else:
                    found.append(UNKNOWN_SET)
        if len(call.args) > 2:
            found.append(self.eval(call.args[2], frame))
        return union(found)

    def _eval_lookup(self, expression: Value, frame: Frame) -> Values:
        """``eval(name)`` with a name from config: what the module can name, narrowed to a
        module when the string starts with one (``eval("datasets." + cfg.DATASET)``)."""
        prefix = expression.left if isinstance(expression, BinOp) and expression.op == "Add" else expression
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
        if not own_only:
            for name in module.imports:
                values = self.module_member(module, name)
                found.append(frozenset(v for v in values if isinstance(v, (ClassObj, FunctionObj))))
        label = f"one of the classes a name looked up in `{module.name or module.path}` at run time may pick"
        return frozenset(ClassObj(v.cls, label) if isinstance(v, ClassObj) else v for v in union(found))
