"""Worker code: the functions a DataLoader worker process runs for a dataset.

That is ``__getitem__``, ``__getitems__``, ``__iter__`` and ``__next__`` of the dataset
class and its bases, and everything they call inside the project: methods on ``self``,
module functions (also imported from other modules), and callables the dataset holds,
such as transform objects passed to its constructor.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Dict, Iterator, List, Optional, Tuple

from seedlint.dataflow import Dataflow, Instance
from seedlint.facts.model import Call, Name, Value
from seedlint.analysis.index import ClassRef, FunctionRef

ENTRY_METHODS = ("__getitem__", "__getitems__", "__iter__", "__next__")
CALLABLE_METHODS = ("__call__", "forward")
MAX_FUNCTIONS = 200


@dataclass(frozen=True, eq=False)
class WorkerFunction:
    function: FunctionRef
    owner: Optional[ClassRef]
    """The class whose ``self`` this function sees, when it is a method."""


def worker_code(flow: Dataflow, instance: Instance) -> List[WorkerFunction]:
    """Every project function a worker may run for this dataset object, entry points first."""
    reached: Dict[Tuple[str, str], WorkerFunction] = {}
    queue: List[WorkerFunction] = []

    def add(function: Optional[FunctionRef], owner: Optional[ClassRef]) -> None:
        if function is None or function.key in reached or len(reached) >= MAX_FUNCTIONS:
            return
        item = WorkerFunction(function, owner)
        reached[function.key] = item
        queue.append(item)

    for name in ENTRY_METHODS:
        add(flow.index.method(instance.cls, name), instance.cls)
    held = None
    while queue:
        current = queue.pop(0)
        unresolved = False
        for call in current.function.function.calls:
            targets = list(_call_targets(flow, current, call))
            if not targets:
                unresolved = unresolved or _may_call_held_object(current, call)
            for function, owner in targets:
                add(function, owner)
        if unresolved and current.owner is instance.cls:
            if held is None:
                held = list(_held_callables(flow, instance))
            for function, owner in held:
                add(function, owner)
    return list(reached.values())


def _self_name(item: WorkerFunction) -> Optional[str]:
    params = item.function.function.params
    return params[0] if item.owner is not None and params else None


def _call_targets(flow: Dataflow, current: WorkerFunction, call: Call) -> Iterator[Tuple[FunctionRef, Optional[ClassRef]]]:
    func = call.func
    module = current.function.module
    if isinstance(func, Call):
        for symbol in flow.symbols(module, func.func):
            if isinstance(symbol, ClassRef):
                yield from _callable_methods(flow, symbol)
        return
    if not isinstance(func, Name):
        return
    self_name = _self_name(current)
    if self_name is not None and func.qualified is None and func.root == self_name and func.rest:
        yield from _self_call(flow, current.owner, func.rest)
        return
    for symbol in flow.symbols(module, func):
        if isinstance(symbol, FunctionRef):
            yield symbol, flow.owner_class(symbol.module, symbol.function)


def _self_call(flow: Dataflow, owner: ClassRef, path: str) -> Iterator[Tuple[FunctionRef, Optional[ClassRef]]]:
    attribute, _, method = path.rpartition(".")
    if not attribute:
        found = flow.index.method(owner, method)
        if found is not None:
            yield found, owner
        return
    for binding in flow.attribute_bindings(owner, attribute):
        for instance in flow.instances(binding.module, binding.value):
            found = flow.index.method(instance.cls, method)
            if found is not None:
                yield found, instance.cls


def _may_call_held_object(current: WorkerFunction, call: Call) -> bool:
    """A call through ``self.<attribute>`` or a local name may reach a held transform."""
    func = call.func
    return isinstance(func, Name) and func.qualified is None


def _callable_methods(flow: Dataflow, cls: ClassRef) -> Iterator[Tuple[FunctionRef, ClassRef]]:
    for name in CALLABLE_METHODS:
        found = flow.index.method(cls, name)
        if found is not None:
            yield found, cls


def _held_callables(flow: Dataflow, instance: Instance) -> Iterator[Tuple[FunctionRef, Optional[ClassRef]]]:
    """Callables stored on the dataset: built in its methods or passed to its constructor."""
    values: List[Tuple[object, Value]] = []
    if instance.call is not None:
        values.extend((instance.module, v) for v in (*instance.call.args, *(v for _, v in instance.call.kwargs)))
    init = flow.index.method(instance.cls, "__init__")
    if init is not None:
        values.extend((init.module, v) for _, v in init.function.defaults)
    for item in flow.index.mro(instance.cls):
        for qualname in item.cls.methods.values():
            method = item.module.functions[qualname]
            values.extend((item.module, a.value) for a in method.assigns if isinstance(a.value, Call))
    for module, value in values:
        for symbol in flow.referenced_callables(module, value):
            if isinstance(symbol, ClassRef):
                yield from _callable_methods(flow, symbol)
            elif isinstance(symbol, FunctionRef):
                yield symbol, flow.owner_class(symbol.module, symbol.function)
