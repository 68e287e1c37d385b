"""Follows values through the project: local variables, ``self`` attributes set in other
methods, module variables, simple factory functions and dataset wrappers.

Every query is bounded in depth and answers "don't know" (an empty list or None)
rather than guess: a dataset that cannot be resolved is not reported.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterator, List, Optional, Tuple

from seedlint.facts.model import (
    MODULE_CODE,
    Call,
    Const,
    Function,
    IfExp,
    Lambda,
    ModuleFacts,
    Name,
    Seq,
    Subscript,
    Value,
)
from seedlint.analysis.index import ClassRef, ExternalRef, FunctionRef, ProjectIndex, Symbol, VariableRef

MAX_DEPTH = 8

DATASET_WRAPPERS = {
    "torch.utils.data.Subset": ("dataset", 0),
    "torch.utils.data.dataset.Subset": ("dataset", 0),
    "torch.utils.data.ConcatDataset": ("datasets", 0),
    "torch.utils.data.dataset.ConcatDataset": ("datasets", 0),
    "torch.utils.data.ChainDataset": ("datasets", 0),
    "torch.utils.data.dataset.ChainDataset": ("datasets", 0),
}
RANDOM_SPLIT = {"torch.utils.data.random_split", "torch.utils.data.dataset.random_split"}
PARTIAL = {"functools.partial"}
EXTERNAL_PACKAGES = frozenset({"torch", "lightning", "pytorch_lightning", "lightning_fabric"})


@dataclass(frozen=True, eq=False)
class Instance:
    """An object of a project class, and the call that built it (when seen)."""

    cls: ClassRef
    call: Optional[Call]
    module: ModuleFacts


@dataclass(frozen=True, eq=False)
class Binding:
    """A value assigned to a name, with the module and function it was written in."""

    module: ModuleFacts
    value: Value
    scope: str


class Dataflow:
    def __init__(self, index: ProjectIndex) -> None:
        self.index = index

    # ------------------------------------------------------------------ bindings
    def function(self, module: ModuleFacts, qualname: str) -> Optional[Function]:
        return module.functions.get(qualname)

    def bindings(self, module: ModuleFacts, name: Name) -> List[Binding]:
        """The values that may flow into ``name`` where it is used."""
        if name.qualified is not None:
            symbol = self.index.resolve(name.qualified, module)
            if isinstance(symbol, VariableRef):
                code = symbol.module.module_code
                return [Binding(symbol.module, a.value, MODULE_CODE) for a in code.assigns if a.target == symbol.name]
            return []
        function = self.function(module, name.scope)
        if function is None:
            return []
        owner = self.owner_class(module, function)
        if owner is not None and function.params and name.root == function.params[0] and name.rest:
            return self.attribute_bindings(owner, name.rest)
        found = [Binding(module, a.value, function.qualname) for a in function.assigns if a.target == name.dotted]
        return found

    def owner_class(self, module: ModuleFacts, function: Function) -> Optional[ClassRef]:
        if function.class_name is None or function.class_name not in module.classes:
            return None
        if any(self._is_static(d) for d in function.decorators):
            return None
        return ClassRef(module, module.classes[function.class_name])

    @staticmethod
    def _is_static(decorator: Value) -> bool:
        return isinstance(decorator, Name) and decorator.dotted in ("staticmethod", "classmethod")

    def attribute_bindings(self, cls: ClassRef, attribute: str) -> List[Binding]:
        """Values assigned to ``self.<attribute>`` in any method of the class or its bases."""
        found: List[Binding] = []
        for item in self.index.mro(cls):
            for assign in item.cls.body_assigns:
                if assign.target == attribute:
                    found.append(Binding(item.module, assign.value, MODULE_CODE))
            for qualname in item.cls.methods.values():
                method = item.module.functions[qualname]
                if not method.params:
                    continue
                target = f"{method.params[0]}.{attribute}"
                for assign in method.assigns:
                    if assign.target == target:
                        found.append(Binding(item.module, assign.value, method.qualname))
        return found

    # ------------------------------------------------------------------ symbols
    def symbols(self, module: ModuleFacts, value: Value, depth: int = 0, load: bool = True) -> List[Symbol]:
        """What a callee expression may refer to. With ``load=False`` no further module is
        read from disk (a name into an unread project module stays unresolved)."""
        if depth > MAX_DEPTH:
            return []
        if isinstance(value, Name):
            if value.qualified is not None:
                symbol = self.index.resolve(value.qualified, module, load=load)
                if isinstance(symbol, VariableRef):
                    return [s for b in self.bindings(module, value) for s in self.symbols(b.module, b.value, depth + 1, load)]
                return [symbol] if symbol is not None else []
            return [s for b in self.bindings(module, value) for s in self.symbols(b.module, b.value, depth + 1, load)]
        if isinstance(value, Lambda):
            function = module.functions.get(value.qualname)
            return [FunctionRef(module, function)] if function is not None else []
        if isinstance(value, Call) and self.is_partial(module, value) and value.args:
            return self.symbols(module, value.args[0], depth + 1, load)
        if isinstance(value, IfExp):
            return self.symbols(module, value.body, depth + 1, load) + self.symbols(module, value.orelse, depth + 1, load)
        return []

    def refers_to(self, module: ModuleFacts, value: Value, wanted: frozenset, depth: int = 0) -> Optional[str]:
        """Which of the ``wanted`` qualified class names ``value`` refers to, if any.

        Unlike ``symbols`` this loads another module only when the name's last part is
        spelled like one of the wanted names, so asking it about every call of a module
        stays cheap.
        """
        if depth > MAX_DEPTH:
            return None
        if isinstance(value, IfExp):
            return self.refers_to(module, value.body, wanted, depth + 1) or self.refers_to(module, value.orelse, wanted, depth + 1)
        if not isinstance(value, Name):
            return None
        if value.qualified is None:
            for binding in self.bindings(module, value):
                found = self.refers_to(binding.module, binding.value, wanted, depth + 1)
                if found is not None:
                    return found
            return None
        if value.qualified in wanted:
            return value.qualified
        last = value.qualified.rsplit(".", 1)[-1]
        spelled_alike = [name for name in wanted if name.rsplit(".", 1)[-1] == last]
        if not spelled_alike:
            return None
        # Reading more modules can only reveal a re-export of a project class; library
        # classes (torch, Lightning) are matched among modules already analysed.
        load = any(name.split(".", 1)[0] not in EXTERNAL_PACKAGES for name in spelled_alike)
        symbol = self.index.resolve(value.qualified, module, load=load)
        if isinstance(symbol, ExternalRef) and symbol.qualified in wanted:
            return symbol.qualified
        if isinstance(symbol, ClassRef):
            qualified = f"{symbol.module.name}.{symbol.cls.qualname}"
            return qualified if qualified in wanted else None
        if isinstance(symbol, VariableRef):
            for binding in self.bindings(module, value):
                found = self.refers_to(binding.module, binding.value, wanted, depth + 1)
                if found is not None:
                    return found
        return None

    def subclasses_within(self, modules, classes: frozenset) -> frozenset:
        """``classes`` plus the qualified names of classes in ``modules`` derived from them."""
        found = set(classes)
        changed = True
        while changed:
            changed = False
            for module in modules:
                for cls in module.classes.values():
                    qualified = f"{module.name}.{cls.qualname}"
                    if qualified in found:
                        continue
                    if any(self.refers_to(module, base, frozenset(found)) for base in cls.bases):
                        found.add(qualified)
                        changed = True
        return frozenset(found)

    def constructions(self, module: ModuleFacts, value: Optional[Value], limit: int = MAX_DEPTH, depth: int = 0) -> Iterator[Tuple[ModuleFacts, Call, Symbol]]:
        """The calls of classes (project or library) that ``value`` may have been built by,
        through names, conditional expressions and project factory functions."""
        if value is None or depth > limit:
            return
        if isinstance(value, Name):
            for binding in self.bindings(module, value):
                yield from self.constructions(binding.module, binding.value, limit, depth + 1)
        elif isinstance(value, IfExp):
            yield from self.constructions(module, value.body, limit, depth + 1)
            yield from self.constructions(module, value.orelse, limit, depth + 1)
        elif isinstance(value, Call):
            for symbol in self.symbols(module, value.func):
                if isinstance(symbol, (ClassRef, ExternalRef)):
                    yield module, value, symbol
                elif isinstance(symbol, FunctionRef) and not symbol.function.is_lambda:
                    for returned in symbol.function.returns:
                        yield from self.constructions(symbol.module, returned, limit, depth + 1)

    def is_partial(self, module: ModuleFacts, call: Call) -> bool:
        return isinstance(call.func, Name) and call.func.qualified in PARTIAL

    def callee_names(self, module: ModuleFacts, call: Call) -> List[str]:
        """Qualified names of the library functions a call may invoke (``torch.manual_seed``).

        Library names come from imports, so this never reads another project module."""
        return [s.qualified for s in self.symbols(module, call.func, load=False) if isinstance(s, ExternalRef)]

    def const(self, module: ModuleFacts, value: Value, depth: int = 0) -> Optional[Const]:
        """The constant a value certainly holds, if it is statically known."""
        if isinstance(value, Const):
            return value
        if isinstance(value, Name) and depth < MAX_DEPTH:
            found = [self.const(b.module, b.value, depth + 1) for b in self.bindings(module, value)]
            if found and all(c is not None and c == found[0] for c in found):
                return found[0]
        return None

    # ------------------------------------------------------------------ instances
    def instances(self, module: ModuleFacts, value: Value, depth: int = 0) -> List[Instance]:
        """Objects of project classes that ``value`` may evaluate to."""
        if depth > MAX_DEPTH:
            return []
        if isinstance(value, Name):
            return [i for b in self.bindings(module, value) for i in self.instances(b.module, b.value, depth + 1)]
        if isinstance(value, IfExp):
            return self.instances(module, value.body, depth + 1) + self.instances(module, value.orelse, depth + 1)
        if isinstance(value, Seq):
            return [i for item in value.items for i in self.instances(module, item, depth + 1)]
        if isinstance(value, Subscript):
            return self._subscript_instances(module, value, depth)
        if isinstance(value, Call):
            return self._call_instances(module, value, depth)
        return []

    def _call_instances(self, module: ModuleFacts, call: Call, depth: int) -> List[Instance]:
        found: List[Instance] = []
        for symbol in self.symbols(module, call.func):
            if isinstance(symbol, ClassRef):
                found.append(Instance(symbol, call, module))
            elif isinstance(symbol, ExternalRef) and symbol.qualified in DATASET_WRAPPERS:
                keyword, position = DATASET_WRAPPERS[symbol.qualified]
                inner = call.argument(keyword, position)
                if inner is not None:
                    found.extend(self.instances(module, inner, depth + 1))
            elif isinstance(symbol, FunctionRef) and not symbol.function.is_lambda:
                for returned in symbol.function.returns:
                    found.extend(self.instances(symbol.module, returned, depth + 1))
        return found

    def _subscript_instances(self, module: ModuleFacts, value: Subscript, depth: int) -> List[Instance]:
        inner = value.value
        if isinstance(inner, Call) and any(n in RANDOM_SPLIT for n in self.callee_names(module, inner)):
            dataset = inner.argument("dataset", 0)
            return self.instances(module, dataset, depth + 1) if dataset is not None else []
        if isinstance(inner, Name):
            found = []
            for binding in self.bindings(module, inner):
                found.extend(self.instances(binding.module, Subscript(binding.value, value.index), depth + 1))
            return found
        if isinstance(inner, Seq):
            return self.instances(module, inner, depth + 1)
        return []

    # ------------------------------------------------------------------ callables held by objects
    def referenced_callables(self, module: ModuleFacts, value: Value, depth: int = 0) -> Iterator[Symbol]:
        """Project classes instantiated and functions named anywhere inside an expression,
        e.g. every transform in ``Compose([RandomCrop(224), flip])``."""
        if depth > MAX_DEPTH:
            return
        if isinstance(value, Call):
            for symbol in self.symbols(module, value.func):
                if isinstance(symbol, (ClassRef, FunctionRef)):
                    yield symbol
            for item in (*value.args, *(v for _, v in value.kwargs)):
                yield from self.referenced_callables(module, item, depth + 1)
        elif isinstance(value, Seq):
            for item in value.items:
                yield from self.referenced_callables(module, item, depth + 1)
        elif isinstance(value, IfExp):
            yield from self.referenced_callables(module, value.body, depth + 1)
            yield from self.referenced_callables(module, value.orelse, depth + 1)
        elif isinstance(value, (Name, Lambda)):
            for symbol in self.symbols(module, value, depth + 1):
                if isinstance(symbol, FunctionRef):
                    yield symbol
            if isinstance(value, Name):
                for binding in self.bindings(module, value):
                    yield from self.referenced_callables(binding.module, binding.value, depth + 1)

    def construction_argument(self, instance: Instance, parameter: str) -> Optional[Value]:
        """The argument a construction call passed for an ``__init__`` parameter."""
        if instance.call is None:
            return None
        init = self.index.method(instance.cls, "__init__")
        if init is None:
            return instance.call.kwarg(parameter)
        params = list(init.function.params)
        position = params.index(parameter) - 1 if parameter in params else None
        return instance.call.argument(parameter, position)


def call_arguments(call: Call) -> Iterator[Tuple[Optional[str], Value]]:
    for value in call.args:
        yield None, value
    yield from call.kwargs
