"""Attributes that constructing an object reads on one of its arguments: what
``Cls(x, ...)`` looks up on ``x`` while ``__init__`` runs. The argument is followed through
local names, ``self.<attr> = x``, calls of the object's own methods (the overrides of the
class being built), and ``super().__init__(...)``.

Only reads on every path count: code under an ``if`` (but for the validations that raise,
``if batch_size <= 0: raise ValueError(...)``, which the original construction passed),
after an early ``return``, in a loop body, on one side of ``and``/``or`` or of a conditional
expression, in a lambda or in a comprehension's element is left out (a comprehension's first
iterable is read), and so is a whole function that has an ``except`` block (its ``try`` may
catch the error).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import FrozenSet, Iterator, List, Optional, Set, Tuple

from seedlint.analysis.flow.shared import _inside
from seedlint.analysis.index import ClassRef, FunctionRef
from seedlint.facts.model import (
    EXCEPT,
    Attr,
    BinOp,
    BoolOp,
    Call,
    Compare,
    Comprehension,
    DictDisplay,
    Each,
    Function,
    ModuleFacts,
    Name,
    Not,
    Seq,
    Span,
    Subscript,
    Value,
)

MAX_DEPTH = 8
"""Method calls followed from ``__init__``: a guard against pathological recursion."""


@dataclass(frozen=True)
class AttributeRead:
    attribute: str
    module: ModuleFacts
    span: Span
    function: str
    """The qualified name of the function that reads it."""


def attributes_read(index, cls: ClassRef, param: str) -> List[AttributeRead]:
    """Attributes read on the argument bound to ``__init__``'s parameter ``param`` while an
    object of ``cls`` is constructed, in the order construction reads them."""
    init = index.method(cls, "__init__")
    if init is None:
        return []
    found: List[AttributeRead] = []
    _walk(index, cls, init, frozenset({param}), frozenset(), 0, set(), found)
    return found


def _walk(
    index, cls: ClassRef, ref: FunctionRef, names: FrozenSet[str], held: FrozenSet[str], depth: int,
    seen: Set[Tuple], found: List[AttributeRead],
) -> FrozenSet[str]:
    """Reads in one function; ``names`` are its locals that hold the argument, ``held`` the
    attributes of ``self`` that hold it. Returns ``held`` as the function leaves it."""
    key = (ref.key, names, held)
    if key in seen or depth > MAX_DEPTH:
        return held
    seen.add(key)
    function = ref.function
    if _has_error_path(function):
        return held
    me = function.params[0] if function.params and function.class_name else None
    loops = [loop.span for loop in function.loops]
    validations = _validations(function)
    steps = [(a.span, a) for a in function.assigns if not _in_any(loops, a.span)]
    steps += [(c.span, c) for c in function.calls if not _in_any(loops, c.span)]
    steps.sort(key=lambda step: (step[0].line, step[0].col))
    names = set(names)
    held_now = set(held)
    for _, step in steps:
        current = _holders(names, held_now, me)
        if not _always_runs(step.guards, validations, current):
            continue
        values = [step.value] if not isinstance(step, Call) else [step]
        for value in values:
            for name in _names_read(value):
                attribute = _attribute_on(name, current)
                if attribute is not None and not attribute.startswith("__"):
                    found.append(AttributeRead(attribute, ref.module, name.span, function.qualname))
        if isinstance(step, Call):
            callee = _callee(index, cls, ref, step, me)
            if callee is not None:
                passed = _passed(callee.function, step, current)
                held_now = set(_walk(index, cls, callee, frozenset(passed), frozenset(held_now), depth + 1, seen, found))
        elif isinstance(step.value, Name) and step.value.qualified is None and step.value.dotted in current:
            if me and step.target.startswith(f"{me}.") and step.target.count(".") == 1:
                held_now.add(step.target.split(".", 1)[1])
            elif "." not in step.target:
                names.add(step.target)
    return frozenset(held_now)


def _holders(names: Set[str], held: Set[str], me: Optional[str]) -> Set[str]:
    return set(names) | ({f"{me}.{attr}" for attr in held} if me else set())


def _attribute_on(name: Name, holders: Set[str]) -> Optional[str]:
    if name.qualified is not None:
        return None
    for holder in holders:
        if name.dotted.startswith(holder + "."):
            return name.dotted[len(holder) + 1:].split(".", 1)[0]
    return None


def _callee(index, cls: ClassRef, ref: FunctionRef, call: Call, me: Optional[str]) -> Optional[FunctionRef]:
    """The method of the object under construction a call runs: ``self.m(...)`` (as the
    concrete class resolves it) or ``super().__init__(...)``."""
    func = call.func
    if me and isinstance(func, Name) and func.qualified is None and func.dotted.count(".") == 1 and func.root == me:
        return index.method(cls, func.dotted.split(".", 1)[1])
    if (
        isinstance(func, Attr) and func.attr == "__init__" and isinstance(func.value, Call)
        and isinstance(func.value.func, Name) and func.value.func.qualified == "builtins.super"
    ):
        return _next_init(index, cls, ref)
    return None


def _next_init(index, cls: ClassRef, ref: FunctionRef) -> Optional[FunctionRef]:
    """The ``__init__`` after the one ``ref`` is, along ``cls``'s method resolution order."""
    passed = False
    for item in index.mro(cls):
        if passed:
            qualname = item.cls.methods.get("__init__")
            if qualname is not None:
                return FunctionRef(item.module, item.module.functions[qualname])
        elif item.module.path == ref.module.path and item.cls.methods.get("__init__") == ref.function.qualname:
            passed = True
    return None


def _passed(callee: Function, call: Call, holders: Set[str]) -> Set[str]:
    """The callee's parameters that receive the argument."""
    params = callee.params[1:] if callee.class_name else callee.params
    found = set()
    for position, value in enumerate(call.args):
        if isinstance(value, Name) and value.qualified is None and value.dotted in holders and position < len(params):
            found.add(params[position])
    for keyword, value in call.kwargs:
        if isinstance(value, Name) and value.qualified is None and value.dotted in holders and keyword in params:
            found.add(keyword)
    return found


def _validations(function: Function) -> Set[int]:
    """ids of the tests of ``if test: raise SomeError(...)`` blocks."""
    found: Set[int] = set()
    for block in function.exits:
        if any(_inside(block, value.span) for value in function.returns if getattr(value, "span", None) is not None):
            continue
        for call in function.calls:
            if call.guards and _inside(block, call.span) and _raises_builtin_exception(call):
                found.add(id(call.guards[-1][0]))
    return found


def _raises_builtin_exception(call: Call) -> bool:
    func = call.func
    return (
        isinstance(func, Name) and func.qualified is not None and func.qualified.startswith("builtins.")
        and func.qualified.endswith(("Error", "Exception"))
    )


def _always_runs(guards, validations: Set[int], holders: Set[str]) -> bool:
    """Code under no guard, or only after validations that passed when the object was first
    built (a validation of the argument itself may fail on the injected one: not counted)."""
    for test, expected in guards:
        if expected or id(test) not in validations:
            return False
        if any(_attribute_on(name, holders) is not None or name.dotted in holders for name in _names_read(test)):
            return False
    return True


def _has_error_path(function: Function) -> bool:
    return any((EXCEPT, True) in item.guards for item in [*function.calls, *function.assigns])


def _in_any(spans: List[Span], span: Span) -> bool:
    return any(_inside(outer, span) for outer in spans)


def _names_read(value: Optional[Value]) -> Iterator[Name]:
    """The names an expression reads whenever it is evaluated."""
    if value is None:
        return
    if isinstance(value, Name):
        yield value
    elif isinstance(value, Call):
        yield from _names_read(value.func)
        for item in (*value.args, *(v for _, v in value.kwargs), *value.stars, *value.double_stars):
            yield from _names_read(item)
    elif isinstance(value, (Attr, Not, Each)):
        yield from _names_read(value.value if not isinstance(value, Each) else value.iterable)
    elif isinstance(value, Subscript):
        yield from _names_read(value.value)
        yield from _names_read(value.index)
    elif isinstance(value, (BinOp, Compare)):
        yield from _names_read(value.left)
        yield from _names_read(value.right)
    elif isinstance(value, BoolOp):
        yield from _names_read(value.values[0] if value.values else None)
    elif isinstance(value, Seq):
        for item in value.items:
            yield from _names_read(item)
    elif isinstance(value, DictDisplay):
        for item in (*value.keys, *value.values, *value.stars):
            yield from _names_read(item)
    elif isinstance(value, Comprehension):
        yield from _names_read(value.iterable)
