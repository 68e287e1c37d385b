"""A spelling-only screen over the whole project: which function and class names can lead,
through calls, to a place that iterates something spelled like a loader.

The epoch-loop search follows calls from every loop in the project into helpers (a method
on ``self``, ``train_one_epoch(...)``), and following a call means resolving it through
the value flow. In model code (``for block in self.blocks: x = self.norm(x)``) none of
those calls can ever reach a loader iteration, and the screen says so from spelling alone:
a function iterates a loader *directly* when one of its loops, or an ``iter(...)`` call,
takes something named like a loader; a name *reaches* an iteration when a function or
class spelled so iterates directly or calls, by spelling, a name that reaches one.
"""

from __future__ import annotations

from typing import Dict, Iterable, List, Set

from seedlint.facts.model import Call, Function, IfExp, ModuleFacts, Name, Value

_CLASS_ENTRIES = ("__init__", "__call__")
"""Methods a call spelled with the class's (or an instance's) name runs."""


def last_spelling(func: Value) -> str:
    return func.dotted.rsplit(".", 1)[-1] if isinstance(func, Name) else ""


class IterationScreen:
    """Names that may reach a loader iteration, over every module the index holds (it is
    brought up to date when modules are loaded later)."""

    def __init__(self, index, loaderish, wrapper_spellings: Iterable[str]) -> None:
        self._index = index
        self._loaderish = loaderish
        self._wrappers = frozenset(wrapper_spellings)
        self._seen: Set[str] = set()
        self._direct: Set[str] = set()
        self._callers: Dict[str, Set[str]] = {}
        """Called name -> names of the functions (and classes) whose code calls it."""
        self._known: Set[str] = set()
        self._reaching: Set[str] = set()
        self._module_count = -1

    def reaches(self, name: str) -> bool:
        """A function or class spelled ``name`` may iterate a loader, itself or through calls."""
        self._refresh()
        return name in self._reaching

    def known(self, name: str) -> bool:
        """Some project function or class is spelled ``name``."""
        self._refresh()
        return name in self._known

    # ------------------------------------------------------------------ building
    def _refresh(self) -> None:
        modules = self._index.modules
        if len(modules) == self._module_count:
            return
        self._module_count = len(modules)
        for path, module in list(modules.items()):
            if path not in self._seen:
                self._seen.add(path)
                self._add(module)
        self._close()

    def _add(self, module: ModuleFacts) -> None:
        for cls in module.classes.values():
            self._known.add(cls.name)
        for function in module.functions.values():
            names = self._names_of(module, function)
            self._known.update(names)
            if self._iterates_directly(function):
                self._direct.update(names)
            for call in function.calls:
                called = last_spelling(call.func)
                if called:
                    self._callers.setdefault(called, set()).update(names)

    @staticmethod
    def _names_of(module: ModuleFacts, function: Function) -> List[str]:
        names = [function.name]
        if function.class_name and function.name in _CLASS_ENTRIES:
            cls = module.classes.get(function.class_name)
            names.append(cls.name if cls is not None else function.class_name.rsplit(".", 1)[-1])
        return names

    def _iterates_directly(self, function: Function) -> bool:
        for loop in function.loops:
            if any(self._loaderish(v, function) for v in self._unwrapped(loop.iterable)):
                return True
        for call in function.calls:
            if isinstance(call.func, Name) and call.func.dotted == "iter" and call.args:
                if any(self._loaderish(v, function) for v in self._unwrapped(call.args[0])):
                    return True
        return False

    def _unwrapped(self, value: Value) -> List[Value]:
        """``enumerate(tqdm(loader))`` by spelling: every argument of a wrapper call, both
        branches of ``a if c else b``."""
        if isinstance(value, Call) and last_spelling(value.func) in self._wrappers:
            return [inner for arg in value.args for inner in self._unwrapped(arg)]
        if isinstance(value, IfExp):
            return self._unwrapped(value.body) + self._unwrapped(value.orelse)
        return [value]

    def _close(self) -> None:
        reaching = set(self._direct)
        pending = list(reaching)
        while pending:
            name = pending.pop()
            for caller in self._callers.get(name, ()):
                if caller not in reaching:
                    reaching.add(caller)
                    pending.append(caller)
        self._reaching = reaching
