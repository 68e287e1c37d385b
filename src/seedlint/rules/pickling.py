"""Where a loader's workers may start by pickling what they run (spawn or forkserver) when
the code sets no start method: the condition SDL006 and SDL012 state in their messages."""

from __future__ import annotations

from typing import Iterator, Optional, Tuple

from seedlint.analysis.cuda_programs import cuda_call
from seedlint.analysis.loaders import LoaderCall
from seedlint.analysis.objects import Frame
from seedlint.analysis.start_methods import PICKLING_METHODS, StartMethod
from seedlint.knowledge.platforms import NO_CUDA_PLATFORM
from seedlint.rules.base import Project, where
from seedlint.span import Span


def where_workers_pickle(project: Project, loader: LoaderCall, frame: Frame, defined_in: Optional[str] = None) -> Optional[str]:
    """Where this loader's workers may start by pickling when the code sets no start method
    (the message's condition), or None where that cannot happen: a Linux-only program (the
    loader's, its caller's, that of the module that defines the callable, or every program
    that loads the loader's module) on Pythons before 3.14 always forks. The workers import the modules of the datasets they receive,
    so those modules' Pythons bound the run's too (one that imports imgaug runs NumPy 1,
    so no Python from 3.13 on)."""
    paths = [frame.module.path, loader.module.path] + ([defined_in] if defined_in else [])
    datasets = [instance.cls.module.path for instance in project.loaders.project_datasets(loader, frame)]
    pythons = [project.settings_for(path).python_version for path in dict.fromkeys([loader.module.path] + paths + datasets)]
    python = pythons[0]
    if not all(each.may_be_at_least("3") for each in pythons):
        return None  # Python 2 forks on Linux and macOS, and torch never built for it on Windows
    forkserver = all(each.may_be_at_least("3.14") for each in pythons)
    linux = next(filter(None, (project.linux_only(path) for path in paths)), None) or project.linux_only_users(loader.module.path)
    unix = next(filter(None, (project.unix_only(path) for path in paths)), None)
    cuda = _cuda_on_the_way(frame)
    no_mac = no_windows = ""
    if cuda:
        calling, (spelled, span) = cuda
        no_mac = f"; not {NO_CUDA_PLATFORM}, where torch has no CUDA build and the program calls {spelled} at {where(calling.module, span)}"
    if unix:
        no_windows = f"; not Windows: {unix}"
    if linux is None and unix and cuda:
        linux = f"{unix}, and the program calls {spelled} at {where(calling.module, span)}, which no macOS build of torch runs"
    if linux is None and forkserver:
        platforms = [p for p, out in (("Windows", unix), ("macOS", cuda)) if not out] + ["Linux from Python 3.14"]
        listed = " and ".join(platforms) if len(platforms) < 3 else f"{', '.join(platforms[:-1])}, and {platforms[-1]}"
        return f"under the spawn or forkserver start method (the default on {listed}{no_mac}{no_windows})"
    if linux is None:
        # macOS spawns by default from Python 3.8 (the multiprocessing docs' "Changed in version 3.8")
        mac_spawns = all(each.may_be_at_least("3.8") for each in pythons)
        platforms = [p for p, out in (("Windows", unix), ("macOS", cuda or not mac_spawns)) if not out]
        if not platforms:
            return None
        return (
            f"under the spawn start method (the default on {' and '.join(platforms)}{no_mac if mac_spawns else ''}{no_windows}; "
            f"Linux forks on the Pythons this project runs on, {python.describe()})"
        )
    if forkserver:
        return f"under the forkserver start method (Linux's default from Python 3.14; the program is Linux-only: {linux})"
    return None


def _cuda_on_the_way(frame: Frame) -> Optional[Tuple[Frame, Tuple[str, Span]]]:
    """The first call needing CUDA in the program code of the loader's function or of a
    caller on the way to it (``device = torch.device("cuda")`` in the training script's
    ``main`` that calls ``get_dataloader`` in ``util.py``)."""
    while frame is not None:
        found = cuda_call(frame.module, [frame.function.function.qualname])
        if found:
            return frame, found
        frame = frame.site.frame if frame.site is not None else None
    return None


def may_start_by_pickling(project: Project, loader: LoaderCall, frame: Frame) -> bool:
    """The loader's workers may start by spawn or forkserver: set so in the code, or the
    default somewhere the program may run."""
    method = project.start_methods.of(loader, frame)
    if method.name == "fork":
        return False
    return method.name in PICKLING_METHODS or where_workers_pickle(project, loader, frame) is not None


def pickling_loaders(project: Project) -> Iterator[Tuple[LoaderCall, Frame, StartMethod, bool]]:
    """Each loader context whose workers may start by pickling: (loader, frame, its start
    method, whether the code sets spawn or forkserver itself)."""
    loaders = project.loaders
    for loader in loaders.all:
        for frame in loaders.contexts(loader):
            if not loaders.workers(loader, frame).may_be_positive:
                continue
            method = project.start_methods.of(loader, frame)
            if method.name == "fork":
                continue
            error = method.name in PICKLING_METHODS
            if not error and where_workers_pickle(project, loader, frame) is None:
                continue
            yield loader, frame, method, error
