"""The names a program binds its loaders to, whatever they are spelled.

A loop over ``self.data``, ``source`` or ``batches`` iterates a loader when the program
binds that name to one: a variable or attribute assigned a loader call, or the result of a
function that returns one (``build_loader`` -> ``build_loaders`` -> ...), or a parameter
such a value is passed to (``train_one_epoch(model, data_loader)`` makes ``data_loader``,
and ``logger.log_every(data_loader)`` makes ``log_every``'s first parameter, a holder).

The facts are propagated as a worklist over rules read once per function, so modules the
value flow loads later only add their own rules: the cost stays linear in the code read.
"""

from __future__ import annotations

from typing import Dict, FrozenSet, Iterable, List, Set, Tuple

from seedlint.analysis.iteration_screen import last_spelling
from seedlint.facts.model import MODULE_CODE, Attr, Call, Function, ModuleFacts, Name, Seq, Subscript, Value

Fact = Tuple
"""``("call", id)`` a loader call, ``("producer", name)`` a function returning a loader,
``("name", name)`` a holder name, ``("arg", callee, position, through_object)`` a loader
passed as that positional argument of calls spelled ``callee``."""


class LoaderHolders:
    def __init__(self, loader_calls: Iterable[Call]) -> None:
        self._true: Set[Fact] = set()
        self._waiting: Dict[Fact, List[Fact]] = {}
        self._functions: Dict[str, List[Function]] = {}
        self._arguments: Dict[str, Set[Tuple[int, bool]]] = {}
        self._read: Set[str] = set()
        self.names: Set[str] = set()
        for call in loader_calls:
            self._fire(("call", id(call)))

    def add_modules(self, modules: Iterable[ModuleFacts]) -> None:
        """Read the rules of modules not read yet."""
        for module in modules:
            if module.path in self._read:
                continue
            self._read.add(module.path)
            for function in module.functions.values():
                self._add_function(function)

    def holder_names(self) -> FrozenSet[str]:
        return frozenset(self.names)

    # ------------------------------------------------------------------ rules
    def _add_function(self, function: Function) -> None:
        if function.name != MODULE_CODE:
            self._functions.setdefault(function.name, []).append(function)
            for position, through in list(self._arguments.get(function.name, ())):
                self._bind_parameter(function, position, through)
        for assign in function.assigns:
            self._rule(_triggers(assign.value), ("name", assign.target.rsplit(".", 1)[-1]))
        if function.name != MODULE_CODE:
            for returned in function.returns:
                self._rule(_triggers(returned), ("producer", function.name))
        for call in function.calls:
            callee = last_spelling(call.func)
            through = isinstance(call.func, Attr) or (isinstance(call.func, Name) and "." in call.func.dotted)
            for position, argument in enumerate(call.args):
                if callee:
                    self._rule(_triggers(argument), ("arg", callee, position, through))
            for keyword, argument in call.kwargs:
                self._rule(_triggers(argument), ("name", keyword))

    def _rule(self, conditions: List[Fact], conclusion: Fact) -> None:
        if conclusion in self._true:
            return
        for condition in conditions:
            if condition in self._true:
                self._fire(conclusion)
                return
        for condition in conditions:
            self._waiting.setdefault(condition, []).append(conclusion)

    def _fire(self, fact: Fact) -> None:
        pending = [fact]
        while pending:
            fact = pending.pop()
            if fact in self._true:
                continue
            self._true.add(fact)
            kind = fact[0]
            if kind == "name":
                self.names.add(fact[1])
            elif kind == "arg":
                _, callee, position, through = fact
                self._arguments.setdefault(callee, set()).add((position, through))
                for function in list(self._functions.get(callee, ())):
                    self._bind_parameter(function, position, through)
            pending.extend(self._waiting.pop(fact, ()))

    def _bind_parameter(self, function: Function, position: int, through: bool) -> None:
        """The parameter a positional argument binds (``self`` skipped for a method called
        through an object)."""
        params = [p for p, kind in zip(function.params, function.param_kinds) if kind in ("posonly", "normal")]
        if function.class_name and through and params:
            params = params[1:]
        if position < len(params):
            self._fire(("name", params[position]))


def _triggers(value: Value) -> List[Fact]:
    """The facts any of which make ``value`` a loader: it is a loader call, a call of a
    function returning one, an element of either, or a name bound to one."""
    while isinstance(value, Subscript):
        value = value.value
    if isinstance(value, Seq):
        return [fact for item in value.items for fact in _triggers(item)]
    if isinstance(value, Call):
        found: List[Fact] = [("call", id(value))]
        spelled = last_spelling(value.func)
        if spelled:
            found.append(("producer", spelled))
        return found
    if isinstance(value, Name):
        return [("name", value.dotted.rsplit(".", 1)[-1])]
    if isinstance(value, Attr):
        return [("name", value.attr)]
    return []


def held(value: Value, names) -> bool:
    """``value`` is spelled with a holder name (``self.data``, ``batches[0]``)."""
    if isinstance(value, Subscript):
        value = value.value
    if isinstance(value, Name):
        return value.dotted.rsplit(".", 1)[-1] in names
    if isinstance(value, Attr):
        return value.attr in names
    return False
