"""How torch runs a ``worker_init_fn``: the frame it runs in (called with the worker id
alone, after what a ``functools.partial`` binds), what varies there from one worker and
epoch to the next, the seedings it makes with the origin of each seed, and the functions
it reaches."""

from __future__ import annotations

from typing import Iterable, List, Tuple

from seedlint.analysis.loaders import LoaderCall
from seedlint.analysis.objects import Frame, FunctionObj, Site
from seedlint.analysis.reach import reachable
from seedlint.analysis.seeds import Context, Origin, Seeding
from seedlint.facts.model import UNKNOWN, Call, Span


def init_frame(project, loader: LoaderCall, frame: Frame, init: FunctionObj) -> Frame:
    """The frame torch runs a worker_init_fn in: called with the worker id alone, after
    the arguments a ``functools.partial`` binds."""
    call = Call(UNKNOWN, (), (), loader.call.span)
    site = Site(init.partial.frame if init.partial is not None else frame, call, 0, init.partial)
    return project.flow.frame(init.function, init.receiver, site)


def worker_context(project, loader: LoaderCall, frame: Frame, init: FunctionObj, root: Frame) -> Context:
    function = init.function.function
    bound = len(init.partial.positional()) - 1 if init.partial is not None else 0
    keywords = {k for k, _, _ in init.partial.keywords()} if init.partial is not None else set()
    free = [p for p in function.params[bound:] if p not in keywords]
    if init.receiver is not None and function.params and free and free[0] == function.params[0]:
        free = free[1:]
    worker = frozenset(f.function.key for f in reachable(project.flow, [root]))
    varying = set(_loop_names(loader.module, loader.function, loader.call.span))
    caller = frame
    while caller.site is not None:
        varying.update(_loop_names(caller.site.frame.module, caller.site.frame.function.function, caller.site.call.span))
        caller = caller.site.frame
    return Context(worker, (init.function.key, free[0]) if free else None, frozenset(varying))


def _loop_names(module, function, span: Span) -> List[Tuple[tuple, str]]:
    """Locals of ``function`` that change between iterations of a loop around ``span``: the
    loader call, or a call on the way to the function that builds it (a loader rebuilt every
    epoch by a builder called inside the epoch loop)."""
    found = []
    for loop in function.loops:
        if _contains(loop.span, span):
            if loop.target:
                found.append(((module.path, function.qualname), loop.target.split(".", 1)[0]))
            found.extend(((module.path, function.qualname), a.target) for a in loop.assigns if "." not in a.target)
    return found


def worker_seedings(project, loader: LoaderCall, frame: Frame, init: FunctionObj) -> Iterable[Tuple[Seeding, Origin]]:
    """Every seeding the worker_init_fn makes (itself or in helpers) that takes a seed,
    with where that seed comes from."""
    root = init_frame(project, loader, frame, init)
    context = worker_context(project, loader, frame, init, root)
    seeds = project.seeds
    for call in root.function.function.calls:
        if not project.flow.guards_may_hold(call.guards, root):
            continue
        for seeding in seeds.seedings(call, root, screen=False):
            if seeding.seed is None or seeding.kind == "lightning":
                continue
            yield seeding, seeds.origin(seeding.seed, seeding.frame, context)


def init_fn_functions(project, init) -> List[Frame]:
    """The project functions the loader's ``worker_init_fn`` values run, and what they reach."""
    roots = [project.flow.frame(v.function, v.receiver) for v in init.values if isinstance(v, FunctionObj)]
    return reachable(project.flow, roots)


def reaches_dataset(frames: Iterable[Frame]) -> bool:
    """Some function reads ``.dataset`` (``get_worker_info().dataset``), where it may
    reseed what the dataset holds."""
    return any("dataset" in frame.function.function.attribute_names for frame in frames)


def _contains(outer: Span, inner: Span) -> bool:
    return (outer.line, outer.col) <= (inner.line, inner.col) and (inner.end_line, inner.end_col) <= (outer.end_line, outer.end_col)
