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
        key = (root.function.key, root.receiver.key if root.receiver is not None else None)
        if key not in reached:
            reached[key] = root
            queue.append(root)
    while queue and len(reached) < limit:
        frame = queue.pop(0)
        for call in frame.function.function.calls:
            if not flow.guards_may_hold(call.guards, frame):
                continue
            if follow is not None and not follow(frame, call):
                continue
            for callee, _ in flow.callee_frames(call, frame):
                key = (callee.function.key, callee.receiver.key if callee.receiver is not None else None)
                if key not in reached and len(reached) < limit:
                    reached[key] = callee
                    queue.append(callee)
    return list(reached.values())
