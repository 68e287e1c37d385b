"""The one reachability walk: every project function a set of frames may run, through
calls the value flow resolves, skipping calls whose ``if`` guards cannot hold.

Worker code, ``worker_init_fn`` helpers, seeding helpers and epoch-loop helpers are all
found with it; its bound is ``MAX_REACHED``.
"""

from __future__ import annotations

from typing import Callable, Dict, Iterable, List, Optional

from seedlint.analysis.objects import Frame
from seedlint.facts.model import Call

MAX_REACHED = 300


def reachable(
    flow,
    roots: Iterable[Frame],
    follow: Optional[Callable[[Frame, Call], bool]] = None,
    limit: int = MAX_REACHED,
) -> List[Frame]:
    """``roots`` and the frames they reach, breadth first; ``follow`` may refuse a call."""
    reached: Dict[tuple, Frame] = {}
    queue: List[Frame] = []
    for root in roots:
        key = _key(root)
        if key not in reached:
            reached[key] = root
            queue.append(root)
    while queue and len(reached) < limit:
        frame = queue.pop(0)
        for call in frame.function.function.calls:
            if follow is not None and not follow(frame, call):
                continue
            fresh = [(_key(callee), callee) for callee, _ in flow.callee_frames(call, frame)]
            fresh = [(key, callee) for key, callee in fresh if key not in reached]
            # The guards only decide whether new frames join: evaluated last, and only then.
            if not fresh or not flow.guards_may_hold(call.guards, frame):
                continue
            for key, callee in fresh:
                if key not in reached and len(reached) < limit:
                    reached[key] = callee
                    queue.append(callee)
    return list(reached.values())


def _key(frame: Frame) -> tuple:
    return (frame.function.key, frame.receiver.key if frame.receiver is not None else None)
