"""SDL006 unpicklable-worker-callable."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Dict, Iterable, Iterator, List, Optional, Tuple

from seedlint.dataflow import Dataflow
from seedlint.diagnostics import Diagnostic, Fix
from seedlint.facts.model import Call, Class, Const, Function, Lambda, ModuleFacts, Name, Span, Value
from seedlint.index import FunctionRef
from seedlint.loaders import LoaderCall, workers_may_be_positive
from seedlint.rules.base import Project, Rule, where

FIX_KIND = "hoist-lambda"
ROLES = ("worker_init_fn", "collate_fn")
PICKLING_METHODS = ("spawn", "forkserver")
START_METHOD_SETTERS = frozenset({"multiprocessing.set_start_method", "torch.multiprocessing.set_start_method"})
CONTEXT_GETTERS = frozenset({"multiprocessing.get_context", "torch.multiprocessing.get_context"})
MAX_DEPTH = 8


@dataclass(frozen=True)
class Unpicklable:
    module: ModuleFacts
    span: Span
    what: str
    """For the message: "a lambda", "the nested function `init`"... """
    fixable: bool = False


@dataclass(frozen=True)
class StartMethod:
    name: Optional[str]
    """"spawn", "forkserver", "fork", or None when the code does not say."""
    where: str = ""


class UnpicklableWorkerCallable(Rule):
    """
    ## What it does
    Finds a `DataLoader` with worker processes whose `worker_init_fn` or `collate_fn` is a
    lambda or a function defined inside another function (also through `functools.partial`
    or a variable), or whose dataset is an object of a class defined inside a function.

    The diagnostic is an *error* when the code sets the `spawn` or `forkserver` start method
    (`multiprocessing_context="spawn"` on the loader, `multiprocessing.get_context("spawn")`,
    or `multiprocessing.set_start_method` / `torch.multiprocessing.set_start_method`), and a
    *warning* otherwise; seedlint has no severities yet, so the message starts with which.
    Loaders that use the `fork` start method explicitly are not reported.

    The anchor is the lambda or the nested `def`; for a dataset class defined in a function it
    is the loader's dataset argument (the class statement may serve several loaders, and the
    argument shows which loader breaks).

    ## Why is this bad?
    Under `spawn` and `forkserver` the DataLoader pickles the dataset, `collate_fn` and
    `worker_init_fn` to start every worker. Lambdas and local objects cannot be pickled by
    reference, so iterating the loader fails with `PicklingError` (or `AttributeError: Can't
    pickle local object`). `spawn` is the default on Windows and macOS, and Linux defaults to
    `forkserver` from Python 3.14: code that works on a Linux box today breaks there.

    ## Example
    ```python
    loader = DataLoader(dataset, num_workers=4, collate_fn=lambda batch: tuple(zip(*batch)))
    ```

    ## Use instead
    ```python
    def collate_batch(batch):
        return tuple(zip(*batch))


    loader = DataLoader(dataset, num_workers=4, collate_fn=collate_batch)
    ```

    ## Fix safety
    Safe. A lambda that reads no local name of its enclosing function is hoisted to a
    module-level `def` named after its role (`collate_batch`, `init_worker`, with a suffix when
    the name is taken), placed after the imports; a module-level `name = lambda ...` becomes
    `def name(...)`. Behaviour is unchanged except that it can be pickled. Lambdas that close
    over local names, nested functions and nested classes are reported without a fix.
    """

    code = "SDL006"
    name = "unpicklable-worker-callable"
    summary = "worker callable or dataset cannot be pickled under spawn"
    fix_safety = "safe"

    def triggers(self, settings) -> Tuple[bytes, ...]:
        return super().triggers(settings) + (b"set_start_method",)

    def check(self, project: Project) -> Iterable[Diagnostic]:
        flow = project.flow
        default_method = _start_method_in_code(project)
        found: Dict[Tuple[str, int, int], Tuple[bool, Diagnostic]] = {}
        for loader in project.loader_calls():
            if not workers_may_be_positive(flow, loader):
                continue
            method = _loader_context(flow, loader) or default_method
            if method.name == "fork":
                continue
            for problem, role in self._problems(flow, loader):
                error = method.name in PICKLING_METHODS
                diagnostic = self._diagnostic(problem, role, method, error)
                key = (problem.module.path, problem.span.line, problem.span.col)
                if key not in found or (error and not found[key][0]):
                    found[key] = (error, diagnostic)
        for _, diagnostic in found.values():
            yield diagnostic

    def _problems(self, flow: Dataflow, loader: LoaderCall) -> Iterator[Tuple[Unpicklable, str]]:
        for role in ROLES:
            value = loader.argument(role)
            if value is None or isinstance(value, Const):
                continue
            for problem in _unpicklable_callables(flow, loader.module, value, role, 0):
                yield problem, role
        dataset = loader.argument("dataset")
        if dataset is None:
            return
        span = dataset.span if isinstance(dataset, (Name, Call)) else loader.call.span
        for cls in _local_classes(flow, loader.module, dataset, 0):
            owner = cls.qualname.split(".<locals>.")[0]
            yield Unpicklable(loader.module, span, f"an object of `{cls.name}`, a class defined inside `{owner}`"), "dataset"

    def _diagnostic(self, problem: Unpicklable, role: str, method: StartMethod, error: bool) -> Diagnostic:
        subject = f"the {role}" if role == "dataset" else f"`{role}`"
        if error:
            message = (
                f"error: {subject} is {problem.what}, which cannot be pickled: with the "
                f"'{method.name}' start method ({method.where}) starting the workers raises PicklingError"
            )
        else:
            message = (
                f"warning: {subject} is {problem.what}, which cannot be pickled: under the spawn or "
                "forkserver start method (the default on Windows, macOS, and Linux from Python 3.14) "
                "starting the workers raises PicklingError"
            )
        fix = Fix(FIX_KIND, problem.module.path, problem.span, True, (role,)) if problem.fixable else None
        return self.report(problem.module, problem.span, message, fix)


def _unpicklable_callables(flow: Dataflow, module: ModuleFacts, value: Value, role: str, depth: int) -> Iterator[Unpicklable]:
    if depth > MAX_DEPTH:
        return
    if isinstance(value, Lambda):
        function = module.functions.get(value.qualname)
        if function is not None:
            yield Unpicklable(module, value.span, "a lambda", _hoistable(module, function))
        return
    if isinstance(value, Call):
        if flow.is_partial(module, value) and value.args:
            yield from _unpicklable_callables(flow, module, value.args[0], role, depth + 1)
        return
    if not isinstance(value, Name):
        return
    if value.qualified is None and not value.rest:
        nested = module.functions.get(f"{value.scope}.<locals>.{value.dotted}")
        if nested is not None and not nested.is_lambda:
            yield _nested_def(module, nested)
            return
    else:
        symbol = flow.index.resolve(value.qualified, module) if value.qualified else None
        if isinstance(symbol, FunctionRef):
            if symbol.function.nested and not symbol.function.is_lambda:
                yield _nested_def(symbol.module, symbol.function)
            return
    for binding in flow.bindings(module, value):
        yield from _unpicklable_callables(flow, binding.module, binding.value, role, depth + 1)


def _local_classes(flow: Dataflow, module: ModuleFacts, value: Value, depth: int) -> Iterator[Class]:
    """Classes defined inside a function whose objects ``value`` may be (the dataflow
    does not resolve local class names, so they are looked up here)."""
    if depth > MAX_DEPTH:
        return
    if isinstance(value, Call) and isinstance(value.func, Name) and value.func.qualified is None:
        local = module.classes.get(f"{value.func.scope}.<locals>.{value.func.dotted}")
        if local is not None:
            yield local
        return
    if isinstance(value, Call):
        for instance in flow.instances(module, value):
            if instance.cls.cls.nested:
                yield instance.cls.cls
        return
    if isinstance(value, Name):
        for binding in flow.bindings(module, value):
            yield from _local_classes(flow, binding.module, binding.value, depth + 1)


def _nested_def(module: ModuleFacts, function: Function) -> Unpicklable:
    owner = function.qualname.split(".<locals>.")[0]
    return Unpicklable(module, function.span, f"`{function.name}`, a function defined inside `{owner}`")


def _hoistable(module: ModuleFacts, function: Function) -> bool:
    """A lambda whose body and defaults read no local name of an enclosing function."""
    own = function.qualname
    for name in function.reads:
        if name.qualified is None and name.scope != own and not name.scope.startswith(own + "."):
            return False
    return not any(_reads_local(value) for _, value in function.defaults)


def _reads_local(value: Value) -> bool:
    return not isinstance(value, Const) and not (isinstance(value, Name) and value.qualified is not None)


def _loader_context(flow: Dataflow, loader: LoaderCall) -> Optional[StartMethod]:
    value = loader.argument("multiprocessing_context")
    name = _method_name(flow, loader.module, value, 0) if value is not None else None
    return StartMethod(name, f"multiprocessing_context on the loader, {where(loader.module, loader.call.span)}") if name else None


def _method_name(flow: Dataflow, module: ModuleFacts, value: Value, depth: int) -> Optional[str]:
    if isinstance(value, Const):
        return value.value if isinstance(value.value, str) else None
    if isinstance(value, Call) and any(n in CONTEXT_GETTERS for n in flow.callee_names(module, value)):
        argument = value.argument("method", 0)
        return argument.value if isinstance(argument, Const) and isinstance(argument.value, str) else None
    if isinstance(value, Name) and depth < MAX_DEPTH:
        names = {_method_name(flow, b.module, b.value, depth + 1) for b in flow.bindings(module, value)}
        return names.pop() if len(names) == 1 else None
    return None


def _start_method_in_code(project: Project) -> StartMethod:
    """The start method a ``set_start_method`` call in the checked files sets; spawn and
    forkserver win over fork when several are set."""
    flow = project.flow
    seen: List[StartMethod] = []
    for module in project.modules:
        for _, call in module.all_calls():
            if not isinstance(call.func, Name) or "set_start_method" not in call.func.dotted:
                continue
            if not any(n in START_METHOD_SETTERS for n in flow.callee_names(module, call)):
                continue
            argument = call.argument("method", 0)
            if isinstance(argument, Const) and isinstance(argument.value, str):
                seen.append(StartMethod(argument.value, f"set_start_method at {where(module, call.span)}"))
    for method in seen:
        if method.name in PICKLING_METHODS:
            return method
    return seen[0] if seen else StartMethod(None)
