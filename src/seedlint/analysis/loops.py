"""Epoch loops: the loops that iterate a DataLoader once per pass.

A loader is *iterated* at a site: a ``for`` statement over it (also through
``enumerate``/``tqdm``/``zip``), an ``iter(loader)`` call, or a call of a project function
that iterates it (a loader passed as an argument, or one the function reaches itself,
such as ``self.train_loader``). What a ``for`` iterates is resolved by the value flow, so a
site knows the loader *object*: the call that built it and the frame it was built in
(``create_dataloader(..., rank=-1)`` builds one without a sampler).

The *epoch loop* of a site is the innermost loop around it that counts (``range``-like, or
a ``while``), skipping loops over literal lists such as ``for phase in ("train", "val")``
and loops over loaders. Calls are screened by spelling before a helper is followed:
a method on ``self``, or a call that passes something named like a loader, or one named
for training (``train_one_epoch``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import Dict, Iterator, List, Optional, Set

from seedlint.analysis.iteration_screen import IterationScreen, last_spelling
from seedlint.analysis.loader_holders import LoaderHolders, held
from seedlint.analysis.loaders import LoaderCall
from seedlint.analysis.objects import ExternalInstance, Frame, Instance, SeqObj
from seedlint.facts.model import MODULE_CODE, Attr, Call, Compare, Const, Function, IfExp, Loop, ModuleFacts, Name, Not, Seq, Span, Subscript, Value
from seedlint.span import contains

MAX_DEPTH = 6
"""Calls followed from an epoch loop into the helpers that iterate its loaders."""

ITERATION_WRAPPERS = frozenset({
    "enumerate", "iter", "zip", "list",
    "tqdm.tqdm", "tqdm.auto.tqdm", "tqdm.notebook.tqdm", "tqdm.std.tqdm",
    "rich.progress.track", "itertools.islice",
})
"""Callables that iterate what they are given, so ``for b in tqdm(loader)`` iterates ``loader``."""
WRAPPER_SPELLINGS = frozenset(name.rsplit(".", 1)[-1] for name in ITERATION_WRAPPERS)
RANGE_LIKE = frozenset({"range", "tqdm.trange", "tqdm.auto.trange", "tqdm.notebook.trange", "tqdm.std.trange"})
MAPPING_VIEWS = ("items", "keys", "values")
HELPER_SPELLINGS = ("epoch", "train", "loop", "fit", "valid", "eval")


@dataclass(frozen=True, eq=False)
class LoaderObject:
    """A loader as the program holds it: the call that built it, in the frame that ran it."""

    loader: LoaderCall
    frame: Frame


@dataclass(frozen=True, eq=False)
class Iteration:
    """A place where a function iterates a loader."""

    loader: LoaderObject
    span: Span
    """The ``for`` statement, the ``iter()`` call or the call of the helper that iterates it."""
    via: Optional[Frame] = None
    """The project function that iterates it, when the site is a call of that function."""
    iterated: Optional[Value] = None
    """The expression iterated (``loader`` in ``for batch in loader``), at a direct site."""


@dataclass(eq=False)
class EpochLoop:
    module: ModuleFacts
    function: Function
    frame: Frame
    loop: Loop
    iterations: List[Iteration] = field(default_factory=list)

    @property
    def loaders(self) -> List[LoaderObject]:
        seen: Dict[tuple, LoaderObject] = {}
        for iteration in self.iterations:
            seen.setdefault((id(iteration.loader.loader.call), iteration.loader.frame.key), iteration.loader)
        return list(seen.values())

    def in_iteration(self, span: Span) -> bool:
        """Whether ``span`` lies inside one of the loop's loader iterations."""
        return any(contains(iteration.span, span) for iteration in self.iterations)

    def calls(self) -> List[Call]:
        return self.loop.calls

    @property
    def varying(self) -> Set[str]:
        """Locals that change from one epoch to the next: the loop variables, and what the
        loop body assigns (a ``while`` advances its counter with ``+=``, not recorded)."""
        names: Set[str] = set()
        for loop in self.function.loops:
            if contains(self.loop.span, loop.span) and loop.target:
                names.add(loop.target.split(".", 1)[0])
        names.update(a.target for a in self.loop.assigns if "." not in a.target)
        if not self.loop.target and not isinstance(self.loop.iterable, Call):
            names.update(a.target for a in self.function.assigns if "." not in a.target)
        return names


class Loops:
    """Loader iterations and epoch loops of a project, computed once."""

    def __init__(self, project) -> None:
        self.project = project
        self.flow = project.flow
        self._by_call: Dict[int, LoaderCall] = {id(l.call): l for l in project.loaders.all}
        self._sites: Dict[tuple, List[Iteration]] = {}
        self._holders = LoaderHolders(loader.call for loader in project.loaders.all)
        self._holders_for = -1
        self._screen = IterationScreen(project.index, self._loaderish, WRAPPER_SPELLINGS)

    def _loaderish(self, value: Value, function: Optional[Function] = None) -> bool:
        """Spelled like a loader, or named like a variable or attribute the program binds
        to one of its loaders (``self.data = DataLoader(...)``, ``source, _ = build()``)."""
        return _loaderish(value, function) or held(value, self.holders())

    def holders(self) -> Set[str]:
        """The holder names over every module analysed so far (brought up to date when the
        value flow loads more)."""
        modules = self.project.index.modules
        if len(modules) != self._holders_for:
            self._holders_for = len(modules)
            self._holders.add_modules(list(modules.values()))
        return self._holders.names

    # ------------------------------------------------------------------ loader objects
    def loader_objects(self, values) -> List[LoaderObject]:
        found: List[LoaderObject] = []
        for obj in values:
            site = obj.site if isinstance(obj, (ExternalInstance, Instance)) else None
            if site is None:
                continue
            loader = self._by_call.get(id(site.call))
            if loader is not None:
                found.append(LoaderObject(loader, site.frame))
        return found

    def iterated(self, value: Value, frame: Frame) -> List[LoaderObject]:
        """The loaders a ``for`` iterable iterates, through ``enumerate``/``tqdm``/``zip`` and
        either branch of ``a if c else b``: any expression that may evaluate to a loader
        (``self.dataset``, ``dl``, ``tqdm(loader) if is_main else loader``), whatever its name."""
        found: List[LoaderObject] = []
        for inner in self._iterated_values(value, frame):
            if self._loaderish(inner, frame.function.function):
                found.extend(self.loader_objects(self.flow.eval(inner, frame)))
        return found

    def _iterated_values(self, value: Value, frame: Frame, bound: bool = True) -> List[Value]:
        """The expressions an iterable iterates; a local name bound to a wrapper
        (``tbar = tqdm(loader)``, then ``for b in tbar``) also iterates what the wrapper wraps."""
        if isinstance(value, IfExp):
            return self._iterated_values(value.body, frame, bound) + self._iterated_values(value.orelse, frame, bound)
        if isinstance(value, Call) and isinstance(value.func, Name) and value.func.dotted.rsplit(".", 1)[-1] in WRAPPER_SPELLINGS:
            names = self.flow.callee_names(value, frame)
            if names & ITERATION_WRAPPERS:
                inner = list(value.args) if "zip" in names else list(value.args[:1])
                return [v for item in inner for v in self._iterated_values(item, frame, bound)]
        if bound and isinstance(value, Name) and value.qualified is None and "." not in value.dotted:
            wrapped = [
                inner for a in frame.function.function.assigns if a.target == value.dotted and _wraps(_entered(a.value))
                for inner in self._iterated_values(_entered(a.value), frame, False)
            ]
            return [value] + wrapped
        return [value]

    # ------------------------------------------------------------------ iteration sites
    def sites(self, frame: Frame, depth: int = 0) -> List[Iteration]:
        """Every place ``frame``'s function iterates a loader it can name itself."""
        key = (frame.key, depth == 0)
        if key in self._sites:
            return self._sites[key]
        self._sites[key] = []
        function = frame.function.function
        found: List[Iteration] = []
        for loop in function.loops:
            found.extend(Iteration(obj, loop.span, iterated=loop.iterable) for obj in self.iterated(loop.iterable, frame))
        # A function's own epoch loops only need the calls inside loops; a helper's every call.
        calls = function.calls if depth else _unique([c for loop in function.loops for c in loop.calls])
        for call in calls:
            if isinstance(call.func, Name) and call.func.dotted == "iter" and call.args:
                found.extend(Iteration(obj, call.span, iterated=call.args[0]) for obj in self.iterated(call.args[0], frame))
                continue
            if depth >= MAX_DEPTH or not self._may_iterate_a_loader(function, call) or not self._may_reach(call):
                continue
            for callee, _ in self.flow.callee_frames(call, frame):
                for inner in self.sites(callee, depth + 1):
                    found.append(Iteration(inner.loader, call.span, callee))
        self._sites[key] = found
        return found

    def _may_iterate_a_loader(self, function: Function, call: Call) -> bool:
        """A cheap, spelling-only screen before a call is resolved."""
        func = call.func
        if not isinstance(func, Name):
            return False
        if func.qualified is None and function.params and func.root == function.params[0]:
            return True
        last = func.dotted.rsplit(".", 1)[-1].lower()
        if any(spelling in last for spelling in HELPER_SPELLINGS):
            return True
        return any(self._loaderish(v) for v in (*call.args, *(v for _, v in call.kwargs)))

    def _may_reach(self, call: Call) -> bool:
        """The project-wide spelling screen: a call of a project function or class that no
        loader iteration can be reached from is not followed. A call passing a loader, or
        one spelled like a helper but naming no project function (a callable held in an
        attribute or a parameter), still is."""
        name = last_spelling(call.func)
        if self._screen.reaches(name) or any(self._loaderish(v) for v in (*call.args, *(v for _, v in call.kwargs))):
            return True
        return not self._screen.known(name) and any(spelling in name.lower() for spelling in HELPER_SPELLINGS)

    # ------------------------------------------------------------------ single passes
    def iterated_once(self, loader: LoaderCall, context: Optional[Frame] = None) -> bool:
        """The program reads the loader in one pass: one ``for`` loop over it, or one
        iterator it makes (``it = iter(loader)``, then ``next(it)`` for every step), outside
        any other loop, in code that runs once: its workers start once and are never
        restarted. False when a loop around that pass, a second pass, or an ``iter()`` call
        inside a loop (or in a helper an epoch loop runs) reads it again, or when the code
        that builds the loader may run more than once (another consumer, maybe unseen, may
        then iterate it per epoch). With a ``context`` (a frame the loader's call is
        evaluated in), the loaders built in that context alone also count."""
        once, repeated = self._passes
        if id(loader.call) in once and id(loader.call) not in repeated:
            if self._runs_once(self.flow.function_frame(loader.module, loader.function)):
                return True
        return context is not None and self._iterated_once_in(loader, context)

    def _iterated_once_in(self, loader: LoaderCall, context: Frame) -> bool:
        """The same, for the loaders one context builds (a factory's ``make_data_loader(cfg,
        is_train=True)`` from the training script, while the evaluation calls it again at
        every evaluation): the passes over what that call built, and whether the call that
        runs the factory runs once."""
        once, repeated = self._passes
        key = (id(loader.call), context.key)
        if key not in once or key in repeated:
            return False
        site = context.site
        if site is None:
            return self._runs_once(context)
        caller = site.frame.function.function
        if any(contains(loop.span, site.call.span) for loop in caller.loops):
            return False
        return self._runs_once(site.frame)

    @cached_property
    def _passes(self):
        """The loaders read in exactly one pass, and those read again: each named both by
        its call (``id``) and by its call in the context that built it (``(id, frame key)``)."""
        passes: Dict[object, int] = {}
        repeated: Set[object] = {key for loop in self.epoch_loops for obj in loop.loaders for key in _keys(obj)}
        scanned = {module.path for module in self.project.modules if self.project.in_focus(module)}
        for module in self.project.modules:
            if not self.project.in_focus(module):
                continue
            for function in list(module.functions.values()):
                self._helper_passes(module, function, scanned, passes, repeated)
                iter_calls = [c for c in function.calls if isinstance(c.func, Name) and c.func.dotted == "iter" and c.args]
                if not function.loops and not iter_calls:
                    continue
                frame = self.flow.function_frame(module, function)
                reads = [(loop.span, loop.iterable) for loop in function.loops]
                reads += [(call.span, call.args[0]) for call in iter_calls]
                for span, iterable in reads:
                    made = [key for obj in self.iterated(iterable, frame) for key in _keys(obj)]
                    if not made:
                        continue
                    in_loop = any(contains(loop.span, span) and loop.span != span for loop in function.loops)
                    if not in_loop and _memoized_on_self(module, function, span):
                        pass  # one iterator per object, kept on it: ``if self._it is None: self._it = iter(...)``
                    elif in_loop or not self._runs_once(frame):
                        repeated.update(made)
                        continue
                    for call in made:
                        passes[call] = passes.get(call, 0) + 1
        return {call for call, count in passes.items() if count == 1}, repeated

    def _helper_passes(self, module: ModuleFacts, function: Function, scanned: Set[str], passes: Dict[object, int],
                       repeated: Set[object]) -> None:
        """The passes of a helper in a module the scan above does not read (``inference(
        test_loader, model)`` with ``inference`` in ``engine.py``), one call level down:
        each read of a loader there is a pass, repeated when the call or the read sits in a
        loop, or the caller may run more than once."""
        calls = [c for c in function.calls if any(self._loaderish(a, function) for a in list(c.args) + [v for _, v in c.kwargs])]
        if not calls:
            return
        frame = self.flow.function_frame(module, function)
        for call in calls:
            for callee, _ in self.flow.callee_frames(call, frame):
                helper = callee.function.function
                if callee.module.path in scanned:
                    continue
                iter_calls = [c for c in helper.calls if isinstance(c.func, Name) and c.func.dotted == "iter" and c.args]
                reads = [(loop.span, loop.iterable) for loop in helper.loops] + [(c.span, c.args[0]) for c in iter_calls]
                for span, iterable in reads:
                    made = [key for obj in self.iterated(iterable, callee) for key in _keys(obj)]
                    if not made:
                        continue
                    in_loop = any(contains(loop.span, span) and loop.span != span for loop in helper.loops)
                    if in_loop or any(contains(loop.span, call.span) for loop in function.loops) or not self._runs_once(frame):
                        repeated.update(made)
                        continue
                    for made_call in made:
                        passes[made_call] = passes.get(made_call, 0) + 1

    def _runs_once(self, frame: Frame, depth: int = 0) -> bool:
        """The function runs once per program: module code, or a function whose callers
        all call it outside any loop and run once themselves. A method's callers must all be
        known; a module-level function named too commonly for a full search (``main``,
        ``train``) is judged by the callers the analysed modules show."""
        function = frame.function.function
        if function.qualname == MODULE_CODE:
            return True
        if depth >= MAX_DEPTH:
            return False
        sites, complete = self.flow.callsites.of(frame)
        if not sites or not (complete or (not function.nested and (function.class_name is None or self._plain_method(frame)))):
            return False
        for site in sites:
            caller = site.frame.function.function
            if any(contains(loop.span, site.call.span) for loop in caller.loops):
                return False
            if not self._runs_once(self.flow.function_frame(site.frame.module, caller), depth + 1):
                return False
        return True

    def _plain_method(self, frame: Frame) -> bool:
        """A method of a class built on no library class (``class Workspace:``): no library
        calls it by protocol (as Lightning calls a DataModule's ``setup``), so its callers
        are the ones the analysed modules show, as for a module-level function."""
        owner = self.project.index.class_of(frame.function)
        if owner is None:
            return False
        chain = self.project.index.mro(owner)
        resolved = all(len(list(self.project.index.bases(item))) == len(item.cls.bases) for item in chain)
        library = [base for base in self.project.index.external_bases(owner) if base not in ("builtins.object", "object")]
        return resolved and not library

    # ------------------------------------------------------------------ epoch loops
    @cached_property
    def epoch_loops(self) -> List[EpochLoop]:
        return list(self._find_epoch_loops())

    def _find_epoch_loops(self) -> Iterator[EpochLoop]:
        for module in self.project.modules:
            if not self.project.in_focus(module):
                continue
            for function in list(module.functions.values()):
                if not function.loops:
                    continue
                frame = self.flow.function_frame(module, function)
                by_loop: Dict[int, EpochLoop] = {}
                for iteration in self.sites(frame):
                    loop = self.epoch_loop_of(frame, iteration.span, iteration.iterated)
                    if loop is None:
                        continue
                    entry = by_loop.setdefault(id(loop), EpochLoop(module, function, frame, loop))
                    entry.iterations.append(iteration)
                yield from by_loop.values()

    def epoch_loop_of(self, frame: Frame, site: Span, iterated: Optional[Value] = None) -> Optional[Loop]:
        """The loop whose passes iterate the loader at ``site`` again: not one whose passes
        each take another loader (``for loader in self.loaders: iter(loader)``)."""
        function = frame.function.function
        enclosing = [
            loop for loop in function.loops
            if loop.span != site and contains(loop.span, site) and not _in_header(loop, site)
            and not _takes_each(loop, iterated)
        ]
        candidates = [loop for loop in enclosing if self._counts_as_epochs(frame, loop)]
        if not candidates:
            return None
        candidates.sort(key=lambda loop: (loop.span.line, loop.span.col), reverse=True)
        for loop in candidates:
            if self._range_like(frame, loop):
                return loop
        return candidates[0]

    def _counts_as_epochs(self, frame: Frame, loop: Loop) -> bool:
        iterable = loop.iterable
        if isinstance(iterable, Seq):
            return False
        if isinstance(iterable, Name) and iterable.dotted.rsplit(".", 1)[-1] in MAPPING_VIEWS:
            return False
        if isinstance(iterable, Call) and isinstance(iterable.func, Name) and iterable.func.dotted.rsplit(".", 1)[-1] in MAPPING_VIEWS:
            return False
        if not loop.target and not isinstance(iterable, Call):
            return True  # a ``while`` statement
        if self.iterated(iterable, frame):
            return False
        values = self.flow.eval(iterable, frame)
        literal = [v for v in values if isinstance(v, SeqObj) and v.indexable and not v.open]
        return not (literal and len(literal) == len(values))  # a literal list of things: checkpoints, phases

    def _range_like(self, frame: Frame, loop: Loop) -> bool:
        if not loop.target and not isinstance(loop.iterable, Call):
            return True  # a ``while`` statement
        for value in self._iterated_values(loop.iterable, frame):
            candidates = [value]
            if isinstance(value, Name) and value.qualified is None:
                function = frame.function.function
                candidates += [a.value for a in function.assigns if a.target == value.dotted]
            for item in candidates:
                if isinstance(item, Call) and self.flow.callee_names(item, frame) & RANGE_LIKE:
                    return True
        return False


def _entered(value: Value) -> Value:
    """What ``with X as name`` binds ``name`` to, as the iteration sees it: ``X`` for
    ``X.__enter__()`` (``with tqdm(range(epochs)) as t``; tqdm enters as itself)."""
    if isinstance(value, Call) and isinstance(value.func, Attr) and value.func.attr == "__enter__" and not value.args:
        return value.func.value
    return value


def _wraps(value: Value) -> bool:
    """A call spelled like an iteration wrapper, or a choice between such calls."""
    if isinstance(value, IfExp):
        return _wraps(value.body) or _wraps(value.orelse)
    return isinstance(value, Call) and isinstance(value.func, Name) and value.func.dotted.rsplit(".", 1)[-1] in WRAPPER_SPELLINGS


def _loaderish(value: Value, function: Optional[Function] = None) -> bool:
    """Whether an expression is spelled like a loader (``train_loader``, ``dataloader``,
    ``self.train_dataloader()``), or is a local bound to a call spelled so."""
    if isinstance(value, Subscript):
        value = value.value
    if isinstance(value, Call):
        value = value.func
    if not isinstance(value, Name):
        return False
    spelled = value.dotted.lower()
    if "loader" in spelled or spelled.rsplit(".", 1)[-1] in ("dl", "dls", "loaders"):
        return True
    if function is not None and value.qualified is None and "." not in value.dotted:
        return any(
            a.target == value.dotted and isinstance(a.value, Call) and _loaderish(a.value) for a in function.assigns
        )
    return False


def _takes_each(loop: Loop, iterated: Optional[Value]) -> bool:
    """The iterated expression is (an attribute of) the loop's own target: each pass
    iterates another object."""
    root = iterated
    while isinstance(root, (Attr, Subscript)):
        root = root.value
    if isinstance(root, Name) and root.qualified is None:
        targets = {name.strip() for name in loop.target.replace("(", " ").replace(")", " ").split(",")}
        return root.dotted.split(".", 1)[0] in targets
    return False


def _in_header(loop: Loop, site: Span) -> bool:
    """``site`` is in the expression the loop iterates (``for x in log_every(loader)``):
    it runs once before the loop, not in each of its iterations."""
    iterable = loop.iterable
    return isinstance(iterable, Call) and contains(iterable.span, site)


def _unique(calls: List[Call]) -> List[Call]:
    seen: Dict[int, Call] = {}
    for call in calls:
        seen.setdefault(id(call), call)
    return list(seen.values())


def _memoized_on_self(module: ModuleFacts, function: Function, span: Span) -> bool:
    """The ``iter()`` call at ``span`` is kept on the object the method runs for and made
    only while none is kept (``if self._it is None: self._it = iter(self.loader)``), and no
    other method but ``__init__`` sets that attribute again: at most one iterator per object."""
    if function.class_name is None or not function.params:
        return False
    receiver = function.params[0]
    for assign in function.assigns:
        if not (isinstance(assign.value, Call) and assign.value.span == span):
            continue
        target = assign.target
        if not target.startswith(receiver + ".") or target.count(".") != 1:
            return False
        if not any(_tests_unset(test, expected, target) for test, expected in assign.guards):
            return False
        attribute = target.split(".", 1)[1]
        methods = [f for f in module.functions.values() if f.class_name == function.class_name and f.params and not f.nested]
        for other in methods:
            if other.name == "__init__" or _only_from_init(other, methods):
                continue
            for written in other.assigns:
                if written.target == f"{other.params[0]}.{attribute}" and written.span != assign.span:
                    return False
        return True
    return False


def _only_from_init(method: Function, methods: List[Function]) -> bool:
    """A method of the class called only from its ``__init__`` (``self.setup()``), by spelling."""
    callers = [f for f in methods for c in f.calls
               if isinstance(c.func, Name) and c.func.dotted == f"{f.params[0]}.{method.name}"]
    return bool(callers) and all(f.name == "__init__" for f in callers)


def _tests_unset(test: Value, expected: bool, target: str) -> bool:
    """``target is None`` (or ``not target``, ``not hasattr(self, "attr")``) holding."""
    if isinstance(test, Compare) and test.op in ("is", "==") and isinstance(test.right, Const) and test.right.value is None:
        return expected and isinstance(test.left, Name) and test.left.dotted == target
    if isinstance(test, Not):
        return _tests_unset(test.value, not expected, target)
    if isinstance(test, Name) and test.dotted == target:
        return not expected
    if (isinstance(test, Call) and isinstance(test.func, Name) and test.func.dotted == "hasattr" and len(test.args) == 2
            and isinstance(test.args[0], Name) and isinstance(test.args[1], Const)):
        return not expected and f"{test.args[0].dotted}.{test.args[1].value}" == target
    return False


def _keys(obj: LoaderObject) -> tuple:
    """A read loader's names in the pass counts: its call, and its call in its context."""
    return id(obj.loader.call), (id(obj.loader.call), obj.frame.key)
