"""What the main process draws from NumPy's global RNG between two passes over a loader.

Workers started for the next epoch fork from the main process's NumPy state. When the
epoch loop that reads the loader also draws from NumPy in the main process (a mixup
``np.random.beta`` per batch, a random scale per step), that state has moved on and the
next epoch's workers do not repeat the last one's values. The draw is looked for in the
epoch loop's body and in the project functions it runs, a few calls down, whatever ``if``
it sits under: a draw that may run is enough to withhold the claim that epochs repeat.
"""

from __future__ import annotations

from typing import Optional, Tuple

from seedlint.analysis.loaders import LoaderCall
from seedlint.analysis.loops import contains
from seedlint.analysis.reach import reachable
from seedlint.facts.model import Call, ModuleFacts
from seedlint.rng import NUMPY, global_stream

MAX_FUNCTIONS = 80
"""Project functions followed from one epoch loop's body."""


def numpy_draw_between_passes(project, loader: LoaderCall) -> Optional[Tuple[ModuleFacts, Call]]:
    """(module, call) of a NumPy global draw the main process may make inside an epoch loop
    that reads the loader, or None."""
    flow = project.flow
    for epoch in project.loops.epoch_loops:
        if not any(obj.loader.call is loader.call for obj in epoch.loaders):
            continue
        body = [call for call in epoch.function.calls if contains(epoch.loop.span, call.span)]
        for call in body:
            if _draws_numpy(flow, call, epoch.frame):
                return epoch.module, call
        roots = [callee for call in body for callee, _ in flow.callee_frames(call, epoch.frame)]
        for frame in reachable(flow, roots, limit=MAX_FUNCTIONS):
            for call in frame.function.function.calls:
                if _draws_numpy(flow, call, frame):
                    return frame.module, call
    return None


def _draws_numpy(flow, call: Call, frame) -> bool:
    return any(global_stream(name) == NUMPY for name in flow.callee_names(call, frame))
