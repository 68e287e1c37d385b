"""Worker code: the functions a DataLoader worker process runs for one dataset object,
and the random draws they make.

That is ``__getitem__``, ``__getitems__``, ``__iter__`` and ``__next__`` of the object's
class and its bases, and everything they call, as the value flow resolves it: methods on
``self``, module functions, transforms held by the object (``self.transform(x)`` whatever
constructor parameter or pipeline built it), callables handed to library calls
(``Compose([...])``, ``map(f, xs)``). A call behind an ``if`` whose test cannot hold for
this object (``if self.augment:`` where its construction passes ``augment=False``) is
not followed.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Dict, List, Optional, Set, Tuple

from seedlint.analysis.draw_uses import discarded
from seedlint.analysis.index import FunctionRef
from seedlint.analysis.objects import (
    ClassObj,
    Constant,
    External,
    ExternalInstance,
    Frame,
    FromCommandLine,
    FunctionObj,
    Instance,
    MethodOf,
    Obj,
    OptionConstant,
    SeqObj,
    Site,
    ordered,
)
from seedlint.facts.model import EXCEPT, UNKNOWN, Attr, BinOp, Call, Const, Name, Subscript
from seedlint.analysis.flow.shared import _inside
from seedlint.knowledge import global_draws
from seedlint.knowledge.library_hooks import called_hooks
from seedlint.knowledge.kept_callables import CALLED_BY_LIBRARY_GETITEM, library_dataset
from seedlint.knowledge.library_rngs import HeldRng, class_name, draws_itself, held_rng_of, is_container, reseeded_by
from seedlint.versions import range_from_specifiers
from seedlint.rng import (
    RNG_OBJECT,
    RNG_OBJECT_CONSTRUCTORS,
    RNG_OBJECT_DRAW_METHODS,
    RNG_OBJECT_RESEEDING_METHODS,
    TORCH,
    global_stream,
)

ENTRY_METHODS = ("__getitem__", "__getitems__", "__iter__", "__next__")
CALLABLE_METHODS = ("__call__", "forward")
HIGHER_ORDER = frozenset({
    "map", "filter", "sorted", "functools.reduce", "itertools.starmap", "numpy.apply_along_axis", "numpy.vectorize",
})
"""Library functions that call the callables they are given."""
MAX_FUNCTIONS = 300
"""Functions one dataset's worker code may reach before the walk stops."""


@dataclass(frozen=True, eq=False)
class Reached:
    """A function worker code runs, in the frame it runs in, and how the walk got there."""

    frame: Frame
    via: Optional["Reached"] = None
    call: Optional[Call] = None
    """The call in ``via`` that runs this function."""

    @property
    def function(self) -> FunctionRef:
        return self.frame.function


@dataclass(frozen=True, eq=False)
class Draw:
    """A call in worker code that draws random numbers."""

    reached: Reached
    call: Call
    stream: str
    """rng.NUMPY, rng.PYTHON_RANDOM, rng.TORCH, or rng.RNG_OBJECT."""
    rng: Optional[ExternalInstance] = None
    """For RNG_OBJECT: the object drawn from."""
    held: Optional[ExternalInstance] = None
    """The library object that draws when the call runs it (``RandomResizedCrop(224)`` in
    the ``Compose`` that ``self.transform(image)`` calls)."""

    @property
    def spelled(self) -> str:
        call = self.held.site.call if self.held is not None else self.call
        return call.func.dotted if isinstance(call.func, Name) else "..."

    @property
    def on_error_path(self) -> bool:
        """The draw runs only after an exception (``except: return np.random.rand(...)``),
        or picks another item of the dataset in place of one it could not read
        (``return self[np.random.randint(len(self))]``): a retry, not an augmentation."""
        return any(test == EXCEPT for test, _ in self.call.guards) or id(self.call) in _resampling_calls(self.reached.frame)


@dataclass(frozen=True, eq=False)
class LibraryDraw:
    """Worker code runs a library object that draws from an RNG the library keeps (see
    ``knowledge.library_rngs``)."""

    reached: Optional[Reached]
    """Where worker code runs it; None when a library dataset runs its own pipeline."""
    call: Call
    """The call that runs it (for a library dataset, the dataset's construction)."""
    holder: ExternalInstance
    """The object run: the pipeline as the dataset holds it."""
    drawing: ExternalInstance
    """The first object inside it that draws."""
    entry: HeldRng
    built_in_worker: bool = False
    """The pipeline is built in worker code (drawing from the worker's copy of the RNG)."""


@dataclass
class WorkerRun:
    functions: List[Reached]
    draws: List[Draw]
    reseeded: Set[tuple]
    """Keys of RNG objects worker code reseeds (``rng.seed(...)``) or replaces."""
    reassigned: Set[Tuple[tuple, str]]
    """(class key, attribute) of the ``self.x = ...`` assignments worker code makes."""
    library_draws: List[LibraryDraw] = field(default_factory=list)
    libraries_reseeded: Set[str] = field(default_factory=set)
    """Libraries whose held RNG worker code reseeds (``aug.seed_(...)``, ``set_rnd(...)``)."""
    libraries_reseeded_if_forked: Set[str] = field(default_factory=set)
    """Libraries whose module-level RNG worker code reseeds (``imgaug.seed(...)``), which
    reaches the objects only in a forked worker."""

    @property
    def sure_draws(self) -> List[Draw]:
        """The draws not confined to an error path (an ``except`` block)."""
        return [d for d in self.draws if not d.on_error_path]


class WorkerCode:
    def __init__(self, project) -> None:
        self.project = project
        self.flow = project.flow
        self.index = project.index
        self._memo: Dict[tuple, WorkerRun] = {}
        self._library_calls: Dict[tuple, Site] = {}

    def of(self, instance: Obj) -> WorkerRun:
        """The worker code of a dataset object (a project class's, or the project callables
        a library dataset holds: its ``transform``), or of a project function or callable
        object the worker calls (a ``collate_fn``)."""
        found = self._memo.get(instance.key)
        if found is None:
            found = self._memo[instance.key] = self._walk(instance)
        return found

    def _walk(self, instance: Obj) -> WorkerRun:
        reached: Dict[tuple, Reached] = {}
        queue: List[Reached] = []

        def add(frame: Frame, via: Optional[Reached], call: Optional[Call] = None) -> None:
            key = (frame.function.key, frame.receiver.key if frame.receiver is not None else None)
            existing = reached.get(key)
            if existing is not None:
                if via is not None and call is not None and self._surer_call(existing, via, call) and existing in queue:
                    # ``if self.no_jsd: return aug(x) else: ... aug(x) ...``: the arm the defaults take
                    better = reached[key] = Reached(frame, via, call)
                    queue[queue.index(existing)] = better
                return
            if len(reached) >= MAX_FUNCTIONS:
                return
            item = Reached(frame, via, call)
            reached[key] = item
            queue.append(item)

        draws: List[Draw] = []
        if isinstance(instance, Instance):
            entries = [m for m in (self.index.method(instance.cls, name) for name in ENTRY_METHODS) if m is not None]
            if not entries and self.index.method(instance.cls, "__call__") is not None:
                entries = [self.index.method(instance.cls, "__call__")]  # a callable object the worker runs: a collate_fn
            for method in entries:
                add(self.flow.method_frame(method, instance), None)
            for held in self._run_by_library_getitem(instance):
                for held_frame in self._frames_of(held):
                    add(held_frame, None)
                stream = self._draws_when_called(held)
                if stream:
                    draws.append(Draw(Reached(held.site.frame), held.site.call, stream, held=held))
        elif isinstance(instance, FunctionObj):  # a callable the worker runs: a collate_fn
            for frame in self._frames_of(instance):
                add(frame, None)
        reseeded: Set[tuple] = set()
        reassigned: Set[Tuple[tuple, str]] = set()
        library_draws: List[LibraryDraw] = []
        libraries_reseeded: Set[str] = set()
        reseeded_if_forked: Set[str] = set()
        if isinstance(instance, ExternalInstance):
            for held in ordered(self.flow.held_callables(instance.site.call, instance.site.frame)):
                for held_frame in self._frames_of(held):
                    add(held_frame, None)
                stream = self._draws_when_called(held)
                if stream:  # ImageFolder(root, transform=Compose([RandomResizedCrop(224), ...]))
                    draws.append(Draw(Reached(held.site.frame), held.site.call, stream, held=held))
            for holder in self._library_objects_passed(instance.site.call, instance.site.frame):
                library_draws.extend(self._library_draws(None, instance.site.call, holder))
        while queue:
            current = queue.pop(0)
            frame = current.frame
            function = frame.function.function
            self._note_assignments(current, instance, reassigned)
            for iterated, method in self._iterated(frame):
                add(self.flow.method_frame(method, iterated), current)
            for call in function.calls:
                if not self.flow.guards_may_hold(call.guards, frame):
                    continue
                callees = ordered(self.flow.callee_objects(call, frame))
                for callee_frame, _ in self.flow.callee_frames(call, frame):
                    add(callee_frame, current, call)
                for callee in callees:
                    for hook_frame in self._library_call_hooks(callee):
                        add(hook_frame, current, call)
                for held in self._held(call, frame, callees):
                    for held_frame in self._frames_of(held):
                        add(held_frame, current, call)
                    stream = self._draws_when_called(held)
                    if stream:  # self.transform(image), a Compose holding RandomResizedCrop(224)
                        draws.append(Draw(current, call, stream, held=held))
                draws.extend(self._draws(current, call, callees, reseeded))
                for callee in callees:
                    library_draws.extend(self._library_run(current, call, callee, libraries_reseeded, reseeded_if_forked))
        in_workers = {item.frame.function.key for item in reached.values()}
        library_draws = [
            replace(d, built_in_worker=d.holder.site is not None and d.holder.site.frame.function.key in in_workers)
            for d in library_draws if not self._made_fresh_in_workers(d, in_workers)
        ]
        return WorkerRun(
            list(reached.values()), draws, reseeded, reassigned, library_draws, libraries_reseeded, reseeded_if_forked
        )

    def _surer_call(self, reached: Reached, via: Reached, call: Call) -> bool:
        """Whether a second call into a function runs with the program's defaults where the
        call the walk came by first needs an option."""
        if reached.via is None or reached.call is None or not reached.call.guards:
            return False
        from seedlint.analysis.draw_conditions import options_needed_by  # it reads Reached chains
        return bool(options_needed_by(self.flow, [(reached.call.guards, reached.via.frame)])) and not options_needed_by(
            self.flow, [(call.guards, via.frame)]
        )

    def _run_by_library_getitem(self, instance: Instance) -> List[Obj]:
        """A project subclass of a library dataset that keeps the library's ``__getitem__``
        (``class ImageNet(ImageFolder)`` passing ``transform`` to ``super().__init__``): the
        transforms that method calls on each item, and what they hold."""
        if any(self.index.method(instance.cls, name) is not None for name in ENTRY_METHODS):
            return []
        if not any(library_dataset(base) for base in self.index.external_bases(instance.cls)):
            return []
        found: Set[Obj] = set()
        for name in CALLED_BY_LIBRARY_GETITEM:
            for value in self.flow.attribute_of(instance, name):
                found.add(value)
                if isinstance(value, ExternalInstance) and value.site is not None:
                    found |= self.flow.held_callables(value.site.call, value.site.frame)
        return ordered(frozenset(found))

    def _made_fresh_in_workers(self, draw: LibraryDraw, in_workers: Set[tuple]) -> bool:
        """The pipeline and the object in it that draws are built in worker code itself, by a
        library whose objects each make their own generator: nothing is copied from the parent
        (built with a constant ``seed=``, every call repeats itself, which is another bug). So
        is a container that seeds itself and what it holds when built (MONAI's ``Compose``).
        After MONAI's ``set_determinism(seed)`` every such container starts from that seed:
        that repeats each item's draws, a bug this rule does not describe, so it is not
        reported as a copy either."""
        entry = draw.entry
        if not entry.fresh_per_object:
            holder = draw.holder
            return (
                class_name(holder.qualified) in entry.fresh_containers
                and holder.site is not None and holder.site.frame.function.key in in_workers
            )
        return all(obj.site is not None and obj.site.frame.function.key in in_workers for obj in (draw.holder, draw.drawing))

    def _iterated(self, frame: Frame) -> List[Tuple[Instance, FunctionRef]]:
        """Project objects the function iterates (``for x in self.source``, ``iter(src)``,
        ``next(it)``, ``yield from self.source``) and the protocol method that runs:
        a wrapper's worker code goes on in its source's ``__iter__``/``__next__``."""
        function = frame.function.function
        wanted: List[Tuple[object, str]] = [(loop.iterable, "__iter__") for loop in function.loops if loop.target]
        wanted += [(value, "__iter__") for value in function.yield_froms]
        for call in function.calls:
            if isinstance(call.func, Name) and call.func.qualified in ("builtins.iter", "builtins.next") and call.args:
                wanted.append((call.args[0], "__iter__" if call.func.qualified == "builtins.iter" else "__next__"))
        found: List[Tuple[Instance, FunctionRef]] = []
        for value, name in wanted:
            if not self.flow.guards_may_hold(getattr(value, "guards", ()), frame):
                continue
            for obj in ordered(self.flow.eval(value, frame)):
                if isinstance(obj, Instance):
                    method = self.index.method(obj.cls, name)
                    if method is not None:
                        found.append((obj, method))
        return found

    # ------------------------------------------------------------------ library-held RNGs
    def _library_run(
        self, current: Reached, call: Call, callee: Obj, libraries_reseeded: Set[str], reseeded_if_forked: Set[str]
    ) -> List[LibraryDraw]:
        """A call that runs a library object holding an RNG (``self.aug(image=x)``,
        ``self.seq.augment_image(x)``), or that reseeds one (``imgaug.seed(s)``,
        ``self.transform.set_random_state(seed=s)``)."""
        if isinstance(callee, External):
            for entry in reseeded_by(callee.qualified):
                (reseeded_if_forked if entry.reseeders_need_fork else libraries_reseeded).add(entry.library)
            return []
        holder, method = None, "__call__"
        if isinstance(callee, ExternalInstance):
            holder = callee
        elif isinstance(callee, MethodOf) and isinstance(callee.receiver, ExternalInstance):
            holder, method = callee.receiver, callee.name
        if holder is None:
            return []
        entry = held_rng_of(holder.qualified)
        if entry is None:
            return []
        if method in entry.reseed_methods:
            libraries_reseeded.add(entry.library)
            return []
        if method != "__call__" and method not in entry.run_methods:
            return []
        return self._library_draws(current, call, holder)

    def _library_draws(self, current: Optional[Reached], call: Call, holder: ExternalInstance) -> List[LibraryDraw]:
        entry = held_rng_of(holder.qualified)
        if entry is None:
            return []
        drawing = self._first_drawing(entry, holder, 0)
        return [LibraryDraw(current, call, holder, drawing, entry)] if drawing is not None else []

    def _first_drawing(self, entry: HeldRng, obj: ExternalInstance, depth: int) -> Optional[ExternalInstance]:
        if draws_itself(entry, obj.qualified):
            return obj
        if not is_container(entry, obj.qualified) or depth > 4:
            return None
        for inner in self._library_objects_passed(obj.site.call, obj.site.frame):
            if held_rng_of(inner.qualified) is entry:
                found = self._first_drawing(entry, inner, depth + 1)
                if found is not None:
                    return found
        return None

    def _library_objects_passed(self, call: Call, frame: Frame) -> List[ExternalInstance]:
        """Library objects passed to a call, also inside lists and tuples
        (``Compose([RandFlipd(...), ...])``, ``Dataset(data, transform=pipeline)``)."""
        found: List[ExternalInstance] = []

        def collect(values, depth: int) -> None:
            for obj in ordered(values):
                if isinstance(obj, SeqObj) and depth < 3:
                    for entry in obj.entries:  # in the order the pipeline runs them
                        collect(self.flow.eval(entry.value, entry.frame), depth + 1)
                elif isinstance(obj, ExternalInstance) and held_rng_of(obj.qualified) is not None and obj not in found:
                    found.append(obj)

        for value in (*call.args, *(v for _, v in call.kwargs)):
            collect(self.flow.eval(value, frame), 0)
        return found

    def _held(self, call: Call, frame: Frame, callees) -> List[Obj]:
        """Project callables a library call may run: those held by a library object that is
        called (``Compose([...])(image)``), and those passed to a higher-order function
        (``map(self.load, paths)``)."""
        found = set()
        for callee in callees:
            if isinstance(callee, ExternalInstance):
                found |= self.flow.held_callables(callee.site.call, callee.site.frame)
            elif isinstance(callee, External) and callee.qualified in HIGHER_ORDER:
                found |= self.flow.held_callables(call, frame)
        return ordered(found)

    def _library_call_hooks(self, callee: Obj) -> List[Frame]:
        """Calling an object whose class has no ``__call__`` of its own runs the methods its
        library base's ``__call__`` runs (``nn.Module``: ``forward``): worker code only, the
        value flow does not evaluate them."""
        if not isinstance(callee, Instance) or self.index.method(callee.cls, "__call__") is not None:
            return []
        hooks = called_hooks(self.index.external_bases(callee.cls))
        return [self.flow.method_frame(method, callee) for method in (self.index.method(callee.cls, n) for n in hooks) if method is not None]

    def _library_call(self, partial: Site) -> Site:
        """How a library calls a ``functools.partial`` object it holds (``with_transform(
        partial(f, size=s))``, ``map(partial(load, root), paths)``): with positional arguments
        the facts do not see, after those and the keywords the partial binds."""
        site = self._library_calls.get(partial.key)
        if site is None:
            call = Call(UNKNOWN, (), (), partial.call.span, star_args=True, stars=(UNKNOWN,))
            site = self._library_calls[partial.key] = Site(partial.frame, call)
        return site

    def _frames_of(self, obj: Obj) -> List[Frame]:
        if isinstance(obj, FunctionObj):
            if obj.partial is not None:
                return [self.flow.callee_frame(obj, self._library_call(obj.partial))]
            return [self.flow.frame(obj.function, obj.receiver)]
        if isinstance(obj, Instance):
            frames = []
            names = list(CALLABLE_METHODS) + [h for h in called_hooks(self.index.external_bases(obj.cls)) if h not in CALLABLE_METHODS]
            for name in names:
                method = self.index.method(obj.cls, name)
                if method is not None:
                    frames.append(self.flow.method_frame(method, obj))
            return frames
        return []

    def _draws_when_called(self, obj: Obj) -> str:
        """The global RNG a library object draws from when called (held in a pipeline that
        calls it, or called itself): for an object that draws so only in some releases, when
        every release the project's declarations allow is one of them (an install takes the
        newest release allowed; a project that declares none gets the latest)."""
        if not isinstance(obj, ExternalInstance):
            return ""
        stream = global_draws.called_object_stream(obj.qualified)
        configured = global_draws.configured_draw(obj.qualified) if not stream else None
        if configured is not None:
            return configured.stream if self._built_to_draw(obj, configured) else ""
        entry = global_draws.versioned_draw(obj.qualified) if not stream else None
        if entry is None:
            return stream
        declared = self.project.settings_for(obj.site.frame.module.path).library_version(entry.package)
        if not (declared.declared and declared.within(range_from_specifiers(entry.versions))):
            return ""
        return "" if self._bounds_equal(obj, entry.constant_when_equal) else entry.stream

    def _built_to_draw(self, obj: ExternalInstance, entry: global_draws.ConfiguredDraw) -> bool:
        """The factory was called with the arguments that make its result draw, when the
        program runs with its defaults (each value the flow gives them then does)."""
        call, frame = obj.site.call, obj.site.frame
        if call.star_args or call.star_kwargs:
            return False
        choice = call.kwarg(entry.keyword)
        if choice is None:
            return False
        values = frozenset(v for v in self.flow.eval(choice, frame) if not isinstance(v, (OptionConstant, FromCommandLine)))
        if not values or not all(isinstance(v, Constant) and isinstance(v.value, str) and v.value.startswith(entry.prefixes) for v in values):
            return False
        for keyword, position in entry.required_true:
            passed = call.argument(keyword, position)
            truths = self.flow.eval(passed, frame) if passed is not None else frozenset()
            if not truths or not all(isinstance(v, Constant) and v.value for v in truths):
                return False
        for keyword in entry.required_false:
            passed = call.kwarg(keyword)
            if passed is not None and any(not (isinstance(v, Constant) and not v.value) for v in self.flow.eval(passed, frame)):
                return False
        return True

    def _bounds_equal(self, obj: ExternalInstance, bounds) -> bool:
        """The object was built with the two bounds of its ``uniform(low, high)`` draw equal
        (``A.Downscale(p=1)`` keeps both scales at 0.25): it draws one number every call."""
        call = obj.site.call
        if not bounds or call.star_args or call.star_kwargs:
            return False
        values = []
        for keyword, position, default in bounds:
            passed = call.argument(keyword, position)
            if passed is None:
                values.append(default)
                continue
            constant = self.flow.constant(passed, obj.site.frame)
            if constant is None:
                return False
            values.append(constant.value)
        return len(set(values)) == 1

    def _global_rng_got(self, receiver: Obj) -> bool:
        """``check_random_state()``, or given a seed that is None: NumPy's global RNG itself."""
        if not isinstance(receiver, ExternalInstance) or not global_draws.getter_stream(receiver.qualified):
            return False
        seed = receiver.site.call.argument("seed", 0)
        if seed is None:
            return True
        constant = self.flow.constant(seed, receiver.site.frame)
        return constant is not None and constant.value is None

    def _draws(self, current: Reached, call: Call, callees, reseeded: Set[tuple]) -> List[Draw]:
        found = self._all_draws(current, call, callees, reseeded)
        if found and discarded(self.flow, call, current.frame):
            return []  # ``idx = np.random.choice(n)`` read only under ``if self.mode == "train":``
        return found

    def _all_draws(self, current: Reached, call: Call, callees, reseeded: Set[tuple]) -> List[Draw]:
        found: List[Draw] = []
        if _tensor_method_draw(call) and not any(isinstance(c, (FunctionObj, Instance, ClassObj)) for c in callees):
            found.append(Draw(current, call, TORCH))  # ``image.clone().bernoulli_()``
        for callee in callees:
            if isinstance(callee, External):
                stream = global_stream(callee.qualified)
                if stream and not (stream == TORCH and _passes_generator(call)):
                    found.append(Draw(current, call, stream))
                elif not stream and not _passes_own_rng(call):
                    stream = global_draws.function_stream(callee.qualified)
                    if stream:
                        found.append(Draw(current, call, stream))
            elif isinstance(callee, ExternalInstance):
                stream = global_stream(callee.qualified)
                if stream:
                    found.append(Draw(current, call, stream))
                elif self._draws_when_called(callee):
                    found.append(Draw(current, call, self._draws_when_called(callee), held=callee))
            elif isinstance(callee, MethodOf) and self._global_rng_got(callee.receiver):
                stream = global_draws.getter_stream(callee.receiver.qualified)
                if callee.name in RNG_OBJECT_DRAW_METHODS["numpy-randomstate"]:
                    found.append(Draw(current, call, stream))
            elif isinstance(callee, MethodOf) and isinstance(callee.receiver, (External, ExternalInstance)) \
                    and not is_rng_object(callee.receiver):
                stream = global_draws.method_stream(callee.receiver.qualified, callee.name)
                if stream and not _passes_own_rng(call) and not _built_with_own_rng(callee.receiver):
                    found.append(Draw(current, call, stream))
            elif isinstance(callee, MethodOf) and is_rng_object(callee.receiver):
                if callee.name in RNG_OBJECT_RESEEDING_METHODS:
                    reseeded.add(callee.receiver.key)
                elif callee.name in RNG_OBJECT_DRAW_METHODS[RNG_OBJECT_CONSTRUCTORS[callee.receiver.qualified]]:
                    found.append(Draw(current, call, RNG_OBJECT, callee.receiver))
        if any(isinstance(c, (External, ExternalInstance, MethodOf)) for c in callees):
            frame = current.frame
            for value in _rng_arguments(call):
                for obj in ordered(self.flow.eval(value, frame)):
                    if is_rng_object(obj):
                        found.append(Draw(current, call, RNG_OBJECT, obj))
        return found

    def _note_assignments(self, current: Reached, instance: Obj, reassigned: Set[Tuple[tuple, str]]) -> None:
        frame = current.frame
        function = frame.function.function
        if not isinstance(frame.receiver, Instance) or not function.params:
            return
        prefix = function.params[0] + "."
        for assign in function.assigns:
            if assign.target.startswith(prefix) and "." not in assign.target[len(prefix):]:
                reassigned.add((frame.receiver.cls.key, assign.target[len(prefix):]))




def _resampling_calls(frame: Frame) -> Set[int]:
    """Calls inside an index the method passes back to its own dataset (``self[...]`` or
    ``self.__getitem__(...)`` in what it returns), and draws of another index inside a
    ``while`` loop that retries an item it could not read (``while len(frames) == 0: index =
    np.random.randint(len(self))``)."""
    function = frame.function.function
    if not function.params or function.class_name is None:
        return set()
    receiver = function.params[0]
    found: Set[int] = set()
    for value in function.returns:
        for index in _own_item_indices(value, receiver):
            found.update(_calls_within(index))
    retries = [loop.span for loop in function.loops if loop.is_while]
    for call in function.calls if retries else ():
        if any(_inside(span, call.span) for span in retries) and any(_sizes_own_items(arg, receiver) for arg in call.args):
            found.add(id(call))
    return found


def _sizes_own_items(value, receiver: str) -> bool:
    """``len(self)``, ``self.__len__()``, ``len(self.samples)`` (and arithmetic on them)."""
    if isinstance(value, BinOp):
        return _sizes_own_items(value.left, receiver) or _sizes_own_items(value.right, receiver)
    if not isinstance(value, Call) or not isinstance(value.func, Name):
        return False
    if value.func.dotted == f"{receiver}.__len__":
        return True
    return (
        value.func.dotted == "len" and len(value.args) == 1 and isinstance(value.args[0], Name)
        and (value.args[0].dotted == receiver or value.args[0].dotted.startswith(receiver + "."))
    )


def _own_item_indices(value, receiver: str) -> List:
    if isinstance(value, Subscript) and isinstance(value.value, Name) and value.value.dotted == receiver:
        return [value.index]
    if isinstance(value, Call) and isinstance(value.func, Name) and value.func.dotted == f"{receiver}.__getitem__":
        return list(value.args)
    return []


def _calls_within(value, depth: int = 0) -> Set[int]:
    if depth > 6 or value is None:
        return set()
    found: Set[int] = set()
    if isinstance(value, Call):
        found.add(id(value))
        for part in (*value.args, *(v for _, v in value.kwargs)):
            found |= _calls_within(part, depth + 1)
    elif isinstance(value, BinOp):
        found |= _calls_within(value.left, depth + 1) | _calls_within(value.right, depth + 1)
    return found


def is_rng_object(obj: Obj) -> bool:
    return isinstance(obj, ExternalInstance) and obj.qualified in RNG_OBJECT_CONSTRUCTORS


RNG_KEYWORDS = frozenset({"generator", "rng", "random_state", "random_generator", "seed", "key"})


def _rng_arguments(call: Call) -> List:
    """Arguments of a library call that may hand it an RNG object: ``generator=self.g``,
    ``random_state=rs``, or a positional name spelled like one (``rng``, ``self.generator``)."""
    found = [v for k, v in call.kwargs if k in RNG_KEYWORDS]
    for value in call.args:
        if isinstance(value, Name) and any(w in value.dotted.rsplit(".", 1)[-1].lower() for w in ("rng", "random", "generator", "gen")):
            found.append(value)
    return found


def _passes_own_rng(call: Call) -> bool:
    """The call hands a library its own RNG or seed (``rvs(random_state=rs)``)."""
    return any(
        k in global_draws.SEEDED_BY and not (isinstance(v, Const) and v.value is None) for k, v in call.kwargs
    )


def _built_with_own_rng(receiver: Obj) -> bool:
    """A frozen distribution built with its own ``random_state`` or ``seed``."""
    return isinstance(receiver, ExternalInstance) and _passes_own_rng(receiver.site.call)


def _tensor_method_draw(call: Call) -> bool:
    """``x.uniform_(-1, 1)``: an in-place torch sampling method, without its own generator."""
    func = call.func
    if isinstance(func, Name):
        method = func.dotted.rpartition(".")[2] if "." in func.dotted else ""
    else:
        method = func.attr if isinstance(func, Attr) else ""
    return method in global_draws.TENSOR_DRAW_METHODS and not _passes_generator(call)


def _passes_generator(call: Call) -> bool:
    generator = call.kwarg("generator")
    return generator is not None and not (isinstance(generator, Const) and generator.value is None)
