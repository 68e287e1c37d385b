"""SDL006 unpicklable-worker-callable."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Dict, Iterable, Iterator, List, Optional, Tuple

from seedlint.analysis.draw_conditions import options_needed_by, spelled_options
from seedlint.analysis.loaders import LoaderCall
from seedlint.analysis.loops import contains
from seedlint.analysis.objects import ExternalInstance, Frame, FunctionObj, Instance
from seedlint.analysis.start_methods import StartMethod
from seedlint.diagnostics import Diagnostic, Fix
from seedlint.facts.model import Call, Const, Function, ModuleFacts, Name, Span, Value
from seedlint.knowledge.hf_datasets import from_hf_datasets
from seedlint.knowledge.kept_callables import library_dataset
from seedlint.rules.base import (
    Project, Rule, add_related, dataset_name, start_method_where, where, workers_condition, workers_evidence,
)
from seedlint.rules.pickling import pickling_loaders, where_workers_pickle
from seedlint.versions import between, range_of

FIX_KIND = "hoist-lambda"
ROLES = ("worker_init_fn", "collate_fn")
PYTHON_3_13 = between("3.13", "3.14")
"""The releases whose pickle words a local object's failure "Can't get local object"."""


@dataclass(frozen=True)
class Unpicklable:
    module: ModuleFacts
    span: Span
    what: str
    """For the message: "a lambda", "the nested function `init`"... """
    local_name: Optional[str] = None
    """The qualified name pickle reports for a local object (``make.<locals>.init``); None
    for a module-level lambda."""
    fixable: bool = False


class UnpicklableWorkerCallable(Rule):
    """
    ## What it does
    Finds a `DataLoader` with worker processes whose `worker_init_fn` or `collate_fn` is a
    lambda or a function defined inside another function (also through `functools.partial`
    or a variable), or whose dataset is an object of a class defined inside a function, or
    holds such a function: stored on it by its methods (`self.transform = resize`, also inside
    a library object such as a `Compose`), or, for a library dataset (`ImageFolder(root,
    transform=...)`, a Hugging Face dataset's `with_transform(f)`/`set_transform(f)`), given
    to it. Functions bound to the dataset and module-level functions pickle with it; class
    attributes are not pickled with an object. The dataset is pickled before the callables,
    so when it fails too, a callable's message says its error comes only once the dataset
    is mended.

    The diagnostic is an *error* when the code sets the `spawn` or `forkserver` start method
    (`multiprocessing_context="spawn"` on the loader, `multiprocessing.get_context("spawn")`,
    or `multiprocessing.set_start_method` / `torch.multiprocessing.set_start_method`), and a
    *warning* otherwise (its default severity), and then only where spawn or forkserver can
    be the default: a program that uses a Linux-only API outside a feature check (the NCCL
    backend, also through a local name every live assignment binds to `"nccl"`; NVIDIA DALI,
    MinkowskiEngine, Colossal-AI; code after an `assert` is not behind a feature
    check: it has no other path), or a project whose only installations are
    Linux-only (a Dockerfile, a conda environment exported on Linux), or one that both uses a
    Unix-only name (`signal.SIGUSR1`, `os.fork`, the `fcntl` module) and moves its model to CUDA
    on every run (no macOS build of torch has CUDA), on Pythons before 3.14
    always forks, and is not reported; the message says which start method, and where, can start the workers by
    pickling (a Unix-only name alone rules Windows out of it). Loaders that use the `fork` start method explicitly are not reported. A loader
    the program builds only under an option its defaults do not set (`if args.phase ==
    "analysis":`) is a warning that names the option.

    The anchor is the lambda or the nested `def`; for a dataset class defined in a function it
    is the loader's dataset argument (the class statement may serve several loaders, and the
    argument shows which loader breaks).

    ## Why is this bad?
    Under `spawn` and `forkserver` the DataLoader pickles the dataset, `collate_fn` and
    `worker_init_fn` to start every worker. Lambdas and local objects cannot be pickled by
    reference, so iterating the loader fails: a module-level lambda raises `PicklingError`; a
    function, lambda or class defined inside a function raises `AttributeError: Can't pickle
    local object` (Python 3.12 and older; Python 3.13 words it "Can't get local object") and
    `PicklingError: Can't pickle local object` from Python 3.14. `spawn` is the default on
    Windows and macOS, and Linux defaults to `forkserver` from Python 3.14: code that works on
    a Linux box today breaks there. A program that needs CUDA on every run (`model.cuda()` or
    `torch.device("cuda")` under no `if` in its main code, in the function that builds the
    loader, or in a caller on the way to it) is not said to run on macOS, where torch has no
    CUDA build.

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
    over local names, nested functions and nested classes are reported without a fix, and so
    is a lambda in a notebook: hoisted there, workers started by spawn still cannot import it.
    """

    code = "SDL006"
    name = "unpicklable-worker-callable"
    summary = "worker callable or dataset cannot be pickled under spawn"
    fix_safety = "safe"
    severity = "warning"

    def triggers(self, settings) -> Tuple[bytes, ...]:
        return super().triggers(settings) + (b"set_start_method",)

    def check(self, project: Project) -> Iterable[Diagnostic]:
        found: Dict[Tuple[str, int, int], Tuple[tuple, Diagnostic]] = {}
        for loader, frame, method, error in pickling_loaders(project):
            workers = project.loaders.workers(loader, frame)
            problems = list(self._problems(project, loader, frame))
            failing_dataset = next((problem for problem, role, _ in problems if role == "dataset"), None)
            for problem, role, holder_needs in problems:
                platform = None if error else where_workers_pickle(project, loader, frame, problem.module.path)
                if not error and platform is None:
                    continue
                evidence = [(loader.module.path, loader.call.span, f"the DataLoader whose workers receive it as its {role}")]
                if error and method.module is not None and method.span is not None:
                    evidence.append((method.module.path, method.span, f"sets the '{method.name}' start method"))
                evidence += workers_evidence(project, workers)
                built_with = _options_building(project, frame, loader)
                condition = workers_condition(workers) + (
                    f" (this DataLoader is built only when the program runs with {spelled_options(built_with)})"
                    if built_with else ""
                )
                if failing_dataset is not None and role != "dataset":
                    # the worker process's arguments pickle in order: the dataset before the callables
                    condition += (
                        f"; the dataset is pickled first and fails first "
                        f"({where(failing_dataset.module, failing_dataset.span)}), so this error comes once it is mended"
                    )
                diagnostic = self._diagnostic(project, problem, role, method, error, platform, condition,
                                              "error" if error and not workers.option and not built_with else "warning", evidence)
                key = (problem.module.path, problem.span.line, problem.span.col)
                earlier = found[key][1].related if key in found else set()
                # What the code sets says more than a platform's default, and workers that start
                # by default more than an option that may start them.
                rank = (error, workers.option is None, not built_with, not holder_needs)
                if key not in found or rank > found[key][0]:
                    found[key] = (rank, diagnostic)
                found[key][1].related.update(earlier)
                add_related(found[key][1], (loader.module, frame.module))
        for _, diagnostic in found.values():
            yield diagnostic

    def _problems(self, project: Project, loader: LoaderCall, frame: Frame) -> Iterator[Tuple[Unpicklable, str, bool]]:
        """What the loader's workers receive that cannot be pickled: (the problem, the
        loader argument it comes in, whether the dataset holding it is built only under
        options the program's defaults do not set)."""
        for role in ROLES:
            for value in project.loaders.argument(loader, role, frame).values:
                if isinstance(value, FunctionObj):
                    problem = _unpicklable_function(value.function.module, value.function.function)
                    if problem is not None:
                        yield problem, role, False
        dataset = loader.argument("dataset")
        span = dataset.span if isinstance(dataset, (Name, Call)) else loader.call.span
        for instance in project.loaders.project_datasets(loader, frame):
            cls = instance.cls.cls
            if cls.nested:
                owner = cls.qualname.split(".<locals>.")[0]
                what = f"an object of `{cls.name}`, a class defined inside `{owner}`"
                yield Unpicklable(loader.module, span, what, cls.qualname), "dataset", False
        for held_by in project.loaders.datasets(loader, frame):
            if isinstance(held_by, ExternalInstance) and not library_dataset(held_by.qualified):
                continue  # a library object that is no dataset (a name looked up at run time may give one)
            held = [(value, _unpicklable_function(value.function.module, value.function.function))
                    for value in project.flow.callables_held_by(held_by)]
            held = [(value, problem) for value, problem in held if problem is not None]
            if not held:
                continue
            # One finding per dataset, at the callable it holds on every path if one does (a
            # transform list may hold others only under some options).
            # one the program's defaults keep first (the `else` arm of `if args.ten_crop:`)
            value, problem = min(held, key=lambda item: (
                bool(_options_keeping(project, item[0], held_by)), _behind_a_test(item[0]),
                item[0].function.module.path, item[1].span.line,
            ))
            if isinstance(held_by, ExternalInstance):
                holder = "a Hugging Face dataset" if from_hf_datasets(held_by.qualified) else f"`{dataset_name(held_by)}(...)`"
            else:
                holder = f"an object of `{dataset_name(held_by)}`"
            more = f", and {len(held) - 1} more it may hold" if len(held) > 1 else ""
            flags = _options_keeping(project, value, held_by)
            only = f", kept only when the program runs with {spelled_options(flags)}" if flags else ""
            what = f"{holder} holding {problem.what} ({where(value.function.module, problem.span)}{more}{only})"
            site = held_by.site
            holder_needs = site is not None and bool(options_needed_by(project.flow, [(site.call.guards, site.frame)]))
            yield replace(problem, what=what, fixable=False), "dataset", holder_needs

    def _diagnostic(
        self, project: Project, problem: Unpicklable, role: str, method: StartMethod, error: bool, where: Optional[str],
        condition: str = "", severity: str = "warning", evidence=(),
    ) -> Diagnostic:
        subject = f"the {role}" if role == "dataset" else f"`{role}`"
        raised = _exception(project, problem, forkserver_only=bool(where and where.startswith("under the forkserver")))
        if error:
            message = (
                f"{subject} is {problem.what}, which cannot be pickled: with the '{method.name}' start method "
                f"({start_method_where(method)}) starting the workers raises {raised}"
            )
        else:
            message = f"{subject} is {problem.what}, which cannot be pickled: {where} starting the workers raises {raised}"
        message += condition
        # Hoisted into a notebook, the function would still be unimportable by spawned workers (SDL012).
        fixable = problem.fixable and not problem.module.cells
        fix = Fix(FIX_KIND, problem.module.path, problem.span, True, (role,)) if fixable else None
        return self.report(problem.module, problem.span, message, fix, severity, evidence=evidence)


def _options_building(project: Project, frame: Frame, loader: LoaderCall) -> Tuple[str, ...]:
    """The options without which the loader is not built in this context: the ``if``s around
    its call and around each call on the way to its function (``if args.phase == "analysis":``)."""
    tests = [(loader.call.guards, frame)]
    outer = frame
    while outer.site is not None:
        tests.append((outer.site.call.guards, outer.site.frame))
        outer = outer.site.frame
    return options_needed_by(project.flow, tests)


def _options_keeping(project: Project, value: FunctionObj, holder=None) -> Tuple[str, ...]:
    """The options without which the statement that makes the function does not run: its
    ``if`` tests decided with every caller's arguments, or, when every call of the function
    that makes it is known, with each call's; the calls the holding dataset's own methods
    make when there are such (``self.T = build_transform(image_prep)`` keeps the lambda
    only for ``--train_img_prep no_resize``)."""
    module, function = value.function.module, value.function.function
    parent = module.functions.get(function.qualname.rsplit(".<", 1)[0]) if "." in function.qualname else None
    if parent is None:
        return ()
    flow = project.flow
    frame = flow.function_frame(module, parent)
    guards = [call.guards for call in parent.calls if contains(call.span, function.span) and call.guards]
    if not guards:
        return ()
    flags = options_needed_by(flow, [(each, frame) for each in guards])
    if flags:
        return flags
    calls, complete = flow.frames_per_call(frame)
    if not complete or not calls:
        return ()
    owner = holder.cls.cls.qualname + "." if isinstance(holder, Instance) else None
    own = [(site, called) for site, called in calls if owner and site.frame.module.path == holder.cls.module.path
           and site.frame.function.function.qualname.startswith(owner)]
    found: List[str] = []
    for _, called in own or calls:
        needed = options_needed_by(flow, [(each, called) for each in guards])
        if not needed:
            return ()  # some call keeps it with the defaults
        found += [flag for flag in needed if flag not in found]
    return tuple(found)


def _behind_a_test(value: FunctionObj) -> bool:
    """The statement that makes the function (``items.append(Lambda(lambda x: ...))``) runs
    only under an ``if``."""
    module, function = value.function.module, value.function.function
    parent = module.functions.get(function.qualname.rsplit(".<", 1)[0]) if "." in function.qualname else None
    if parent is None:
        return False
    around = [call for call in parent.calls if contains(call.span, function.span)]
    return any(call.guards for call in around)


def _exception(project: Project, problem: Unpicklable, forkserver_only: bool = False) -> str:
    """The exception pickle raises for this object on the project's Python versions (from
    3.14 only, where only forkserver can start the workers by pickling)."""
    if problem.local_name is None:
        return "`PicklingError: Can't pickle <function <lambda>>: attribute lookup <lambda> failed`"
    version = project.settings_for(problem.module.path).python_version
    if forkserver_only:
        version = version.intersect(range_of(">=3.14"))
    wordings = [
        (not version.may_be_at_least("3.13"), version.may_be_below("3.13"), "Python 3.12 and older",
         f"`AttributeError: Can't pickle local object '{problem.local_name}'`"),
        (version.within(PYTHON_3_13), version.overlaps(PYTHON_3_13), "Python 3.13",
         f"`AttributeError: Can't get local object '{problem.local_name}'`"),
        (not version.may_be_below("3.14"), version.may_be_at_least("3.14"), "Python 3.14",
         f"`PicklingError: Can't pickle local object <{problem.local_name}>`"),
    ]
    for only, _, _, raised in wordings:
        if only:
            return raised
    return " or ".join(f"{raised} ({label})" for _, possible, label, raised in wordings if possible)


def _unpicklable_function(module: ModuleFacts, function: Function) -> Optional[Unpicklable]:
    if function.is_lambda:
        local = ".<locals>." in function.qualname or function.nested
        qualname = _local_qualname(function) if local else None
        return Unpicklable(module, function.span, "a lambda", qualname, _hoistable(module, function))
    if function.nested:
        owner = function.qualname.split(".<locals>.")[0]
        return Unpicklable(module, function.span, f"`{function.name}`, a function defined inside `{owner}`", function.qualname)
    return None


def _local_qualname(function: Function) -> str:
    """How Python names a lambda defined in a function: ``make.<locals>.<lambda>``."""
    head = function.qualname.rsplit(".<lambda", 1)[0]
    return f"{head}.<locals>.<lambda>"


def _hoistable(module: ModuleFacts, function: Function) -> bool:
    """A lambda whose body and defaults read no local name of an enclosing function."""
    own = function.qualname
    for name in function.reads:
        if name.qualified is None and name.scope != own and not name.scope.startswith(own + "."):
            return False
    return not any(_reads_local(value) for _, value in function.defaults)


def _reads_local(value: Value) -> bool:
    return not isinstance(value, Const) and not (isinstance(value, Name) and value.qualified is not None)

