"""SDL011 library-rng-copied-to-workers."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Dict, Iterable, List, Optional

from seedlint.analysis.draw_conditions import options_building, spelled_options
from seedlint.analysis.library_reseed_reach import HiddenFromReseeding, hidden_from_monai_reseeding
from seedlint.analysis.objects import Constant, External, FunctionObj, Instance
from seedlint.analysis.start_methods import PICKLING_METHODS, StartMethod
from seedlint.analysis.worker_init import init_fn_functions, reaches_dataset
from seedlint.analysis.workers import LibraryDraw
from seedlint.diagnostics import Diagnostic, Fix
from seedlint.facts.model import Const, Name
from seedlint.knowledge.library_rngs import LOADERS_KEEPING_THEIR_WORKERS, HeldRng, class_name
from seedlint.knowledge.library_worker_inits import library_worker_init
from seedlint.rules.base import (
    Project, Rule, add_related, built, built_in, dataset_name, loaded_at, start_method_where, where, workers_condition,
    workers_evidence,
)
from seedlint.versions import range_from_specifiers

FIX_KIND = "reseed-rng-object"
"""The same edit as SDL002's: a per-worker reseed at the top of the drawing method."""
LIBRARY_INIT_FIX_KIND = "library-worker-init"
"""The library's own per-worker reseeding function, passed or called as worker_init_fn."""


class LibraryRngCopiedToWorkers(Rule):
    """
    ## What it does
    Finds an augmentation pipeline from a library that keeps its own random number generator
    (imgaug augmenters, MONAI `Rand*` transforms, albumentations 1.4.21-2.0.8 transforms),
    built once in the parent process and run in a dataset's worker code, when a `DataLoader`
    over that dataset has worker processes and nothing reseeds that library's RNG in each
    worker.

    What each library keeps, and what reseeds it:

    | library | RNG | reseeded per worker by |
    |---|---|---|
    | imgaug 0.4 | imgaug's global generator, held by every augmenter built without a seed (or a private one, built with a seed) | `aug.seed_(s)` in the worker; `imgaug.seed(s)` in a `worker_init_fn` under the fork start method only |
    | MONAI | `Randomizable.R`, a `RandomState` shared by every bare random transform (in a `Compose`, one per transform) | `monai.data.DataLoader` when no `worker_init_fn` is passed; `monai.data.utils.worker_init_fn(worker_id)`; `set_random_state(seed=...)` |
    | albumentations 1.4.21-2.0.8, albumentationsx < 2.3.1 | a `default_rng` and a `random.Random` per transform, made at construction (seeded or not) | `pipeline.set_random_seed(s)`; albumentationsx 2.0.9+ itself when `seed=` is an int, 2.3.1+ always |

    The `worker_init_fn`s other libraries ship reseed the global RNGs only: detectron2's
    `worker_init_reset_seed`, the transformers `seed_worker`, Lightning's
    `pl_worker_init_function` (what `seed_everything(workers=True)` installs) and timm's
    `_worker_init` leave every pipeline above duplicated, and the message says what the
    loader's one reseeds (`knowledge/library_worker_inits.py`, each with its source). A
    `worker_init_fn` from a library not listed there is assumed to reseed everything.

    MONAI's own reseeding walks the worker's dataset, attribute by attribute, and stops at the
    first object that has `set_random_state`. It misses a pipeline held by an object of the
    project's own that a `CacheDataset` (from MONAI 1.4.0, any `Dataset`) wraps in a
    `Compose`, whose reseeding skips what is not `Randomizable`; and the transform of a
    dataset that is itself `Randomizable` (`DecathlonDataset`, `MedNISTDataset`,
    `TciaDataset`, `SmartCacheDataset` from 0.5.0). Those are reported under
    `monai.data.DataLoader` or MONAI's `worker_init_fn` too, when every MONAI release the
    project allows misses them, and the message says what reaches them instead.

    A pipeline the program's defaults do not build (`if args.augment: self.augment =
    iaa.Sequential(...)`) is a warning that names the option it needs.

    A pipeline built in worker code itself (inside `__getitem__`, or a method it calls) is no
    copy for albumentations, whose objects each make their own generator from fresh entropy,
    nor for a MONAI `Compose`, which seeds itself and what it holds when built; an imgaug
    augmenter or a bare MONAI `Rand*` transform built there still draws from the worker's
    copy of the library's RNG, and the message says where it is built. For imgaug that holds
    before 0.3 (its global generator starts from seed 42 in every worker); from 0.3 it is made
    at first use from the worker's NumPy state, so a project that allows only imgaug 0.3 and
    later is not reported, and one that does not declare imgaug gets a warning naming the
    releases.

    A library's release range is what the project declares, narrowed by the APIs the program
    uses outside a feature check (`albumentations.augmentations.transforms.RandomRotate90`
    exists only before 1.0, so a program that reads it never runs on 1.4.21) and by what its
    other pins allow (every albumentations from 1.4.0 on needs `numpy>=1.24.4`). A pipeline
    whose module imports the library only inside a `try` that catches `ImportError` runs only
    where the library happens to be installed: it is not reported unless the project declares
    the library.

    A loader class that starts its workers once in `__init__` (`self.iterator =
    super().__iter__()`, as timm's `MultiEpochsDataLoader` does) and serves every epoch from
    them repeats nothing across epochs: the message claims only the copies across workers. A
    call that may build a loader that reseeds the library or one that does not (`loader_class
    = MultiEpochsDataLoader` under an option, MONAI's `DataLoader` otherwise) is a warning that
    names the class that copies it.

    Library calls that draw from NumPy's or Python's global RNG (audiomentations, nlpaug,
    `scipy.stats` `rvs()`, `sklearn.utils.shuffle`) are draws for SDL001 and SDL003, not
    for this rule: torch reseeds those RNGs.

    ## Why is this bad?
    Torch reseeds `random`, torch and NumPy's global RNG in each worker, never an RNG a
    library keeps. Every worker starts from the parent's copy of it and draws the same
    crops, flips and noise; and without `persistent_workers=True` every epoch starts new
    workers from the same unchanged copy, so every epoch repeats them. This happens on
    every torch version.

    ## Example
    ```python
    import imgaug.augmenters as iaa

    class Tiles(Dataset):
        def __init__(self, images):
            self.images = images
            self.aug = iaa.Sequential([iaa.Fliplr(0.5), iaa.Affine(rotate=(-10, 10))])

        def __getitem__(self, index):
            return self.aug(image=self.images[index])

    loader = DataLoader(Tiles(images), batch_size=8, num_workers=4)
    ```

    ## Use instead
    Reseed the pipeline once in each worker, from the worker's own seed:
    ```python
        def __getitem__(self, index):
            worker_info = torch.utils.data.get_worker_info()
            if worker_info is not None and getattr(self, "_aug_worker_seed", None) != worker_info.seed:
                self._aug_worker_seed = worker_info.seed
                self.aug.seed_(worker_info.seed % 2**32)
            return self.aug(image=self.images[index])
    ```
    (`set_random_state(seed=...)` for MONAI, `set_random_seed(...)` for albumentations.) For
    MONAI, loading with `monai.data.DataLoader` and no `worker_init_fn` of your own does it
    for you.

    ## Fix safety
    Safe, and offered in two places. When the dataset holds the pipeline as `self.<attribute>`
    and runs it in its own methods, the fix inserts the block above at the top of each such
    method. When a MONAI pipeline is held by a library dataset (`monai.data.Dataset(data,
    transform=...)`, `CacheDataset`...), the fix uses MONAI's own per-worker reseeding, which
    walks the worker's dataset: it passes `worker_init_fn=monai.data.worker_init_fn` to
    a loader that has no `worker_init_fn`, or calls it first in the loader's own one:
    ```python
    from monai.data import worker_init_fn as monai_worker_init_fn

    def seed_numpy(worker_id):
        monai_worker_init_fn(worker_id)
        np.random.seed(torch.initial_seed() % 2**32)
    ```
    Either way only the random values drawn inside workers change. `imgaug.seed(...)` in a
    `worker_init_fn` is not offered: it reaches the augmenters only in forked workers.
    """

    code = "SDL011"
    name = "library-rng-copied-to-workers"
    summary = "an augmentation library's own RNG is copied identically into every DataLoader worker"
    fix_safety = "safe"

    def triggers(self, settings) -> tuple:
        return super().triggers(settings) + (b"imgaug", b"monai", b"albumentations")

    def check(self, project: Project) -> Iterable[Diagnostic]:
        found: Dict[tuple, List[_Copy]] = {}
        for copy in self._copies(project):
            site = copy.draw.holder.site
            found.setdefault((site.frame.module.path, site.call.span.line, site.call.span.col), []).append(copy)
        for copies in found.values():
            # Name the loader whose copy matters most: one the program reads again (a training
            # loop) over one read in a single pass, several workers over one, a shuffled
            # (training) loader over one read in order.
            ranked = sorted(enumerate(copies), key=lambda item: (
                item[1].iterated_once, not item[1].several, not _shuffled(project, item[1]), item[0]
            ))
            diagnostic = self._diagnostic(project, ranked[0][1])
            for _, other in ranked[1:]:
                add_related(diagnostic, other.related)
            yield diagnostic

    def _copies(self, project: Project) -> Iterable["_Copy"]:
        loaders = project.loaders
        for loader in loaders.all:
            for frame in loaders.contexts(loader):
                iterated_once = project.loops.iterated_once(loader, frame)
                workers = loaders.workers(loader, frame)
                if not workers.may_be_positive:
                    continue
                persistent = True if loaders.keeps_one_iterator(loader, frame) or iterated_once else loaders.persistent(loader, frame)
                if not workers.may_be_several and persistent is True:
                    continue  # one worker that keeps its stream: nothing repeats
                init = loaders.worker_init(loader, frame)
                if init.unknown:
                    continue
                init_absent = all(isinstance(v, Constant) and v.value is None for v in init.values)
                for instance in loaders.datasets(loader, frame):
                    run = project.workers.of(instance)
                    for draw in run.library_draws:
                        entry = draw.entry
                        if entry.library in run.libraries_reseeded:
                            continue
                        hidden = hidden_from_monai_reseeding(project, draw, instance)
                        surely_hidden = hidden is not None and hidden.certain
                        if init_absent and loader.library in entry.seeding_loaders and not surely_hidden:
                            continue
                        others = () if not init_absent or surely_hidden else tuple(
                            name for name in loader.classes if name not in entry.seeding_loaders
                        )
                        if loader.classes and init_absent and not surely_hidden and not others:
                            continue  # every class the call may build reseeds it
                        verdict = None if init_absent else _init_fn_reseeds(project, init, entry, surely_hidden)
                        if verdict == RESEEDS:
                            continue
                        pickled = None
                        if verdict == RESEEDS_IF_FORKED or entry.library in run.libraries_reseeded_if_forked:
                            method = project.start_methods.of(loader, frame)
                            if method.name not in PICKLING_METHODS:
                                continue
                            pickled = method
                        severity = _affected(project, draw)
                        if severity is None:
                            continue
                        reseeding = tuple(name for name in loader.classes if name not in others) if others else ()
                        kept = persistent
                        if reseeding and all(name in LOADERS_KEEPING_THEIR_WORKERS for name in others):
                            kept = True  # the only loaders that copy it keep their workers
                        yield _Copy(loader, frame, instance, draw, workers, kept, init, init_absent, pickled,
                                    severity, iterated_once, hidden, (others, reseeding) if reseeding else None)

    def _diagnostic(self, project: Project, copy: "_Copy") -> Diagnostic:
        draw, instance, loader, workers, severity = copy.draw, copy.instance, copy.loader, copy.workers, copy.severity
        entry, site = draw.entry, draw.holder.site
        message = _message(draw, instance, loader, workers.may_be_several, copy.persistent, copy.init_absent, copy.pickled,
                           "" if copy.hidden is not None else _library_init_note(copy.init), copy.hidden)
        message += workers_condition(workers)
        if workers.option:
            severity = "warning"
        fixable = severity == "error"  # a pipeline only an option builds still gets the fix
        if copy.class_choice is not None:
            severity = "warning"
            others, reseeding = (" or ".join(f"`{name}`" for name in names) for names in copy.class_choice)
            message += f" (when the call builds {others}; {reseeding}, which it may build instead, reseeds them)"
        flags = options_building(project.flow, draw.holder)
        if flags:
            severity = "warning"
            message += f" (the pipeline is built only when the program runs with {spelled_options(flags)})"
        built_at = getattr(instance, "site", None)
        dataset_flags = [flag for flag in options_building(project.flow, instance) if flag not in flags] if built_at is not None else []
        if dataset_flags:
            severity = "warning"
            message += (f" (`{dataset_name(instance)}` is built only when the program runs with "
                        f"{spelled_options(dataset_flags)})")
        if severity == "warning" and entry.affected_releases:
            allowed = _declared_releases(project, draw)
            if allowed is not None:
                message += f" ({entry.affected_releases}; {allowed})"
        fix = None
        if fixable:
            fix = _fix(project, draw, instance) if _has_reseed(project, draw) else None
            if copy.hidden is None:
                fix = fix or _library_worker_init_fix(project, loader, draw, copy.init, copy.init_absent)
        evidence = []
        if draw.reached is not None:
            evidence.append((draw.reached.function.module.path, draw.call.span,
                             f"worker code runs it here (`{draw.reached.function.function.qualname}`)"))
        origin = getattr(instance, "built_at", None)
        if origin is not None:
            evidence.append((origin[0].path, origin[1].span, f"`{dataset_name(instance)}` is built here, in the main process"))
        evidence.append((loader.module.path, loader.call.span, "the DataLoader whose workers copy it"))
        evidence += workers_evidence(project, workers)
        return self.report(site.frame.module, site.call.span, message, fix, severity=severity, related=copy.related, evidence=evidence)


def _shuffled(project: Project, copy: "_Copy") -> bool:
    """The loader is given ``shuffle=True`` or a sampler in this context."""
    loaders = project.loaders
    shuffle = loaders.argument(copy.loader, "shuffle", copy.frame)
    sampler = loaders.argument(copy.loader, "sampler", copy.frame)
    return True in shuffle.constants() or any(not (isinstance(v, Constant) and v.value is None) for v in sampler.values)


@dataclass(frozen=True, eq=False)
class _Copy:
    """One loader's workers copying one library RNG that a dataset's worker code draws from."""

    loader: object
    frame: object
    instance: object
    draw: LibraryDraw
    workers: object
    persistent: Optional[bool]
    init: object
    init_absent: bool
    pickled: Optional[StartMethod]
    severity: str
    iterated_once: bool
    hidden: Optional[HiddenFromReseeding] = None
    class_choice: Optional[tuple] = None
    """When the call may build a loader that reseeds the library and one that does not: the
    classes that do not, and those that do."""

    @property
    def several(self) -> bool:
        return self.workers.may_be_several

    @property
    def related(self) -> tuple:
        return (self.loader.module, self.frame.module, built_in(self.instance),
                self.draw.reached.function.module if self.draw.reached is not None else None)


def _library_init_note(init) -> str:
    """What the library ``worker_init_fn`` the loader is given reseeds, when it is one the
    catalogue knows (``knowledge.library_worker_inits``)."""
    names = {"numpy": "NumPy", "random": "`random`", "torch": "torch"}
    for value in init.values:
        known = library_worker_init(value.qualified) if isinstance(value, External) else None
        if known is not None:
            spelled = [names[stream] for stream in sorted(known.streams)]
            reseeded = ", ".join(spelled[:-1]) + f" and {spelled[-1]}" if len(spelled) > 1 else (spelled[0] if spelled else "nothing global")
            return f"; its worker_init_fn `{value.qualified.rsplit('.', 1)[-1]}` reseeds {reseeded} only"
    return ""


def _message(
    draw: LibraryDraw, instance, loader, several: bool, persistent: Optional[bool], init_absent: bool,
    pickled: Optional[StartMethod], library_init: str = "", hidden: Optional[HiddenFromReseeding] = None,
) -> str:
    entry = draw.entry
    holder = draw.holder
    spelled = holder.site.call.func.dotted if isinstance(holder.site.call.func, Name) else class_name(holder.qualified)
    inner = "" if draw.drawing is holder else f" (its `{class_name(draw.drawing.qualified)}`)"
    if draw.built_in_worker:
        site = holder.site
        releases = f" ({entry.built_in_worker_alike_named})" if entry.built_in_worker_alike_named else ""
        ran = (f"built in worker code (`{site.frame.function.function.qualname}`, {where(site.frame.module, site.call.span)}), "
               f"where it draws from each worker's copy of that RNG{releases},")
    elif draw.reached is not None:
        ran = f"run in worker code (`{draw.reached.function.function.qualname}`, {where(draw.reached.function.module, draw.call.span)})"
    else:
        ran = f"run by `{dataset_name(instance)}` in each worker"
    effects = []
    if several:
        effects.append("every worker starts from the same copy and draws the same augmentations")
    if persistent is not True:
        effects.append("without persistent_workers every epoch repeats them")
    replaced = "" if init_absent or not entry.seeding_loaders or hidden is not None else (
        "; the loader's worker_init_fn replaces MONAI's own reseeding"
    )
    replaced += library_init
    if pickled is not None:
        replaced += f"; the workers start by '{pickled.name}' ({start_method_where(pickled)})"
    origin = "" if draw.built_in_worker else "built once in the parent and "
    return (
        f"`{spelled}(...)`{inner} draws from {entry.rng}, which torch does not reseed in DataLoader workers: "
        f"{origin}{ran} for `{dataset_name(instance)}`{built(instance, loader)} loaded "
        f"{loaded_at(loader)}, {' and '.join(effects)}{replaced}; {_hidden_advice(hidden) if hidden else entry.advice}"
    )


def _hidden_advice(hidden: HiddenFromReseeding) -> str:
    """Why MONAI's own reseeding misses the pipeline, and what reaches it."""
    since = "" if hidden.certain or hidden.since is None else f" from MONAI {hidden.since} on"
    if hidden.wrapper is None:
        return (
            f"MONAI's own reseeding does not reach it{since}: `{hidden.dataset_class}` is itself `Randomizable`, so "
            f"MONAI's `set_rnd` reseeds the dataset's own RandomState and stops there; reseed the transform in a "
            f"worker_init_fn: `info = torch.utils.data.get_worker_info(); "
            f"info.dataset.transform.set_random_state(seed=info.seed % 2**32)`"
        )
    runs = f" (such as `{hidden.held}`, which `{hidden.method}` runs)" if hidden.held and hidden.method else ""
    return (
        f"MONAI's own reseeding does not reach it{since}: `{hidden.dataset_class}` wraps `{hidden.wrapper}` in a "
        f"`Compose`, which reseeds only the `Randomizable` transforms it holds, and `{hidden.wrapper}` is not one; "
        f"make `{hidden.wrapper}` a `monai.transforms.Randomizable` whose `set_random_state` also reseeds the "
        f"pipelines it holds{runs}"
    )


def _affected(project: Project, draw: LibraryDraw) -> Optional[str]:
    """The severity, or None when the declared library versions reseed it themselves."""
    entry = draw.entry
    settings = project.settings_for(draw.holder.site.frame.module.path)
    names = [name for name, _ in entry.distributions] or [entry.library]
    if entry.library in draw.holder.site.frame.module.optional_packages and not any(
        settings.library_version(name).declared for name in names
    ):
        return None  # imported only where it happens to be installed, and the project does not install it
    if draw.built_in_worker and entry.built_in_worker_alike:
        version = settings.library_version(entry.library)
        alike = range_from_specifiers(entry.built_in_worker_alike)
        if not version.declared:
            return "warning"  # which release is installed decides it; the message names them
        if not version.overlaps(alike):
            return None  # built in the worker from the worker's own NumPy state
        if not version.within(alike):
            return "warning"
    if not entry.distributions:
        return "error"
    declared = {name: settings.library_version(name) for name, _ in entry.distributions}
    declared = {name: version for name, version in declared.items() if version.declared}
    seed = draw.holder.site.call.kwarg("seed")
    fixed_seed = seed is not None and not (isinstance(seed, Const) and seed.value is None)
    if not declared:
        return "warning"  # which release is installed decides it
    for name, version in declared.items():
        for follows_name, specifiers in entry.fixed_seed_follows_workers:
            if fixed_seed and follows_name == name and version.within(range_from_specifiers(specifiers)):
                return None
    affected = [version.overlaps(range_from_specifiers(dict(entry.distributions)[name])) for name, version in declared.items()]
    if not any(affected):
        return None
    entirely = all(version.within(range_from_specifiers(dict(entry.distributions)[name])) for name, version in declared.items())
    return "error" if entirely else "warning"


def _declared_releases(project: Project, draw: LibraryDraw) -> Optional[str]:
    """What the project's declarations allow of the library, when they allow releases the
    entry does not cover (``the project allows albumentations >=1.3``), or declare none;
    None when every allowed release is affected."""
    entry = draw.entry
    settings = project.settings_for(draw.holder.site.frame.module.path)
    declared = [(name, settings.library_version(name)) for name, _ in entry.distributions]
    declared = [(name, version) for name, version in declared if version.declared]
    if not declared:
        return "the project declares no version"
    ranges = dict(entry.distributions)
    if all(version.within(range_from_specifiers(ranges[name])) for name, version in declared):
        return None
    return "the project allows " + " and ".join(f"{name} {version.describe()}" for name, version in declared)


def _has_reseed(project: Project, draw: LibraryDraw) -> bool:
    """No declared version of the library predates the method the fix calls."""
    entry = draw.entry
    settings = project.settings_for(draw.holder.site.frame.module.path)
    names = [name for name, _ in entry.distributions] or [entry.library]
    return not entry.reseed_since or not any(
        settings.library_version(name).declared and settings.library_version(name).may_be_below(entry.reseed_since)
        for name in names
    )


RESEEDS = "reseeds"
RESEEDS_IF_FORKED = "reseeds-if-forked"


def _init_fn_reseeds(project: Project, init, entry: HeldRng, surely_hidden: bool = False) -> Optional[str]:
    """RESEEDS when the worker_init_fn reaches the dataset (where it may reseed the
    pipeline), is something seedlint cannot follow, or calls one of the library's
    reseeding functions (unless that reseeding surely misses the pipeline,
    ``library_reseed_reach``); RESEEDS_IF_FORKED when that function reseeds a module-level
    RNG only a forked worker shares with the pipeline; None when it reseeds nothing."""
    known = [v for v in init.values if isinstance(v, External) and library_worker_init(v.qualified) is not None]
    if any(entry.library in library_worker_init(v.qualified).libraries for v in known):
        return None if surely_hidden else RESEEDS
    if any(not isinstance(v, (FunctionObj, Constant)) and v not in known for v in init.values):
        return RESEEDS
    frames = init_fn_functions(project, init)
    if reaches_dataset(frames):
        return RESEEDS
    flow = project.flow
    if any(flow.callee_names(call, frame) & entry.reseeders for frame in frames for call in frame.function.function.calls):
        if surely_hidden:
            return None
        return RESEEDS_IF_FORKED if entry.reseeders_need_fork else RESEEDS
    return None


def _fix(project: Project, draw: LibraryDraw, instance) -> Optional[Fix]:
    """Reseed at the top of the dataset method that runs ``self.<attribute>``."""
    reached = draw.reached
    if reached is None or not draw.entry.reseed or not isinstance(instance, Instance):
        return None
    receiver = reached.frame.receiver
    function = reached.function.function
    if not isinstance(receiver, Instance) or function.name == "__init__" or not function.params:
        return None
    if instance.cls.key not in {item.key for item in project.index.mro(receiver.cls)} and receiver.key != instance.key:
        return None
    func = draw.call.func
    if not isinstance(func, Name) or func.qualified is not None:
        return None
    parts = func.dotted.split(".")
    if parts[0] != function.params[0] or len(parts) not in (2, 3):
        return None
    data = ((function.span.line, function.span.col, parts[1], f"library:{draw.entry.library}"),)
    return Fix(FIX_KIND, reached.function.module.path, function.span, True, data)


def _library_worker_init_fix(project: Project, loader, draw: LibraryDraw, init, init_absent: bool) -> Optional[Fix]:
    """The library's own per-worker reseeding, for a pipeline a library dataset holds (it
    walks the worker's dataset attributes): passed as the loader's worker_init_fn when the
    call can take one, or called first in the loader's own worker_init_fn."""
    entry = draw.entry
    if not entry.worker_init or draw.reached is not None:
        return None
    if init_absent:
        written = init.explicit is None or (isinstance(init.explicit, Const) and init.explicit.value is None)
        takes_it = loader.positional or project.loaders.accepts_keyword(loader, "worker_init_fn")
        if not written or not takes_it or loader.arguments_unknown:
            return None
        return Fix(LIBRARY_INIT_FIX_KIND, loader.module.path, loader.call.span, True, ("pass", entry.worker_init))
    value = next(iter(init.values)) if len(init.values) == 1 else None
    if not isinstance(value, FunctionObj):
        return None
    function = value.function.function
    if value.partial is not None or value.receiver is not None or function.is_lambda:
        return None
    if not function.param_kinds or function.param_kinds[0] not in ("posonly", "normal"):
        return None
    return Fix(LIBRARY_INIT_FIX_KIND, value.function.module.path, function.span, True, ("call", entry.worker_init))
