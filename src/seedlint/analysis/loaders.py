"""DataLoader calls, the contexts they run in, and their arguments as the value flow sees them.

A *loader* is a call of ``torch.utils.data.DataLoader`` (any spelling), of a project
subclass of it, or of a class configured with ``extra-loader-classes``. A loader inside a
function runs once per caller: ``contexts`` gives one frame per call site (or per
construction of the object whose method builds it), so each rule judges the dataset,
workers and ``worker_init_fn`` that one path really passes. Arguments are read from the
call itself, from ``**kwargs`` dicts, and through a subclass's ``super().__init__(...)``.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Dict, List, Optional, Tuple

from seedlint.analysis.callsites import spelled
from seedlint.analysis.flow import union
from seedlint.analysis.index import ClassRef, FunctionRef
from seedlint.analysis.objects import (
    UNKNOWN,
    ClassObj,
    ConfiguredConstant,
    Constant,
    DictObj,
    DocumentedConstant,
    Entry,
    External,
    ExternalInstance,
    Frame,
    FromCommandLine,
    FunctionObj,
    Instance,
    Obj,
    Site,
    Values,
    may_be_unknown,
    ordered,
)
from seedlint.facts.model import MODULE_CODE, Attr, Call, Function, ModuleFacts, Name, Value
from seedlint.analysis.library_loops import loop_argument, loop_of
from seedlint.knowledge.library_loaders import library_loop
from seedlint.knowledge.library_rngs import LIBRARY_LOADERS, LOADERS_KEEPING_THEIR_WORKERS, THREAD_WORKER_SWITCHES, TORCH_SIGNATURE

TORCH_LOADERS = frozenset({"torch.utils.data.DataLoader", "torch.utils.data.dataloader.DataLoader"})
TORCH_POSITIONS = TORCH_SIGNATURE
DEFAULTS = {
    "batch_size": 1, "shuffle": None, "sampler": None, "batch_sampler": None, "num_workers": 0, "collate_fn": None,
    "pin_memory": False, "drop_last": False, "timeout": 0, "worker_init_fn": None, "multiprocessing_context": None,
    "generator": None, "prefetch_factor": None, "persistent_workers": False,
}
MAX_CONTEXTS = 64
"""Callers (or constructions) a loader is judged under one by one; more, and it is judged
once with its parameters merged."""
MAX_SUBCLASS_DEPTH = 4


@dataclass(frozen=True, eq=False)
class LoaderCall:
    module: ModuleFacts
    function: Function
    call: Call
    positional: bool
    """True when positions follow torch's own DataLoader signature."""
    owner: Optional[ClassRef] = None
    """For the base-class initialiser call inside a loader subclass that the project never
    builds itself (a config file names it): the subclass, whose object ``self`` is."""
    library: str = ""
    """The library loader class the call builds (``monai.data.DataLoader``), if one."""
    shared_positions: Tuple[Tuple[str, int], ...] = ()
    """When the call may build one of several known loader classes (``loader_class =
    timm.data.loader.MultiEpochsDataLoader if multi else monai.data.DataLoader``): the
    parameters every one of them takes at the same position."""
    classes: Tuple[str, ...] = ()
    """Those classes (qualified names), when the call may build several."""

    @property
    def positions(self) -> Dict[str, int]:
        if self.positional:
            return TORCH_POSITIONS
        return LIBRARY_LOADERS.get(self.library) or dict(self.shared_positions)

    def argument(self, name: str) -> Optional[Value]:
        """The expression written for a parameter in the call itself."""
        return self.call.argument(name, self.positions.get(name))

    @property
    def arguments_unknown(self) -> bool:
        return self.call.star_args or self.call.star_kwargs


@dataclass(frozen=True)
class Argument:
    """What a loader parameter may be in one context."""

    values: Values
    """Objects it may be; the default when it may be absent; UNKNOWN when the analysis cannot tell."""
    explicit: Optional[Value]
    """The expression passed in the call itself, if any."""

    @property
    def unknown(self) -> bool:
        return may_be_unknown(self.values)

    def constants(self) -> List[object]:
        return [v.value for v in self.values if isinstance(v, Constant)]

    @property
    def all_constant(self) -> bool:
        return bool(self.values) and all(isinstance(v, Constant) for v in self.values)


@dataclass(frozen=True)
class Workers:
    """How many worker processes a loader may start."""

    counts: Tuple[object, ...]
    unknown: bool
    documented: Tuple[DocumentedConstant, ...] = ()
    """The positive counts documented commands pass, when only they start workers (the
    option's default starts none)."""
    option: Optional[str] = None
    """The command-line option (``--num_workers``) that alone may start workers: its default
    and every documented command start none."""
    configured: Tuple[ConfiguredConstant, ...] = ()
    """The positive counts configuration files set (``num_workers: 8``), with their places."""

    @property
    def may_be_positive(self) -> bool:
        return self.unknown or any(_positive(c) for c in self.counts)

    @property
    def may_be_several(self) -> bool:
        """Two or more (what duplication across workers needs)."""
        return self.unknown or any(isinstance(c, int) and not isinstance(c, bool) and c >= 2 for c in self.counts) or any(
            not isinstance(c, (int, type(None))) for c in self.counts
        )


def _positive(count: object) -> bool:
    if count is None or count is False:
        return False
    if isinstance(count, (int, float)):
        return count > 0
    return True


class Loaders:
    def __init__(self, project) -> None:
        self.project = project
        self.flow = project.flow
        self.index = project.index
        self._contexts: Dict[int, List[Frame]] = {}
        self._arguments: Dict[tuple, Argument] = {}

    # ------------------------------------------------------------------ finding loaders
    @cached_property
    def classes(self) -> frozenset:
        return TORCH_LOADERS | frozenset(LIBRARY_LOADERS) | frozenset(self.project.settings.extra_loader_classes)

    @cached_property
    def spellings(self) -> frozenset:
        return frozenset(name.rsplit(".", 1)[-1] for name in self.classes)

    @cached_property
    def all(self) -> List[LoaderCall]:
        found = []
        for module in self.project.modules:
            if not self.project.in_focus(module) or self.project.unloaded.never_runs(module):
                continue
            built: List[LoaderCall] = []
            for function, call in module.all_calls():
                kind = self.loader_kind(module, function, call)
                loop = None if kind is not None else loop_of(self.flow, module, function, call)
                if (kind is None and loop is None) or self.project.unnamed_functions.never_called(module, function):
                    continue
                if kind is not None:
                    library, shared, classes = self._classes_built(module, function, call)
                    built.append(LoaderCall(module, function, call, kind, library=library, shared_positions=shared, classes=classes))
                else:
                    built.append(LoaderCall(module, function, call, False, library=sorted(loop.classes)[0]))
            if built and self.project.start_failures.unreached(module) is None:
                found.extend(built)
        found.extend(self._initialisers_of_unbuilt_subclasses())
        return found

    def _initialisers_of_unbuilt_subclasses(self) -> List[LoaderCall]:
        """``DataLoader.__init__(self, ...)`` or ``super().__init__(...)`` in a loader
        subclass the project never constructs (a YAML config or a registry string names it):
        that call is the only place its arguments are written."""
        found = []
        for module in self.project.modules:
            if not self.project.in_focus(module):
                continue
            for cls in module.classes.values():
                ref = ClassRef(module, cls)
                init_name = cls.methods.get("__init__")
                if init_name is None or not self.is_loader_class(ref):
                    continue
                instances, _ = self.flow.callsites.constructions(ref)
                if instances:
                    continue
                init = module.functions[init_name]
                frame = self.flow.method_frame(FunctionRef(module, init), Instance(ref, None))
                for call in init.calls:
                    if spelled(call.func) != "__init__":
                        continue
                    for target in self.flow.callee_objects(call, frame):
                        if isinstance(target, External) and target.qualified.rsplit(".", 1)[0] in self.classes:
                            positional = target.qualified.rsplit(".", 1)[0] in TORCH_LOADERS
                            found.append(LoaderCall(module, init, _without_explicit_self(call), positional, ref))
                            break
        return found

    def loader_kind(self, module: ModuleFacts, function: Function, call: Call) -> Optional[bool]:
        """True for torch's DataLoader, False for a subclass or configured class, None for
        anything else. Screened by spelling before anything is resolved."""
        if not self._spelled_like_a_loader(call.func, function):
            return None
        frame = self.flow.function_frame(module, function)
        kinds = set()
        for obj in self.flow.callee_objects(call, frame):
            if isinstance(obj, External) and obj.qualified in self.classes:
                kinds.add(obj.qualified in TORCH_LOADERS)
            elif isinstance(obj, ClassObj) and self.is_loader_class(obj.cls):
                kinds.add(self.index.method(obj.cls, "__init__") is None)
        if not kinds:
            return None
        return all(kinds)

    def _classes_built(
        self, module: ModuleFacts, function: Function, call: Call
    ) -> Tuple[str, Tuple[Tuple[str, int], ...], Tuple[str, ...]]:
        """What a loader call builds: the library loader class when it can build only that
        one (else ""), and, when it may build one of several known loader classes, the
        positions they share and the classes."""
        frame = self.flow.function_frame(module, function)
        objects = list(self.flow.callee_objects(call, frame))
        names = {obj.qualified for obj in objects if isinstance(obj, External)}
        found = sorted(names & set(LIBRARY_LOADERS))
        library = found[0] if len(found) == 1 and len(names) == 1 else ""
        tables = {}
        for obj in objects:
            if isinstance(obj, External) and obj.qualified in TORCH_LOADERS:
                tables[obj.qualified] = TORCH_POSITIONS
            elif isinstance(obj, External) and obj.qualified in LIBRARY_LOADERS:
                tables[obj.qualified] = LIBRARY_LOADERS[obj.qualified]
            else:
                return library, (), ()
        if len(tables) < 2:
            return library, (), ()
        first, *others = tables.values()
        shared = tuple(sorted((name, at) for name, at in first.items() if all(table.get(name) == at for table in others)))
        return library, shared, tuple(sorted(tables))

    def accepts_keyword(self, loader: LoaderCall, name: str) -> bool:
        """Every class the call may build takes ``name=`` and hands it on to torch's
        DataLoader: torch's own, a subclass without an ``__init__``, or one whose
        ``__init__`` names the parameter or forwards its ``**kwargs`` to the base
        initialiser (``super().__init__(*args, **kwargs)``)."""
        if loader.owner is not None:
            return False
        frame = self.flow.function_frame(loader.module, loader.function)
        classes = list(self.flow.callee_objects(loader.call, frame))
        if not classes:
            return False
        for obj in classes:
            if isinstance(obj, External) and obj.qualified in TORCH_LOADERS:
                continue
            if not (isinstance(obj, ClassObj) and self.is_loader_class(obj.cls)):
                return False
            init = self.index.method(obj.cls, "__init__")
            if init is not None and not _takes_and_forwards(init.function, name):
                return False
        return True

    def _spelled_like_a_loader(self, func: Value, function: Function) -> bool:
        """The cheap screen: the callee is spelled (or imported) as a loader, or is a local
        name bound to something spelled so (``loader_cls = DataLoader``)."""
        if not isinstance(func, Name):
            return False
        names = {func.dotted.rsplit(".", 1)[-1]}
        if func.qualified is not None:
            names.add(func.qualified.rsplit(".", 1)[-1])
        elif "." not in func.dotted:
            for assign in function.assigns:
                if assign.target == func.dotted:
                    names.update(_spelled_names(assign.value))
        return any(name in self.spellings or "Loader" in name for name in names)

    def is_loader_class(self, cls: ClassRef) -> bool:
        return any(base in self.classes for base in self.index.external_bases(cls))

    # ------------------------------------------------------------------ contexts
    def contexts(self, loader: LoaderCall) -> List[Frame]:
        """The frames the loader's call is evaluated in: one per caller of its function (or
        per object whose method builds it), or the function called from anywhere. A context
        in which an ``if`` around the call certainly fails builds no loader (a factory's
        ``else:`` branch that a training script, having started its process group, never takes)."""
        key = id(loader.call)
        found = self._contexts.get(key)
        if found is None:
            # A loader under a torch-version test that fails (``if torch.__version__ >= "1.8":``
            # on a project pinned to 1.7) is never built.
            built = all(self.flow.version_truth(test, self.flow.function_frame(loader.module, loader.function)) in (None, expected)
                        for test, expected in loader.call.guards)
            frames = self._find_contexts(loader) if built else []
            found = self._contexts[key] = [frame for frame in frames if self.flow.guards_may_hold(loader.call.guards, frame)]
        return found

    def _find_contexts(self, loader: LoaderCall) -> List[Frame]:
        function = FunctionRef(loader.module, loader.function)
        if loader.owner is not None:
            return [self.flow.method_frame(function, Instance(loader.owner, None))]
        base = self.flow.function_frame(loader.module, loader.function)
        if loader.function.qualname == MODULE_CODE or loader.function.is_lambda:
            return [base]
        if not _reads_parameters(loader):
            return [base]  # what the call passes does not depend on who calls the function
        if self.flow.receiver_param(function):
            owner = self.index.class_of(function)
            instances, complete = self.flow.callsites.constructions(owner) if owner is not None else ([], False)
            if 1 <= len(instances) <= MAX_CONTEXTS:
                return [self.flow.method_frame(function, instance) for instance in instances]
            return [base]
        if not loader.function.params:
            return [base]
        sites, complete = self.flow.callsites.of(base)
        if 1 <= len(sites) <= MAX_CONTEXTS:
            return [self.flow.frame(function, None, site) for site in sites]
        return [base]

    # ------------------------------------------------------------------ arguments
    def argument(self, loader: LoaderCall, name: str, frame: Frame) -> Argument:
        key = (id(loader.call), frame.key, name)
        found = self._arguments.get(key)
        if found is None:
            found = self._arguments[key] = self._argument(loader, name, frame)
        return found

    def _argument(self, loader: LoaderCall, name: str, frame: Frame) -> Argument:
        loop = library_loop(loader.library)
        if loop is not None:
            keyword = loop.parameters.get(name)
            written = loader.call.argument(*keyword) if keyword is not None else None
            return Argument(loop_argument(self.flow, loop, loader.call, name, frame, DEFAULTS.get(name)), written)
        explicit = loader.argument(name)
        if not loader.positional and explicit is None:
            through = self._through_subclass(loader, frame)
            if through is not None:
                call, inner, positional = through
                return Argument(self._call_argument(call, inner, name, positional), None)
        if explicit is not None:
            return Argument(self.flow.narrowed(self.flow.eval(explicit, frame), explicit, loader.call.guards, frame), explicit)
        return Argument(self._call_argument(loader.call, frame, name, loader.positional, written=False, positions=loader.positions), None)

    def _call_argument(self, call: Call, frame: Frame, name: str, positional: bool, written: bool = True,
                       positions: Optional[Dict[str, int]] = None) -> Values:
        """The values ``call`` passes for a DataLoader parameter (the default when absent)."""
        positions = positions if positions is not None else (TORCH_POSITIONS if positional else {})
        position = positions.get(name)
        value = call.argument(name, position) if written else None
        if value is not None:
            return self.flow.eval(value, frame)
        site = Site(frame, call)
        if position is not None:
            arguments, closed = self.flow.positional_arguments(site)
            if position < len(arguments):
                value, inner = arguments[position]
                return self.flow.eval(value, inner)
            if not closed:
                return frozenset({UNKNOWN, Constant(DEFAULTS.get(name))})
        found: List[Values] = []
        maybe_absent = True
        maybe_unknown = call.star_kwargs and not call.double_stars
        for value, inner in site.double_stars():
            for obj in self.flow.eval(value, inner):
                if not isinstance(obj, DictObj):
                    maybe_unknown = True
                    continue
                for entry in self.flow.dict_entries(obj):
                    if entry.key == name:
                        found.append(self.flow.eval(entry.value, entry.frame))
                        maybe_absent = maybe_absent and not _unconditional(entry)
                    elif entry.key is Entry.ANY:
                        maybe_unknown = True
                maybe_unknown = maybe_unknown or obj.open
        if maybe_unknown:
            found.append(frozenset({UNKNOWN}))
        if maybe_absent or not found:
            found.append(frozenset({Constant(DEFAULTS.get(name))}))
        return union(found)

    def _through_subclass(self, loader: LoaderCall, frame: Frame) -> Optional[Tuple[Call, Frame, bool]]:
        """For a project subclass with its own ``__init__``: the ``super().__init__(...)``
        call that reaches torch's DataLoader, and the frame it runs in."""
        classes = [o.cls for o in self.flow.callee_objects(loader.call, frame) if isinstance(o, ClassObj)]
        if len(classes) != 1:
            return None
        site = Site(frame, loader.call, 1)
        receiver = Instance(classes[0], Site(frame, loader.call))
        init = self.index.method(classes[0], "__init__")
        for _ in range(MAX_SUBCLASS_DEPTH):
            if init is None:
                return None
            init_frame = self.flow.frame(init, receiver, site)
            next_init = None
            for call in init.function.calls:
                if spelled(call.func) != "__init__":
                    continue
                for target in self.flow.callee_objects(call, init_frame):
                    if isinstance(target, External) and target.qualified.rsplit(".", 1)[0] in self.classes:
                        return _without_explicit_self(call), init_frame, True
                    if isinstance(target, FunctionObj) and target.function.function.name == "__init__":
                        next_init, next_site = target.function, Site(init_frame, call, 1 if target.receiver is not None else 0)
            if next_init is None:
                return None
            init, site = next_init, next_site
        return None

    # ------------------------------------------------------------------ questions
    def workers(self, loader: LoaderCall, frame: Frame) -> Workers:
        """The counts the loader may start with. A command-line option counts as its default
        and the values the project's documented commands pass it (``documented_commands``);
        when only some other value of the option would start workers, ``option`` names it.
        A library loader whose workers are certainly threads (``use_thread_workers=True``)
        starts no worker processes."""
        switch = THREAD_WORKER_SWITCHES.get(loader.library)
        if switch is not None:
            threads = self.argument(loader, switch, frame).values
            if threads and all(isinstance(v, Constant) and v.value for v in threads):
                return Workers((0,), False)
        values = self.argument(loader, "num_workers", frame).values
        free = [v for v in ordered(values) if isinstance(v, FromCommandLine)]
        known = frozenset(v for v in values if not isinstance(v, FromCommandLine))
        counts = tuple(v.value for v in ordered(known) if isinstance(v, Constant))
        unknown = any(not isinstance(v, Constant) for v in known)
        by_default = any(_positive(v.value) for v in known if isinstance(v, Constant) and not isinstance(v, DocumentedConstant))
        documented = tuple(v for v in ordered(known) if isinstance(v, DocumentedConstant) and _positive(v.value))
        if unknown or by_default:
            documented = ()
        option = None
        if free and not (unknown or by_default or documented):
            option = free[0].option or "a command-line option"
            unknown = True
        elif not known:
            unknown = True
        configured = tuple(v for v in ordered(known) if isinstance(v, ConfiguredConstant) and _positive(v.value))
        return Workers(counts, unknown, documented, option, configured)

    def datasets(self, loader: LoaderCall, frame: Frame) -> List[Obj]:
        """The dataset objects the loader may load: objects of project classes, and objects
        of library classes (``ImageFolder(root, transform=...)``), whose worker code is the
        project callables they hold."""
        return [v for v in ordered(self.argument(loader, "dataset", frame).values) if isinstance(v, (Instance, ExternalInstance))]

    def project_datasets(self, loader: LoaderCall, frame: Frame) -> List[Instance]:
        return [v for v in ordered(self.argument(loader, "dataset", frame).values) if isinstance(v, Instance)]

    def worker_init(self, loader: LoaderCall, frame: Frame) -> Argument:
        """The ``worker_init_fn`` values; an object with a ``__call__`` method is that method, bound."""
        argument = self.argument(loader, "worker_init_fn", frame)
        return Argument(self.flow.as_called(argument.values), argument.explicit)

    def persistent(self, loader: LoaderCall, frame: Frame) -> Optional[bool]:
        """True or False when ``persistent_workers`` certainly is; None when it may be either."""
        truths = set()
        for value in self.argument(loader, "persistent_workers", frame).values:
            if not isinstance(value, Constant):
                return None
            truths.add(bool(value.value))
        return truths.pop() if len(truths) == 1 else None

    def keeps_one_iterator(self, loader: LoaderCall, frame: Frame) -> bool:
        """Every class the call may build is a subclass that starts its workers once, in
        ``__init__`` (``self.iterator = super().__iter__()``, as YOLO's ``InfiniteDataLoader``
        does), and serves every pass from that iterator: its workers are never restarted,
        whatever ``persistent_workers`` says. So does a library loader known to
        (``LOADERS_KEEPING_THEIR_WORKERS``: timm's ``MultiEpochsDataLoader``)."""
        if loader.library in LOADERS_KEEPING_THEIR_WORKERS:
            return True
        classes = list(self.flow.callee_objects(loader.call, frame))
        if loader.owner is not None:
            classes = [ClassObj(loader.owner)]
        if not classes:
            return False
        for obj in classes:
            if not (isinstance(obj, ClassObj) and self.is_loader_class(obj.cls)):
                return False
            init = self.index.method(obj.cls, "__init__")
            if init is None or not any(
                assign.target.startswith("self.") and _makes_base_iterator(assign.value) for assign in init.function.assigns
            ):
                return False
        return True

    def built_in(self, loader: LoaderCall) -> str:
        return f"{loader.module.path}:{loader.call.span.line}"


def _makes_base_iterator(value: Value) -> bool:
    """``super().__iter__()``, ``DataLoader.__iter__(self)`` or ``iter(super())``."""
    if not isinstance(value, Call):
        return False
    func = value.func
    if isinstance(func, Attr) and func.attr == "__iter__":
        return isinstance(func.value, Call) and isinstance(func.value.func, Name) and func.value.func.dotted == "super"
    if isinstance(func, Name) and func.dotted.endswith(".__iter__"):
        return True
    if isinstance(func, Name) and func.dotted == "iter" and value.args:
        first = value.args[0]
        return isinstance(first, Call) and isinstance(first.func, Name) and first.func.dotted == "super"
    return False


def _takes_and_forwards(init: Function, name: str) -> bool:
    """``__init__`` names the parameter, or passes its ``**kwargs`` to a base initialiser."""
    kinds = dict(zip(init.params, init.param_kinds))
    if kinds.get(name) in ("normal", "kwonly"):
        return True
    packed = [p for p, kind in kinds.items() if kind == "starstar"]
    if not packed:
        return False
    for call in init.calls:
        initialiser = (isinstance(call.func, Name) and call.func.dotted.endswith(".__init__")) or (
            isinstance(call.func, Attr) and call.func.attr == "__init__"
        )
        if not (call.star_kwargs and initialiser):
            continue
        if any(isinstance(v, Name) and v.dotted == packed[0] for v in call.double_stars):
            return True
    return False


def _without_explicit_self(call: Call) -> Call:
    """``DataLoader.__init__(self, ds, ...)`` as the arguments the loader receives (a
    ``super().__init__(...)`` call passes no ``self``)."""
    if not (isinstance(call.func, Name) and call.args):
        return call
    return Call(call.func, call.args[1:], call.kwargs, call.span, call.star_args, call.star_kwargs,
                call.keyword_spans, call.stars, call.double_stars, call.guards)


def _spelled_names(value: Value) -> set:
    """The last identifiers of the names an expression may be (``A if cond else B``)."""
    from seedlint.facts.model import IfExp

    if isinstance(value, Name):
        return {value.dotted.rsplit(".", 1)[-1]}
    if isinstance(value, IfExp):
        return _spelled_names(value.body) | _spelled_names(value.orelse)
    return set()


def _reads_parameters(loader: LoaderCall) -> bool:
    """Whether the loader call's arguments read a parameter of its function (``self``
    included), directly or through a local assigned from one."""
    function = loader.function
    params = set(function.params)
    derived = set(params)
    for assign in function.assigns:
        if "." not in assign.target and _names(assign.value) & params:
            derived.add(assign.target)
    call = loader.call
    values = (*call.args, *(v for _, v in call.kwargs), *call.stars, *call.double_stars)
    return any(_names(v) & derived for v in values)


def _names(value: Value, depth: int = 0) -> set:
    """Roots of the local names an expression reads."""
    from seedlint.facts.model import Attr, BinOp, DictDisplay, IfExp, Seq, Subscript

    if depth > 6:
        return set()
    if isinstance(value, Name):
        return {value.root} if value.qualified is None else set()
    parts: list = []
    if isinstance(value, Call):
        parts = [value.func, *value.args, *(v for _, v in value.kwargs), *value.stars, *value.double_stars]
    elif isinstance(value, Attr):
        parts = [value.value]
    elif isinstance(value, Subscript):
        parts = [value.value, value.index]
    elif isinstance(value, BinOp):
        parts = [value.left, value.right]
    elif isinstance(value, IfExp):
        parts = [value.body, value.orelse]
    elif isinstance(value, Seq):
        parts = list(value.items)
    elif isinstance(value, DictDisplay):
        parts = [*value.values, *value.stars]
    found: set = set()
    for part in parts:
        found |= _names(part, depth + 1)
    return found


def _unconditional(entry: Entry) -> bool:
    return entry.key is not Entry.ANY and not entry.spread
