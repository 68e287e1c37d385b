"""The frames expressions are evaluated in: a function called from one call site (or from
anywhere), a method for one object, an ``__init__`` with the arguments of the construction
or of the subclass's ``super().__init__(...)``. Contexts are bounded by ``MAX_CONTEXT``.
"""

from __future__ import annotations

from typing import List, Optional, Tuple

from seedlint import timing
from seedlint.analysis.index import FunctionRef
from seedlint.analysis.objects import (
    MAX_CONTEXT,
    Frame,
    FunctionObj,
    Instance,
    Obj,
    Site,
)
from seedlint.facts.model import Function, ModuleFacts
from seedlint.analysis.flow.shared import (
    _spelled,
)


class FramesMixin:
    def frame(self, function: FunctionRef, receiver: Optional[Obj] = None, site: Optional[Site] = None) -> Frame:
        if site is not None and site.frame.depth >= MAX_CONTEXT:
            timing.limit_hit("call context depth")
            site = None
        if isinstance(receiver, Instance) and receiver.site is not None and receiver.site.frame.depth >= MAX_CONTEXT:
            receiver = Instance(receiver.cls, None, receiver.via or (receiver.site.frame.module, receiver.site.call))
        key = (function.key, receiver.key if receiver is not None else None, site.key if site is not None else None)
        found = self._frames.get(key)
        if found is None:
            found = self._frames[key] = Frame(function, receiver, site)
        return found

    def frames_per_call(self, frame: Frame, most: int = 16) -> Tuple[List[Tuple[Site, Frame]], bool]:
        """For each known call of the frame's function (the first ``most``), the call and the
        frame the function runs in for it; and whether every call is known. A guard decided
        in each such frame is decided for every caller the search found."""
        sites, complete = self.callsites.binding(frame)
        if len(sites) > most:
            timing.limit_hit("calls decided one by one")
        return [(site, self.frame(frame.function, frame.receiver, site)) for site in sites[:most]], complete

    def module_frame(self, module: ModuleFacts) -> Frame:
        return self.frame(FunctionRef(module, module.module_code))

    def function_frame(self, module: ModuleFacts, function: Function) -> Frame:
        """The frame of a function called from anywhere."""
        return self.frame(FunctionRef(module, function))

    def method_frame(self, method: FunctionRef, instance: Obj) -> Frame:
        """The frame a method runs in for ``instance``: the class's ``__init__`` with the
        construction's arguments, a base class's ``__init__`` with what the subclass's
        ``super().__init__(...)`` passes, any other method with whatever its callers pass."""
        if not isinstance(instance, Instance) or method.function.name != "__init__" or instance.site is None:
            return self.frame(method, instance)
        return self.method_frames(method, instance)[0]

    def method_frames(self, method: FunctionRef, instance: Obj) -> List[Frame]:
        """Every frame a method runs in for ``instance``: one per ``super().__init__(...)``
        call that reaches a base class's ``__init__`` (a subclass may call it twice, first
        with no arguments), else the one ``method_frame`` gives."""
        if not isinstance(instance, Instance) or method.function.name != "__init__" or instance.site is None:
            return [self.frame(method, instance)]
        key = ("init-frame", method.key, instance.key)
        found = self._frames.get(key)
        if found is None:
            self._frames[key] = [self.frame(method, instance)]
            found = self._frames[key] = self._init_frames(method, instance)
        return found

    def _init_frames(self, method: FunctionRef, instance: Instance) -> List[Frame]:
        tops = self.index.constructors(instance.cls)
        site = instance.site
        if not tops or any(top.key == method.key for top in tops):
            return [self.frame(method, instance, Site(site.frame, site.call, 1, site.prefix))]
        for item in self.index.mro(instance.cls):
            qualname = item.cls.methods.get("__init__")
            if qualname is None:
                continue
            caller = FunctionRef(item.module, item.module.functions[qualname])
            if caller.key == method.key:
                continue
            caller_frame = self.method_frame(caller, instance)
            frames = []
            for call in caller.function.calls:
                if _spelled(call.func) != "__init__":
                    continue
                for obj in self.callee_objects(call, caller_frame):
                    if isinstance(obj, FunctionObj) and obj.function.key == method.key:
                        offset = 1 if obj.receiver is not None else 0
                        frames.append(self.frame(method, instance, Site(caller_frame, call, offset)))
                        break
            if frames:
                return frames
        return [self.frame(method, instance)]
