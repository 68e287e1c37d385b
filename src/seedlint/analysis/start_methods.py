"""Which multiprocessing start method a DataLoader's workers start with, as far as the
code says: the loader's ``multiprocessing_context``, else a ``set_start_method`` call in the
loader's own program (its module, or a module whose functions call the loader's function),
and spawn for a loader built only in processes ``torch.multiprocessing.spawn`` starts.

Under ``spawn`` and ``forkserver`` a worker receives the dataset and its callables pickled,
not a copy of the parent's memory: objects unpickle as new objects, and module globals are
the worker's own.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Dict, List, Optional, Protocol, Sequence, Set, Tuple

from seedlint.analysis.flow import ValueFlow
from seedlint.analysis.loaders import LoaderCall, Loaders
from seedlint.analysis.objects import Constant, Frame, FunctionObj
from seedlint.facts.model import MODULE_CODE, Compare, Const, ModuleFacts, Name, Span


class Program(Protocol):
    """What the start-method search reads of the project (``analysis.project.Project``)."""

    flow: ValueFlow
    loaders: Loaders
    modules: Sequence[ModuleFacts]

PICKLING_METHODS = ("spawn", "forkserver")
START_METHOD_SETTERS = frozenset({"multiprocessing.set_start_method", "torch.multiprocessing.set_start_method"})
CONTEXT_GETTERS = frozenset({"multiprocessing.get_context", "torch.multiprocessing.get_context"})
PROGRAM_LEVELS = 3
SPAWNERS = frozenset({"torch.multiprocessing.spawn", "torch.multiprocessing.spawn.spawn", "torch.multiprocessing.start_processes"})
"""Calls that run a function in processes started by spawn."""
SPAWN_LEVELS = 8
"""Calls followed up from a loader's function to the function a spawn call runs."""
MAX_CALLERS = 8
"""How far up the calls a ``set_start_method`` in another module still counts as the loader's program."""


@dataclass(frozen=True)
class StartMethod:
    name: Optional[str]
    """"spawn", "forkserver", "fork", or None when the code does not say."""
    setter: str = ""
    """What sets it: "multiprocessing_context on the loader", "set_start_method"."""
    module: Optional[ModuleFacts] = None
    span: Optional[Span] = None
    """Where it is set."""
    unconditional: bool = False
    """Set by a call that runs whenever its function does: at most under the main guard, or
    under tests that hold whatever the command line gives (``if args.distributed:`` of a
    ``store_true`` option whose default is True)."""


class StartMethods:
    """The start method of each loader, memoised per run."""

    def __init__(self, project: Program) -> None:
        self.project = project

    @cached_property
    def in_code(self) -> List[Tuple[str, StartMethod]]:
        return _start_methods_in_code(self.project)

    def of(self, loader: LoaderCall, frame: Frame) -> StartMethod:
        """The loader's own ``multiprocessing_context``, else its program's start method."""
        return _loader_context(self.project, loader, frame) or _start_method_of_program(self.project, loader, self.in_code)

    def surely_pickling(self, loader: LoaderCall, frame: Frame) -> Optional[StartMethod]:
        """The spawn or forkserver start method the loader's workers start with whatever the
        platform and the options: its own ``multiprocessing_context``, or the program's
        ``set_start_method`` calls when every one names spawn or forkserver and runs
        unconditionally. None otherwise."""
        own = _loader_context(self.project, loader, frame)
        if own is not None:
            return own if own.name in PICKLING_METHODS else None
        spawned = self.spawned_children_only(loader)
        if spawned is not None:
            return spawned
        modules = _program_modules(self.project, loader)
        methods = [method for path, method in self.in_code if path in modules]
        if methods and all(m.name in PICKLING_METHODS and m.unconditional for m in methods):
            return methods[0]
        return None

    @cached_property
    def _spawn_targets(self) -> Dict[tuple, StartMethod]:
        """The functions ``torch.multiprocessing.spawn(fn, ...)`` runs, by function key, each
        with the spawn call that starts it."""
        flow = self.project.flow
        found: Dict[tuple, StartMethod] = {}
        for module in self.project.modules:
            for function, call in module.all_calls():
                spelled = call.func.dotted if isinstance(call.func, Name) else ""
                if not call.args or not spelled.endswith(("spawn", "start_processes")):
                    continue
                frame = flow.function_frame(module, function)
                if not flow.callee_names(call, frame) & SPAWNERS:
                    continue
                for target in flow.eval(call.args[0], frame):
                    if isinstance(target, FunctionObj):
                        found.setdefault(target.function.key, StartMethod("spawn", "torch.multiprocessing.spawn", module, call.span))
        return found

    def spawned_children_only(self, loader: LoaderCall) -> Optional[StartMethod]:
        """The spawn start method, when the loader is built only in processes that
        ``torch.multiprocessing.spawn`` starts: every chain of callers up from its function
        ends at a function spawn runs, and no call of that function that may run starts it
        in the parent. Python gives a spawned process spawn as its own start method
        (``BaseProcess._bootstrap`` forces the start method it was started with), so its
        DataLoader workers start by spawn whatever the parent set."""
        targets = self._spawn_targets
        if not targets:
            return None
        flow = self.project.flow
        found: Optional[StartMethod] = None
        seen: Set[tuple] = set()
        frontier = [flow.function_frame(loader.module, loader.function)]
        for _ in range(SPAWN_LEVELS):
            callers = []
            for frame in frontier:
                key = frame.function.key
                if key in seen:
                    continue
                seen.add(key)
                if frame.function.function.qualname == MODULE_CODE:
                    return None
                sites, complete = flow.callsites.of(frame)
                sites = [site for site in sites if not _certainly_skipped(flow, site)]
                if key in targets:
                    found = found or targets[key]
                elif not complete or not sites:
                    return None  # a chain that starts elsewhere: the parent may build it
                callers += [flow.function_frame(site.frame.module, site.frame.function.function) for site in sites]
            frontier = callers
            if not frontier:
                return found
        return None


def _certainly_skipped(flow, site) -> bool:
    """A call under an ``if`` whose test certainly fails where it is written."""
    return any(flow.truth(test, site.frame) is (not expected) for test, expected in site.call.guards)


def _loader_context(project: Program, loader: LoaderCall, frame: Frame) -> Optional[StartMethod]:
    names = set()
    for value in project.loaders.argument(loader, "multiprocessing_context", frame).values:
        if isinstance(value, Constant) and isinstance(value.value, str):
            names.add(value.value)
        elif isinstance(value, Constant) and value.value is None:
            continue
        else:
            name = _context_method(project, value)
            if name is None:
                return None
            names.add(name)
    if len(names) != 1:
        return None
    return StartMethod(names.pop(), "multiprocessing_context on the loader", loader.module, loader.call.span)


def _context_method(project: Program, value) -> Optional[str]:
    """``multiprocessing.get_context("spawn")``: the method it names."""
    from seedlint.analysis.objects import ExternalInstance

    if isinstance(value, ExternalInstance) and value.qualified in CONTEXT_GETTERS:
        argument = value.site.call.argument("method", 0)
        constant = project.flow.constant(argument, value.site.frame) if argument is not None else None
        return constant.value if constant is not None and isinstance(constant.value, str) else None
    return None


def _start_methods_in_code(project: Program) -> List[Tuple[str, StartMethod]]:
    """(module path, start method) of each ``set_start_method`` call in the checked files."""
    flow = project.flow
    seen: List[Tuple[str, StartMethod]] = []
    for module in project.modules:
        for function, call in module.all_calls():
            if not isinstance(call.func, Name) or "set_start_method" not in call.func.dotted:
                continue
            if not flow.callee_names(call, flow.function_frame(module, function)) & START_METHOD_SETTERS:
                continue
            argument = call.argument("method", 0)
            if isinstance(argument, Const) and isinstance(argument.value, str):
                frame = flow.function_frame(module, function)
                unconditional = all(_main_guard(test) or flow.truth(test, frame) is expected for test, expected in call.guards)
                seen.append((module.path, StartMethod(argument.value, "set_start_method", module, call.span, unconditional)))
    return seen


def _start_method_of_program(project: Program, loader: LoaderCall, set_in_code: List[Tuple[str, StartMethod]]) -> StartMethod:
    """The start method set in the loader's own program: its module, or a module whose
    functions call the loader's function (up to three calls up). An unrelated script's
    ``set_start_method`` says nothing about this loader. spawn and forkserver win over fork."""
    if not set_in_code:
        return StartMethod(None)
    modules = _program_modules(project, loader)
    methods = [method for path, method in set_in_code if path in modules]
    for method in methods:
        if method.name in PICKLING_METHODS:
            return method
    return methods[0] if methods else StartMethod(None)


def _program_modules(project: Program, loader: LoaderCall) -> Set[str]:
    flow = project.flow
    paths = {loader.module.path}
    frontier = [flow.function_frame(loader.module, loader.function)]
    for _ in range(PROGRAM_LEVELS):
        callers = []
        for frame in frontier:
            if frame.function.function.qualname == MODULE_CODE:
                continue
            sites, _ = flow.callsites.of(frame)
            for site in sites[:MAX_CALLERS]:
                caller = flow.function_frame(site.frame.module, site.frame.function.function)
                if caller.key not in {f.key for f in callers}:
                    callers.append(caller)
                paths.add(site.frame.module.path)
        frontier = callers
    return paths


def _main_guard(test) -> bool:
    """``__name__ == "__main__"``."""
    return isinstance(test, Compare) and test.op == "==" and {_spelled(test.left), _spelled(test.right)} == {"__name__", "'__main__'"}


def _spelled(value) -> str:
    if isinstance(value, Name):
        return value.dotted
    if isinstance(value, Const) and isinstance(value.value, str):
        return repr(value.value)
    return ""
