"""Whether ``torch.distributed.is_initialized()`` is certainly true where it is tested: the
program started a process group before it got there.

A factory that builds ``DataLoader(ds, sampler=DistributedSampler(ds))`` under ``if
dist.is_initialized():`` and a plain shuffling loader otherwise builds only the first for a
training script that calls ``init_process_group`` before calling the factory. The start
counts when it runs on every path to the test: a call to ``init_process_group`` (or to a
project function that makes one unguarded) earlier in the same function, under no ``if``
the path to the test does not also pass, in the function itself or in every caller up the
chain that the project's calls show, a few calls deep. Anything less leaves the test undecided.
"""

from __future__ import annotations

from typing import Optional, Sequence

from seedlint.analysis.objects import External, Frame, FunctionObj
from seedlint.facts.model import Call, Name

INITIALIZED_TESTS = frozenset({"torch.distributed.is_initialized", "torch.distributed.distributed_c10d.is_initialized"})
STARTERS = frozenset({"torch.distributed.init_process_group", "torch.distributed.distributed_c10d.init_process_group"})
MAX_CALLER_HOPS = 4
"""Callers followed up from the test; a start further up is not looked for."""


class ProcessGroupMixin:
    def process_group_truth(self, call: Call, frame: Frame) -> Optional[bool]:
        """True when ``call`` is ``is_initialized()`` and a process group certainly started
        before it on every path; None otherwise (never False: a group may start elsewhere)."""
        if call.args or call.kwargs or not isinstance(call.func, Name):
            return None
        if not (call.func.dotted.endswith("is_initialized") or (call.func.qualified or "").endswith("is_initialized")):
            return None  # a spelling screen (an imported alias is qualified): every call the value flow evaluates asks
        if not any(isinstance(obj, External) and obj.qualified in INITIALIZED_TESTS for obj in self.callee_objects(call, frame)):
            return None
        return True if self._started_before(frame, call.span.line, (), 0) else None

    def _started_before(self, frame: Frame, line: int, guards: Sequence, hops: int) -> bool:
        for call in frame.function.function.calls:
            if call.span.line < line and _within(call.guards, guards) and self._starts_group(call, frame, nested=True):
                return True
        if hops >= MAX_CALLER_HOPS:
            return False
        if frame.site is not None:
            site = frame.site
            return self._started_before(site.frame, site.call.span.line, site.call.guards, hops + 1)
        # Calls the search could not resolve (``net.train()`` beside ``def train():``) are not
        # waited for: taking the test as true costs at most the loader of the other branch.
        sites, _ = self.callsites.of(frame)
        if not sites:
            return False
        return all(self._started_before(site.frame, site.call.span.line, site.call.guards, hops + 1) for site in sites)

    def _starts_group(self, call: Call, frame: Frame, nested: bool) -> bool:
        for obj in self.callee_objects(call, frame):
            if isinstance(obj, External) and obj.qualified in STARTERS:
                return True
            if nested and isinstance(obj, FunctionObj):
                helper = self.function_frame(obj.function.module, obj.function.function)
                if any(not inner.guards and self._starts_group(inner, helper, nested=False) for inner in obj.function.function.calls):
                    return True
        return False


def _within(inner: Sequence, outer: Sequence) -> bool:
    """Every guard of ``inner`` is one the path through ``outer`` also passes."""
    return all(any(guard is other or guard == other for other in outer) for guard in inner)
