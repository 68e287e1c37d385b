"""What the value flow says an expression may evaluate to: abstract objects, and the
frames (a function and the context it runs in) expressions are evaluated in.

Every object and frame has a ``key`` that says which object it is: a flat tuple for
leaves (a class, a constant, a library name), and for objects made of others a small
integer standing for the tuple of their parts' keys, so keys never nest. Two objects with the same key are the same object; memo tables are keyed by it.
Contexts are bounded (``MAX_CONTEXT``), so the number of frames stays proportional to the
project. ``reset_keys`` starts a new run's table.
"""

from __future__ import annotations

from typing import Dict, FrozenSet, Iterable, List, Optional, Tuple

from seedlint.analysis.index import ClassRef, FunctionRef
from seedlint.facts.model import Call, ModuleFacts, Value

MAX_CONTEXT = 4
"""How many call sites (or constructions) deep a frame's context may go before the
analysis forgets it and treats the function as called from anywhere."""

_KEYS: Dict[tuple, int] = {}


def intern(parts: tuple) -> int:
    """The key standing for ``parts`` in this run."""
    key = _KEYS.get(parts)
    if key is None:
        key = _KEYS[parts] = len(_KEYS) + 1
    return key


def reset_keys() -> None:
    _KEYS.clear()


class Obj:
    """An abstract object. Subclasses set ``key`` in ``__init__``."""

    __slots__ = ("key",)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Obj) and self.key == other.key

    def __hash__(self) -> int:
        return hash(self.key)

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.key}>"


class Unknown(Obj):
    """Anything: the analysis cannot say. A value set that holds it is incomplete."""

    __slots__ = ()

    def __init__(self) -> None:
        self.key = ("unknown",)


UNKNOWN = Unknown()


class FromCommandLine(Unknown):
    """Whatever a command-line option may be given: unknown, but not what the program runs
    with when its command line leaves the option at its default. ``option`` is its flag
    (``--num_workers``), when the option has one."""

    __slots__ = ("option",)

    def __init__(self, option: str = "") -> None:
        self.option = option
        self.key = ("unknown", "command line", option)


COMMAND_LINE = FromCommandLine()
Values = FrozenSet[Obj]
NOTHING: Values = frozenset()
UNKNOWN_SET: Values = frozenset({UNKNOWN})


class Frame:
    """A function running in a context: the object bound to its ``self`` (``receiver``),
    and the call that runs it (``site``). Without a site, its parameters are whatever
    any caller in the project passes."""

    __slots__ = ("function", "receiver", "site", "key", "depth")

    def __init__(self, function: FunctionRef, receiver: Optional[Obj], site: Optional["Site"]) -> None:
        self.function = function
        self.receiver = receiver
        self.site = site
        self.key = intern((function.key, receiver.key if receiver is not None else None, site.key if site is not None else None))
        self.depth = max(site.frame.depth + 1 if site is not None else 0, context_depth(receiver))

    @property
    def module(self) -> ModuleFacts:
        return self.function.module

    def __repr__(self) -> str:
        return f"<Frame {self.function.function.qualname} depth={self.depth}>"


class Site:
    """A call that runs a function: the caller's frame, the call, how many leading
    parameters are bound without an argument (``self`` of a bound method), and for a
    ``functools.partial`` object the site of the ``partial(...)`` call whose arguments
    come first."""

    __slots__ = ("frame", "call", "offset", "prefix", "key")

    def __init__(self, frame: Frame, call: Call, offset: int = 0, prefix: Optional["Site"] = None) -> None:
        self.frame = frame
        self.call = call
        self.offset = offset
        self.prefix = prefix
        self.key = intern((frame.key, id(call), offset, prefix.key if prefix is not None else None))

    def positional(self) -> List[Tuple[Value, Frame]]:
        found = self.prefix.bound() if self.prefix is not None else []
        found.extend((value, self.frame) for value in self.call.args)
        return found

    def bound(self) -> List[Tuple[Value, Frame]]:
        """For the site of a ``partial(f, *args)`` call: the positional arguments it binds,
        after those of the partial object ``f`` itself (``partial(partial(f, a), b)``)."""
        found = self.prefix.bound() if self.prefix is not None else []
        found.extend((value, self.frame) for value in self.call.args[1:])
        return found

    def keywords(self) -> List[Tuple[str, Value, Frame]]:
        found: List[Tuple[str, Value, Frame]] = []
        if self.prefix is not None:
            found.extend(self.prefix.keywords())
        found.extend((key, value, self.frame) for key, value in self.call.kwargs)
        return found

    def stars(self) -> List[Tuple[Value, Frame]]:
        found = self.prefix.stars() if self.prefix is not None else []
        return found + [(value, self.frame) for value in self.call.stars]

    def double_stars(self) -> List[Tuple[Value, Frame]]:
        found = self.prefix.double_stars() if self.prefix is not None else []
        return found + [(value, self.frame) for value in self.call.double_stars]

    @property
    def unknown_arguments(self) -> bool:
        """``*args`` or ``**kwargs`` whose contents the facts do not spell out."""
        return self.call.star_args or self.call.star_kwargs or (self.prefix is not None and self.prefix.unknown_arguments)


def context_depth(obj: Optional[Obj]) -> int:
    if isinstance(obj, Instance) and obj.site is not None:
        return obj.site.frame.depth + 1
    return 0


class ClassObj(Obj):
    """A project class (the class object itself). ``chosen`` says how it was picked when
    a name known only at run time picks it (``REGISTRY[cfg.type]``, ``eval(cfg.model)``)."""

    __slots__ = ("cls", "chosen")

    def __init__(self, cls: ClassRef, chosen: Optional[str] = None) -> None:
        self.cls = cls
        self.chosen = chosen
        self.key = ("class", cls.key, chosen)


class Instance(Obj):
    """An object of a project class. ``site`` is the construction call when the analysis
    knows it (its arguments then bind ``__init__``'s parameters); ``via`` is where it was
    built when that is not a plain construction (a registry's ``build(cfg)``)."""

    __slots__ = ("cls", "site", "via", "chosen")

    def __init__(
        self, cls: ClassRef, site: Optional[Site], via: Optional[Tuple[ModuleFacts, Call]] = None, chosen: Optional[str] = None
    ) -> None:
        self.cls = cls
        self.site = site
        self.via = via
        self.chosen = chosen
        """How its class was picked, when a name known only at run time picked it."""
        self.key = intern(("instance", cls.key, site.key if site is not None else None, id(via[1]) if via else None, chosen))

    @property
    def built_at(self) -> Optional[Tuple[ModuleFacts, Call]]:
        """The call that built the object, for messages."""
        if self.via is not None:
            return self.via
        if self.site is not None:
            return self.site.frame.module, self.site.call
        return None


class FunctionObj(Obj):
    """A project function, lambda or method; bound to ``receiver`` when it is a bound
    method, and carrying the ``partial(...)`` site when it is a ``functools.partial``."""

    __slots__ = ("function", "receiver", "partial")

    def __init__(self, function: FunctionRef, receiver: Optional[Obj] = None, partial: Optional[Site] = None) -> None:
        self.function = function
        self.receiver = receiver
        self.partial = partial
        self.key = intern((
            "function", function.key, receiver.key if receiver is not None else None, partial.key if partial is not None else None
        ))


class External(Obj):
    """Something outside the project, by qualified name: a library class, function or module."""

    __slots__ = ("qualified",)

    def __init__(self, qualified: str) -> None:
        self.qualified = qualified
        self.key = ("external", qualified)


class ExternalInstance(Obj):
    """What calling a library callable returned (``np.random.default_rng(0)``,
    ``DistributedSampler(ds)``), with the call that made it."""

    __slots__ = ("qualified", "site")

    def __init__(self, qualified: str, site: Site) -> None:
        self.qualified = qualified
        self.site = site
        self.key = intern(("external-instance", qualified, site.key))

    @property
    def built_at(self) -> Optional[Tuple[ModuleFacts, Call]]:
        return self.site.frame.module, self.site.call


class Constant(Obj):
    __slots__ = ("value",)

    def __init__(self, value: object) -> None:
        self.value = value
        self.key = ("constant", type(value).__name__, value if hashable(value) else repr(value))

    def with_value(self, value: object) -> "Constant":
        """A constant computed from this one (``name.lower()``), from the same place."""
        return Constant(value)


def hashable(value: object) -> bool:
    try:
        hash(value)
    except TypeError:
        return False
    return True


NONE = Constant(None)


class ConfiguredConstant(Constant):
    """A constant a configuration file sets (``num_workers: 8``): ``place`` is the (path,
    line) of its key."""

    __slots__ = ("place",)

    def __init__(self, value: object, place: Tuple[str, int]) -> None:
        super().__init__(value)
        self.place = place
        self.key = self.key + ("configured", place)

    def with_value(self, value: object) -> "Constant":
        return ConfiguredConstant(value, self.place)


class OptionConstant(Constant):
    """A constant only the command line gives an option (``True`` of a ``store_true`` flag,
    one of its ``choices`` other than the default): ``option`` is its flag (``--dense_sample``)."""

    __slots__ = ("option", "typed")

    def __init__(self, value: object, option: str, typed: object = None) -> None:
        super().__init__(value)
        self.option = option
        self.typed = value if typed is None else typed
        """The value as the command line gives it (before ``.lower()`` and the like)."""
        self.key = self.key + ("option", option)

    def with_value(self, value: object) -> "Constant":
        return OptionConstant(value, self.option, self.typed)


class DocumentedConstant(Constant):
    """A constant a documented command passes to a command-line option: ``spelled`` is the
    option as written (``--num_workers 8``), ``file`` and ``line`` where (relative to the
    project root)."""

    __slots__ = ("spelled", "file", "line")

    def __init__(self, value: object, spelled: str, file: str, line: int) -> None:
        super().__init__(value)
        self.spelled = spelled
        self.file = file
        self.line = line
        self.key = self.key + ("documented", file, line)

    def with_value(self, value: object) -> "Constant":
        return DocumentedConstant(value, self.spelled, self.file, self.line)


class Entry:
    """One element of a sequence or one item of a dict: an expression and the frame it is
    evaluated in. ``key`` is the dict key (a constant, or ``Entry.ANY`` when not static);
    ``spread`` marks ``*x`` / ``**x`` / ``yield from x``: the elements of ``x``, not ``x``."""

    __slots__ = ("key", "value", "frame", "spread", "ident")
    ANY = ("<any key>",)

    def __init__(self, value: Value, frame: Frame, key: object = None, spread: bool = False) -> None:
        self.key = key
        self.value = value
        self.frame = frame
        self.spread = spread
        self.ident = (id(value), frame.key, key if hashable(key) else repr(key), spread)


class SeqObj(Obj):
    """A list, tuple, set or iterator whose elements are known expressions. ``open``: it may
    hold elements the analysis did not see. ``indexable``: positions mean what they say
    (a display), else any element may be at any index (a list built by ``append``)."""

    __slots__ = ("entries", "open", "indexable")

    def __init__(self, entries: Iterable[Entry], open: bool = False, indexable: bool = True) -> None:
        self.entries = tuple(entries)
        self.open = open
        self.indexable = indexable and not any(e.spread for e in self.entries)
        self.key = intern(("seq", tuple(e.ident for e in self.entries), open, self.indexable))


class DictObj(Obj):
    """A dict (or ``**kwargs``) whose items are known expressions. ``open``: it may hold
    keys the analysis did not see. ``origin``: the module-level variable that holds it, so
    items stored into that variable anywhere (``REGISTRY["voc"] = VOC``) belong to it."""

    __slots__ = ("entries", "open", "origin", "attributes")

    def __init__(
        self, entries: Iterable[Entry], open: bool = False, origin: Optional[Tuple[str, str]] = None, attributes: bool = False,
    ) -> None:
        self.entries = tuple(entries)
        self.open = open
        self.origin = origin
        self.attributes = attributes
        """Its keys also read as attributes (a configuration: ``cfg.data.num_workers``)."""
        self.key = intern(("dict", tuple(e.ident for e in self.entries), open, origin, attributes))

    def with_origin(self, origin: Tuple[str, str]) -> "DictObj":
        return DictObj(self.entries, self.open, origin, self.attributes)


class ModuleObj(Obj):
    __slots__ = ("module",)

    def __init__(self, module: ModuleFacts) -> None:
        self.module = module
        self.key = ("module", module.path)


class MethodOf(Obj):
    """An attribute of an object the analysis models only through its methods: a dict's
    ``get``, a library object's ``normal`` (``rng.normal``), a registry's ``build``."""

    __slots__ = ("receiver", "name")

    def __init__(self, receiver: Obj, name: str) -> None:
        self.receiver = receiver
        self.name = name
        self.key = intern(("method-of", receiver.key, name))


class ArgsObj(Obj):
    """What ``parser.parse_args()`` returns: its attributes are the options' defaults
    (``add_argument(..., default=...)``, ``set_defaults(...)``) of ``parser``."""

    __slots__ = ("parser", "pair")

    def __init__(self, parser: "ExternalInstance", pair: bool = False) -> None:
        self.parser = parser
        self.pair = pair
        """``parse_known_args()``: the pair (namespace, the arguments it did not know)."""
        self.key = intern(("args", parser.key, pair))


class ParsedDataclasses(Obj):
    """What ``HfArgumentParser(classes).parse_args_into_dataclasses()`` returns: one object
    per dataclass the parser was given, in order."""

    __slots__ = ("parser",)

    def __init__(self, parser: "ExternalInstance") -> None:
        self.parser = parser
        self.key = intern(("parsed dataclasses", parser.key))


class ParsedDataclass(Obj):
    """One dataclass object ``HfArgumentParser`` fills from the command line: each field is
    its default unless the command line passes ``--field``. ``cls``: the class (a project
    ``ClassObj`` or a library ``External``)."""

    __slots__ = ("cls", "parser")

    def __init__(self, cls: "Obj", parser: "ExternalInstance") -> None:
        self.cls = cls
        self.parser = parser
        self.key = intern(("parsed dataclass", cls.key, parser.key))


class HParams(Obj):
    """``self.hparams`` of a Lightning object whose ``__init__`` called
    ``self.save_hyperparameters()``: its attributes are the arguments of that ``__init__``
    (in ``init_frame``), all of them or the ``names`` listed, minus ``ignored``."""

    __slots__ = ("init_frame", "names", "ignored")

    def __init__(self, init_frame: Frame, names: Optional[Tuple[str, ...]], ignored: Tuple[str, ...]) -> None:
        self.init_frame = init_frame
        self.names = names
        self.ignored = ignored
        self.key = intern(("hparams", init_frame.key, names, ignored))

    def holds(self, name: str) -> bool:
        params = self.init_frame.function.function.params
        return name in params[1:] and name not in self.ignored and (self.names is None or name in self.names)


class SuperObj(Obj):
    """``super()`` inside a method of ``cls``, for the object ``receiver``."""

    __slots__ = ("cls", "receiver")

    def __init__(self, cls: ClassRef, receiver: Optional[Obj]) -> None:
        self.cls = cls
        self.receiver = receiver
        self.key = intern(("super", cls.key, receiver.key if receiver is not None else None))


def may_be_unknown(values: Values) -> bool:
    return any(isinstance(v, Unknown) for v in values)


def known(values: Values) -> List[Obj]:
    return [v for v in values if v is not UNKNOWN]


def order_key(obj: Optional[Obj], depth: int = 0) -> tuple:
    """A sort key that does not depend on hashing or on the order objects were made in:
    the same program gives the same order under any ``PYTHONHASHSEED``."""
    if obj is None or depth > 4:
        return ()
    kind = type(obj).__name__
    if isinstance(obj, Constant):
        # Where a configured, documented or command-line constant comes from breaks ties
        # between equal values (``num_workers: 2`` in two configuration files).
        origin = getattr(obj, "place", None) or (getattr(obj, "file", ""), getattr(obj, "line", 0), getattr(obj, "option", ""))
        return (kind, type(obj.value).__name__, repr(obj.value), repr(origin))
    if isinstance(obj, ClassObj):
        return (kind, obj.cls.key, obj.chosen or "")
    if isinstance(obj, Instance):
        return (kind, obj.cls.key, _site_key(obj.site, depth), obj.chosen or "")
    if isinstance(obj, FunctionObj):
        return (kind, obj.function.key, order_key(obj.receiver, depth + 1), _site_key(obj.partial, depth))
    if isinstance(obj, External):
        return (kind, obj.qualified)
    if isinstance(obj, ExternalInstance):
        return (kind, obj.qualified, _site_key(obj.site, depth))
    if isinstance(obj, ModuleObj):
        return (kind, obj.module.path)
    if isinstance(obj, MethodOf):
        return (kind, obj.name, order_key(obj.receiver, depth + 1))
    if isinstance(obj, (SeqObj, DictObj)):
        return (kind, tuple(_span_key(e.value) for e in obj.entries))
    return (kind,)


def _site_key(site: Optional[Site], depth: int) -> tuple:
    if site is None:
        return ()
    span = getattr(site.call, "span", None)
    where = (span.line, span.col) if span is not None else ()
    return (site.frame.function.key, where, site.offset, _site_key(site.frame.site, depth + 1) if depth < 4 else ())


def _span_key(value) -> tuple:
    span = getattr(value, "span", None)
    return (span.line, span.col) if span is not None else ()


def ordered(values: Iterable[Obj]) -> List[Obj]:
    """``values`` in a stable order (see ``order_key``)."""
    listed = list(values)
    if len(listed) < 2:
        return listed
    return sorted(listed, key=order_key)
