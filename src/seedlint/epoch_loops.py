"""Epoch loops: the loops that iterate a DataLoader once per pass.

Resolving a name may load (parse) other modules, so before resolving, calls are screened
by spelling: a loader is built by a callee spelled like one (``DataLoader``, ``MyLoader``,
``build_loaders``), and a helper is followed when it is a method on ``self`` or receives an
argument spelled like a loader (``train_one_epoch(model, train_loader)``).

A loader is *iterated* at a site: a ``for`` statement over it (also through
``enumerate``/``tqdm``/``zip``), an ``iter(loader)`` call, or a call of a project
function that iterates it (a loader passed as an argument, or one the function reaches
itself, such as ``self.train_loader``). The *epoch loop* of a site is the innermost loop
around it that counts (``range``-like, or a ``while``), skipping loops over literal lists
such as ``for phase in ("train", "val")``. SDL007, SDL009 and SDL010 start from these.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Dict, Iterator, List, Optional, Set, Tuple

from seedlint.facts.model import (
    Call,
    Const,
    Function,
    Loop,
    ModuleFacts,
    Name,
    Seq,
    Span,
    Subscript,
    Value,
)
from seedlint.analysis.index import FunctionRef
from seedlint.loaders import TORCH_LOADERS, LoaderCall, loader_classes

MAX_DEPTH = 3

ITERATION_WRAPPERS = frozenset({
    "enumerate", "iter", "zip", "list",
    "tqdm.tqdm", "tqdm.auto.tqdm", "tqdm.notebook.tqdm", "tqdm.std.tqdm",
    "rich.progress.track", "itertools.islice",
})
"""Callables that iterate what they are given, so ``for b in tqdm(loader)`` iterates ``loader``
(builtins are named without ``builtins.``, as the index resolves them)."""
WRAPPER_SPELLINGS = frozenset(name.rsplit(".", 1)[-1] for name in ITERATION_WRAPPERS)
ITERATOR_FACTORIES = frozenset({"iter"})
RANGE_LIKE = frozenset({"range", "tqdm.trange", "tqdm.auto.trange", "tqdm.notebook.trange", "tqdm.std.trange"})
MAPPING_VIEWS = ("items", "keys", "values")
MANAGING_METHODS = ("setup_dataloaders", "prepare", "prepare_data_loader")
"""Methods that hand a loader to a framework (Fabric, Accelerate) which wraps its iteration,
and calls ``set_epoch`` itself: a name bound to their result is not followed."""


def contains(outer: Span, inner: Span) -> bool:
    return (outer.line, outer.col) <= (inner.line, inner.col) and (inner.end_line, inner.end_col) <= (outer.end_line, outer.end_col)


@dataclass(frozen=True, eq=False)
class Iteration:
    """A place where a function iterates a loader."""

    loader: LoaderCall
    span: Span
    """The ``for`` statement, the ``iter()`` call or the call of the helper that iterates it."""
    via: Optional[FunctionRef] = None
    """The project function that iterates it, when the site is a call of that function."""


@dataclass(eq=False)
class EpochLoop:
    module: ModuleFacts
    function: Function
    loop: Loop
    iterations: List[Iteration] = field(default_factory=list)

    @property
    def loaders(self) -> List[LoaderCall]:
        seen: Dict[int, LoaderCall] = {}
        for iteration in self.iterations:
            seen.setdefault(id(iteration.loader.call), iteration.loader)
        return list(seen.values())

    def in_iteration(self, span: Span) -> bool:
        """Whether ``span`` lies inside one of the loop's loader iterations."""
        return any(contains(iteration.span, span) for iteration in self.iterations)

    def calls(self) -> List[Call]:
        return self.loop.calls


class LoopIndex:
    """Loader iterations and epoch loops of a project, computed once and cached."""

    def __init__(self, project) -> None:
        self.project = project
        self.flow = project.dataflow
        self._loader_names = project.subclasses(loader_classes(project.settings.extra_loader_classes))
        self._loaders: Dict[int, Optional[LoaderCall]] = {}
        self._owners: Dict[str, Dict[int, Function]] = {}
        self._sites: Dict[Tuple[str, str, bool], List[Iteration]] = {}
        self._params: Dict[Tuple[str, str], Set[str]] = {}
        self._epoch_loops: Optional[List[EpochLoop]] = None

    # ------------------------------------------------------------------ loaders
    def loader_of(self, module: ModuleFacts, call: Call) -> Optional[LoaderCall]:
        """The LoaderCall for ``call`` when it builds a loader. Decided one call at a time, so
        only the calls a loop reaches are ever resolved."""
        key = id(call)
        if key not in self._loaders:
            self._loaders[key] = None
            positional = self._loader_kind(module, call)
            owner = self._owner(module, call)
            if positional is not None and owner is not None:
                self._loaders[key] = LoaderCall(module, owner, call, positional)
        return self._loaders[key]

    def _loader_kind(self, module: ModuleFacts, call: Call) -> Optional[bool]:
        """True for torch's own DataLoader (positions follow its signature), False for a
        subclass or configured class, None for anything else."""
        found = self.flow.refers_to(module, call.func, self._loader_names)
        return None if found is None else found in TORCH_LOADERS

    def _owner(self, module: ModuleFacts, call: Call) -> Optional[Function]:
        path = os.path.abspath(module.path)
        if path not in self._owners:
            self._owners[path] = {id(c): f for f, c in module.all_calls()}
        return self._owners[path].get(id(call))

    def loaders(self, module: ModuleFacts, value: Value, depth: int = 0) -> List[LoaderCall]:
        """The loader calls ``value`` may evaluate to (through names, factories, tuples)."""
        if depth > 2 * MAX_DEPTH:
            return []
        if isinstance(value, Call):
            if not _loaderish(self._loader_names, value.func):
                return []  # spelling screen: DataLoader, a subclass named *Loader, build_loaders()...
            found = self.loader_of(module, value)
            if found is not None:
                return [found]
            result: List[LoaderCall] = []
            for symbol in self.flow.symbols(module, value.func):
                if isinstance(symbol, FunctionRef) and not symbol.function.is_lambda:
                    for returned in symbol.function.returns:
                        result.extend(self.loaders(symbol.module, returned, depth + 1))
            return result
        if isinstance(value, Name):
            bindings = self.flow.bindings(module, value)
            if any(_managed(b.value) for b in bindings):
                return []
            return [found for b in bindings for found in self.loaders(b.module, b.value, depth + 1)]
        if isinstance(value, Subscript) and isinstance(value.index, Const) and isinstance(value.index.value, int):
            return [found for m, item in self.items(module, value.value, value.index.value, depth + 1) for found in self.loaders(m, item, depth + 1)]
        return []

    def items(self, module: ModuleFacts, value: Value, index: int, depth: int) -> List[Tuple[ModuleFacts, Value]]:
        """Element ``index`` of a tuple ``value`` may evaluate to (``a, b = make_loaders()``)."""
        if depth > 2 * MAX_DEPTH:
            return []
        if isinstance(value, Seq):
            return [(module, value.items[index])] if index < len(value.items) else []
        if isinstance(value, Name):
            return [i for b in self.flow.bindings(module, value) for i in self.items(b.module, b.value, index, depth + 1)]
        if isinstance(value, Call):
            found: List[Tuple[ModuleFacts, Value]] = []
            for symbol in self.flow.symbols(module, value.func):
                if isinstance(symbol, FunctionRef) and not symbol.function.is_lambda:
                    for returned in symbol.function.returns:
                        found.extend(self.items(symbol.module, returned, index, depth + 1))
            return found
        return []

    def iterated_values(self, module: ModuleFacts, value: Value) -> List[Value]:
        """What a ``for`` iterable iterates, through ``enumerate``/``tqdm``/``zip``..."""
        if (
            isinstance(value, Call)
            and _spelled(value.func) in WRAPPER_SPELLINGS
            and any(n in ITERATION_WRAPPERS for n in self.flow.callee_names(module, value))
        ):
            names = self.flow.callee_names(module, value)
            inner = list(value.args) if "zip" in names else list(value.args[:1])
            return [v for item in inner for v in self.iterated_values(module, item)]
        return [value]

    # ------------------------------------------------------------------ iteration sites
    def sites(self, module: ModuleFacts, function: Function, depth: int = 0) -> List[Iteration]:
        """Every place ``function`` iterates a loader it can name itself."""
        key = (os.path.abspath(module.path), function.qualname, depth == 0)
        if key in self._sites:
            return self._sites[key]
        self._sites[key] = []
        found: List[Iteration] = []
        for loop in function.loops:
            for value in self.iterated_values(module, loop.iterable):
                found.extend(Iteration(loader, loop.span) for loader in self.loaders(module, value))
        # A function's own epoch loops only need the calls inside loops; a helper's every call.
        calls = function.calls if depth else [c for loop in function.loops for c in loop.calls]
        for call in _unique(calls):
            if _spelled(call.func) == "iter" and call.args and any(n in ITERATOR_FACTORIES for n in self.flow.callee_names(module, call)):
                found.extend(Iteration(loader, call.span) for loader in self.loaders(module, call.args[0]))
                continue
            if depth >= MAX_DEPTH or not self._may_iterate_a_loader(function, call):
                continue
            for callee, offset in self.callees(module, function, call):
                if self.sites(callee.module, callee.function, depth + 1):
                    found.extend(Iteration(i.loader, call.span, callee) for i in self.sites(callee.module, callee.function, depth + 1))
                iterated = self.iterated_params(callee.module, callee.function, depth + 1)
                for parameter, value in self.arguments(callee.function, call, offset):
                    if parameter in iterated:
                        found.extend(Iteration(loader, call.span, callee) for loader in self.loaders(module, value))
        self._sites[key] = found
        return found

    def iterated_params(self, module: ModuleFacts, function: Function, depth: int = 0) -> Set[str]:
        """Parameters of ``function`` that it iterates (directly or by passing them on)."""
        key = (os.path.abspath(module.path), function.qualname)
        if key in self._params:
            return self._params[key]
        self._params[key] = set()
        found: Set[str] = set()
        for loop in function.loops:
            for value in self.iterated_values(module, loop.iterable):
                found.update(self._parameter(function, value))
        for call in function.calls:
            passed = [v for v in (*call.args, *(v for _, v in call.kwargs)) if self._parameter(function, v)]
            if not passed:
                continue
            if _spelled(call.func) == "iter" and any(n in ITERATOR_FACTORIES for n in self.flow.callee_names(module, call)):
                found.update(self._parameter(function, call.args[0]))
            elif depth < MAX_DEPTH:
                for callee, offset in self.callees(module, function, call):
                    iterated = self.iterated_params(callee.module, callee.function, depth + 1)
                    for parameter, value in self.arguments(callee.function, call, offset):
                        if parameter in iterated:
                            found.update(self._parameter(function, value))
        self._params[key] = found
        return found

    def _may_iterate_a_loader(self, function: Function, call: Call) -> bool:
        """A cheap, spelling-only screen before a call is resolved (resolving loads modules):
        a method on ``self``, or a call that passes something named like a loader."""
        func = call.func
        if isinstance(func, Name) and func.qualified is None and function.params and func.root == function.params[0]:
            return True
        return any(_loaderish(self._loader_names, v) for v in (*call.args, *(v for _, v in call.kwargs)))

    @staticmethod
    def _parameter(function: Function, value: Value) -> Set[str]:
        if isinstance(value, Name) and value.qualified is None and value.scope == function.qualname and value.dotted in function.params:
            return {value.dotted}
        return set()

    def callees(self, module: ModuleFacts, function: Function, call: Call) -> Iterator[Tuple[FunctionRef, int]]:
        """Project functions a call may run, with how many leading parameters (``self``) the
        call's positional arguments skip."""
        func = call.func
        if not isinstance(func, Name):
            return
        if func.qualified is None and func.rest and "." not in func.rest:
            owner = self.flow.owner_class(module, function)
            if owner is not None and function.params and func.root == function.params[0]:
                method = self.flow.index.method(owner, func.rest)
                if method is not None:
                    yield method, 1
                return
            receiver = Name(func.root, func.span, None, func.scope)
            for instance in self.flow.instances(module, receiver):
                method = self.flow.index.method(instance.cls, func.rest)
                if method is not None:
                    yield method, 1
            return
        for symbol in self.flow.symbols(module, func):
            if isinstance(symbol, FunctionRef) and not symbol.function.is_lambda:
                yield symbol, 0

    @staticmethod
    def arguments(callee: Function, call: Call, offset: int) -> Iterator[Tuple[str, Value]]:
        params = callee.params
        for position, value in enumerate(call.args):
            if position + offset < len(params):
                yield params[position + offset], value
        for key, value in call.kwargs:
            if key in params:
                yield key, value

    # ------------------------------------------------------------------ epoch loops
    def epoch_loops(self) -> List[EpochLoop]:
        if self._epoch_loops is None:
            self._epoch_loops = list(self._find_epoch_loops())
        return self._epoch_loops

    def _find_epoch_loops(self) -> Iterator[EpochLoop]:
        for module in self.project.modules:
            for function in list(module.functions.values()):
                if not function.loops:
                    continue
                by_loop: Dict[int, EpochLoop] = {}
                for iteration in self.sites(module, function):
                    loop = self.epoch_loop_of(module, function, iteration.span)
                    if loop is None:
                        continue
                    entry = by_loop.setdefault(id(loop), EpochLoop(module, function, loop))
                    entry.iterations.append(iteration)
                yield from by_loop.values()

    def epoch_loop_of(self, module: ModuleFacts, function: Function, site: Span) -> Optional[Loop]:
        enclosing = [loop for loop in function.loops if loop.span != site and contains(loop.span, site)]
        candidates = [loop for loop in enclosing if self._counts_as_epochs(module, loop)]
        if not candidates:
            return None
        candidates.sort(key=lambda loop: (loop.span.line, loop.span.col), reverse=True)
        for loop in candidates:
            if self._range_like(module, loop):
                return loop
        return candidates[0]

    def _counts_as_epochs(self, module: ModuleFacts, loop: Loop) -> bool:
        iterable = loop.iterable
        if isinstance(iterable, Seq):
            return False
        if isinstance(iterable, Name) and iterable.dotted.rsplit(".", 1)[-1] in MAPPING_VIEWS:
            return False
        if isinstance(iterable, Call) and isinstance(iterable.func, Name) and iterable.func.dotted.rsplit(".", 1)[-1] in MAPPING_VIEWS:
            return False
        return not any(self.loaders(module, v) for v in self.iterated_values(module, iterable))

    def _range_like(self, module: ModuleFacts, loop: Loop) -> bool:
        if not loop.target and not isinstance(loop.iterable, Call):
            return True  # a ``while`` statement
        for value in self.iterated_values(module, loop.iterable):
            values = [value]
            if isinstance(value, Name):
                values += [b.value for b in self.flow.bindings(module, value)]
            for item in values:
                if not (isinstance(item, Call) and _spelled(item.func) in ("range", "trange")):
                    continue
                if any(n in RANGE_LIKE for n in self.flow.callee_names(module, item)):
                    return True
        return False


def _spelled(value: Value) -> str:
    return value.dotted.rsplit(".", 1)[-1] if isinstance(value, Name) else ""


def _loaderish(names: frozenset, value: Value) -> bool:
    """Whether a name is spelled like a loader or a loader factory (``train_loader``,
    ``DataLoader``, ``build_dataloaders``, a configured loader class)."""
    if isinstance(value, Subscript):
        value = value.value
    if not isinstance(value, Name):
        return False
    return "loader" in value.dotted.lower() or any(value.dotted.endswith(n.rsplit(".", 1)[-1]) for n in names)


def _unique(calls: List[Call]) -> List[Call]:
    seen: Dict[int, Call] = {}
    for call in calls:
        seen.setdefault(id(call), call)
    return list(seen.values())


def _managed(value: Value) -> bool:
    if isinstance(value, Subscript):
        value = value.value
    return isinstance(value, Call) and isinstance(value.func, Name) and value.func.dotted.rsplit(".", 1)[-1] in MANAGING_METHODS


def loop_index(project) -> LoopIndex:
    """The project's LoopIndex, shared by the rules that need it."""
    found = getattr(project, "_seedlint_loop_index", None)
    if found is None:
        found = LoopIndex(project)
        project._seedlint_loop_index = found
    return found
