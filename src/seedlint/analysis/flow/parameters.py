"""Parameters: the argument a frame's call site passes (positional, keyword, ``*args`` /
``**kwargs``, ``functools.partial`` chains), or, with no call site, what every caller in the
project passes, or the default.
"""

from __future__ import annotations

from typing import List, Optional, Tuple

from seedlint.analysis.config_files import hydra_config
from seedlint.analysis.index import FunctionRef
from seedlint.analysis.objects import (
    NOTHING,
    UNKNOWN_SET,
    ClassObj,
    DictObj,
    Entry,
    Frame,
    Instance,
    SeqObj,
    Site,
    Values,
)
from seedlint.facts.model import Call, Name, Value
from seedlint.analysis.flow.shared import (
    _default,
    _is_classmethod,
    union,
)


class ParametersMixin:
    def param(self, frame: Frame, name: str) -> Values:
        key = (frame.key, name)
        found = self._params.get(key)
        if found is not None:
            return found
        self._params[key] = NOTHING
        found = self._param(frame, name)
        self._params[key] = found
        return found

    def _param(self, frame: Frame, name: str) -> Values:
        function = frame.function.function
        position = function.params.index(name)
        if position == 0 and function.decorators:
            config = self.configuration_of(frame.function)
            if config is not None:
                return self.eval(config, self.module_frame(frame.module))
        if position == 0 and self.receiver_param(frame.function):
            if frame.receiver is not None:
                return frozenset({frame.receiver})
            if frame.site is None:
                owner = self.index.class_of(frame.function)
                if owner is None:
                    return UNKNOWN_SET
                return frozenset({ClassObj(owner) if _is_classmethod(function) else Instance(owner, None)})
        if frame.site is not None:
            return self.bound_argument(frame.function, frame.site, name)
        sites, complete = self.callsites.binding(frame)
        found = [self.bound_argument(frame.function, site, name) for site in sites]
        if not sites:
            default = _default(function, name)
            found.append(self.eval(default, frame) if default is not None else UNKNOWN_SET)
        if not complete:
            found.append(UNKNOWN_SET)
        return union(found)

    def configuration_of(self, function: FunctionRef) -> Optional[Value]:
        """What a ``@hydra.main`` entry point receives as its configuration (None for other
        functions)."""
        key = function.key
        if key not in self._configurations:
            self._configurations[key] = hydra_config(function.module, function.function)
        return self._configurations[key]

    def receiver_param(self, function: FunctionRef) -> bool:
        """Whether the function's first parameter is bound to the object (or class) it is called on."""
        fn = function.function
        if fn.class_name is None or not fn.params or fn.is_lambda or fn.nested and fn.class_name is None:
            return False
        return not any(isinstance(d, Name) and d.dotted == "staticmethod" for d in fn.decorators)

    def parameter_expressions(self, frame: Frame, name: str) -> Tuple[List[Tuple[Value, Frame]], bool]:
        """The expressions (with the frames they are evaluated in) a parameter may be bound
        to in ``frame``, and whether that list is complete. Defaults are included where a
        call may not pass the parameter; ``*args``/``**kwargs`` parameters have none."""
        function = frame.function.function
        if function.decorators and function.params and name == function.params[0]:
            config = self.configuration_of(frame.function)
            if config is not None:
                return [(config, self.module_frame(frame.module))], True
        if frame.site is not None:
            return self._site_expressions(frame.function, frame.site, name)
        sites, complete = self.callsites.binding(frame)
        found: List[Tuple[Value, Frame]] = []
        for site in sites:
            expressions, closed = self._site_expressions(frame.function, site, name)
            found.extend(expressions)
            complete = complete and closed
        if not sites:
            default = _default(function, name)
            if default is not None:
                found.append((default, frame))
            else:
                complete = False
        return found, complete

    def _site_expressions(self, function: FunctionRef, site: Site, name: str) -> Tuple[List[Tuple[Value, Frame]], bool]:
        fn = function.function
        kinds = fn.param_kinds or ("normal",) * len(fn.params)
        kind = kinds[fn.params.index(name)]
        if kind in ("star", "starstar"):
            return [], False
        callee_frame = self.frame(function, None, site)
        if kind in ("posonly", "normal"):
            positional_params = [p for p, k in zip(fn.params, kinds) if k in ("posonly", "normal")]
            position = positional_params.index(name) - site.offset
            arguments, closed = self.positional_arguments(site)
            if 0 <= position < len(arguments):
                return [arguments[position]], True
            keyword = None if kind == "posonly" else next((k for k in reversed(site.keywords()) if k[0] == name), None)
            if keyword is not None:
                return [(keyword[1], keyword[2])], True
            if position >= len(arguments) and not closed:
                return [], False
        if kind != "posonly":
            for key, value, frame in reversed(site.keywords()):
                if key == name:
                    return [(value, frame)], True
        found: List[Tuple[Value, Frame]] = []
        complete = not (site.call.star_kwargs and not site.double_stars())
        for value, frame in site.double_stars():
            for obj in self.eval(value, frame):
                if not isinstance(obj, DictObj):
                    complete = False
                    continue
                for entry in self.dict_entries(obj):
                    if entry.key == name:
                        found.append((entry.value, entry.frame))
                    elif entry.key is Entry.ANY:
                        complete = False
                complete = complete and not obj.open
        default = _default(fn, name)
        if default is not None:
            found.append((default, callee_frame))
        elif not found:
            complete = False
        return found, complete

    def bound_argument(self, function: FunctionRef, site: Site, name: str) -> Values:
        """The values ``site`` passes for the parameter ``name`` of ``function``."""
        fn = function.function
        kinds = fn.param_kinds or ("normal",) * len(fn.params)
        index = fn.params.index(name)
        kind = kinds[index]
        positional_params = [p for p, k in zip(fn.params, kinds) if k in ("posonly", "normal")]
        callee_frame = self.frame(function, None, site)
        if kind == "star":
            arguments, closed = self.positional_arguments(site)
            extra = arguments[max(0, len(positional_params) - site.offset):]
            entries = [Entry(v, f) for v, f in extra]
            if not closed:
                entries += [Entry(v, f, spread=True) for v, f in site.stars()]
            return frozenset({SeqObj(entries, open=False, indexable=closed)})
        if kind == "starstar":
            named = set(fn.params)
            entries = [Entry(v, f, key) for key, v, f in site.keywords() if key not in named]
            entries += [Entry(v, f, Entry.ANY, spread=True) for v, f in site.double_stars()]
            return frozenset({DictObj(entries, open=site.call.star_kwargs and not site.double_stars())})
        if kind in ("posonly", "normal"):
            position = positional_params.index(name) - site.offset
            arguments, closed = self.positional_arguments(site)
            if 0 <= position < len(arguments):
                value, frame = arguments[position]
                return self.eval(value, frame)
            # a keyword for it means ``*args`` reaches no further (else: TypeError, multiple values)
            keyword = None if kind == "posonly" else next((k for k in reversed(site.keywords()) if k[0] == name), None)
            if keyword is not None:
                return self.eval(keyword[1], keyword[2])
            if position >= len(arguments) and not closed:
                return union(self.elements(self.eval(v, f)) for v, f in site.stars()) | UNKNOWN_SET
        if kind != "posonly":
            for key, value, frame in reversed(site.keywords()):
                if key == name:
                    return self.eval(value, frame)
        found: List[Values] = []
        passed_maybe = False
        for value, frame in site.double_stars():
            for obj in self.eval(value, frame):
                if isinstance(obj, DictObj):
                    for entry in self.dict_entries(obj):
                        if entry.key == name:
                            found.append(self.eval(entry.value, entry.frame))
                        elif entry.key is Entry.ANY:
                            passed_maybe = True
                    passed_maybe = passed_maybe or obj.open
                else:
                    passed_maybe = True
        if passed_maybe or (site.call.star_kwargs and not site.double_stars()):
            found.append(UNKNOWN_SET)
        if not found or passed_maybe:
            default = _default(fn, name)
            found.append(self.eval(default, callee_frame) if default is not None else UNKNOWN_SET)
        return union(found)

    def positional_arguments(self, site: Site) -> Tuple[List[Tuple[Value, Frame]], bool]:
        """The positional arguments a site passes, with ``*x`` expanded when ``x`` is a
        sequence whose elements are known in order; False when the tail is not known."""
        arguments = site.positional()
        for value, frame in site.stars():
            values = self.eval(value, frame)
            only = next(iter(values)) if len(values) == 1 else None
            if not isinstance(only, SeqObj) or not only.indexable or only.open:
                return arguments, False
            arguments = arguments + [(e.value, e.frame) for e in only.entries]
        return arguments, True

    def keyword_values(self, call: Call, frame: Frame, name: str, position: Optional[int] = None) -> Optional[Values]:
        """What ``call`` passes for the keyword ``name`` (or at ``position``), also through
        ``**kwargs`` dicts and ``*args``: None when it certainly passes nothing; UNKNOWN in
        the set when it may pass something unseen (or nothing)."""
        value = call.argument(name, position)
        if value is not None:
            return self.eval(value, frame)
        site = Site(frame, call)
        found: List[Values] = []
        if position is not None and call.stars:
            arguments, closed = self.positional_arguments(site)
            if position < len(arguments):
                return self.eval(*arguments[position])
            if not closed:
                found.append(UNKNOWN_SET)
        if call.star_kwargs and not call.double_stars:
            found.append(UNKNOWN_SET)
        for value, inner in site.double_stars():
            for obj in self.eval(value, inner):
                if not isinstance(obj, DictObj):
                    found.append(UNKNOWN_SET)
                    continue
                for entry in self.dict_entries(obj):
                    if entry.key == name:
                        found.append(self.eval(entry.value, entry.frame))
                    elif entry.key is Entry.ANY:
                        found.append(UNKNOWN_SET)
                if obj.open:
                    found.append(UNKNOWN_SET)
        return union(found) if found else None
