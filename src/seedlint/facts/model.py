"""Plain-data facts that one libcst pass records about a module.

Everything here is picklable and free of libcst nodes, so facts can be cached and
shipped between processes. Rules never see syntax trees; they see these records.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Dict, FrozenSet, List, Optional, Set, Tuple, Union

from seedlint.span import Span


@dataclass(eq=False)
class Name:
    """A name or a dotted attribute chain rooted at a name, e.g. ``np.random.rand``.

    ``qualified`` is the resolved name (``numpy.random.rand``, ``pkg.data.VOC``); it is
    None when the root is bound locally in the function ``scope`` (a parameter, a
    local variable, ``self``).
    """

    dotted: str
    span: Span
    qualified: Optional[str] = None
    scope: str = ""

    @property
    def root(self) -> str:
        return self.dotted.split(".", 1)[0]

    @property
    def rest(self) -> str:
        parts = self.dotted.split(".", 1)
        return parts[1] if len(parts) > 1 else ""


@dataclass(eq=False)
class Call:
    func: "Value"
    args: Tuple["Value", ...]
    kwargs: Tuple[Tuple[str, "Value"], ...]
    span: Span
    star_args: bool = False
    star_kwargs: bool = False
    keyword_spans: Tuple[Span, ...] = ()
    """Where each keyword of ``kwargs`` is spelled (the name, or the key string of ``**{...}``)."""
    stars: Tuple["Value", ...] = ()
    """What ``*x`` arguments unpack (``star_args`` says one is there)."""
    double_stars: Tuple["Value", ...] = ()
    """What ``**x`` arguments unpack when their keys are not spelled out (``star_kwargs``)."""
    guards: Tuple["Guard", ...] = ()
    """The ``if`` conditions the call runs under, in its own function (see ``Guard``)."""

    def keyword_span(self, name: str) -> Optional[Span]:
        for (key, _), span in zip(self.kwargs, self.keyword_spans):
            if key == name:
                return span
        return None

    def kwarg(self, name: str) -> Optional["Value"]:
        for key, value in self.kwargs:
            if key == name:
                return value
        return None

    def argument(self, name: str, position: Optional[int] = None) -> Optional["Value"]:
        """The value passed for a parameter, by keyword or by position."""
        value = self.kwarg(name)
        if value is None and position is not None and position < len(self.args):
            value = self.args[position]
        return value


@dataclass(frozen=True)
class Const:
    value: Union[int, float, str, bool, None, bytes, complex]


@dataclass(frozen=True)
class ConfigConst(Const):
    """A constant a configuration file sets: ``place`` is (path, line) of its key."""

    place: Tuple[str, int] = field(default=("", 0), compare=False)


@dataclass(eq=False)
class Seq:
    """A list, tuple or set display."""

    items: Tuple["Value", ...]


@dataclass(eq=False)
class Subscript:
    value: "Value"
    index: "Value"


@dataclass(eq=False)
class Attr:
    """An attribute of something that is not a plain name, e.g. ``get_worker_info().seed``."""

    value: "Value"
    attr: str


@dataclass(eq=False)
class BinOp:
    op: str
    left: "Value"
    right: "Value"


@dataclass(eq=False)
class IfExp:
    body: "Value"
    orelse: "Value"
    test: "Value" = None  # type: ignore[assignment]
    """The condition; None in facts written before it was recorded."""


@dataclass(eq=False)
class Lambda:
    """A lambda; its body's calls live in the Function record named ``qualname``."""

    qualname: str
    span: Span


@dataclass(eq=False)
class DictDisplay:
    """A dict display ``{k: v, **rest}``; ``keys`` and ``values`` are parallel."""

    keys: Tuple["Value", ...]
    values: Tuple["Value", ...]
    stars: Tuple["Value", ...] = ()
    attributes: bool = False
    """Its keys also read as attributes: a configuration (OmegaConf's ``cfg.data.workers``)."""


@dataclass(eq=False)
class Compare:
    """A single comparison ``left <op> right``: op is ``==``, ``!=``, ``is``, ``is not``, ``in``,
    ``not in``, ``<``, ``<=``, ``>`` or ``>=``."""

    op: str
    left: "Value"
    right: "Value"


@dataclass(eq=False)
class BoolOp:
    op: str
    """``and`` or ``or``."""
    values: Tuple["Value", ...]


@dataclass(eq=False)
class Not:
    value: "Value"


@dataclass(eq=False)
class Comprehension:
    """A list, set or generator comprehension; its element's names are bound by it."""

    element: "Value"
    iterable: Optional["Value"] = None
    """What its first ``for`` iterates, read in the enclosing scope."""


@dataclass(eq=False)
class Each:
    """An element that iterating ``iterable`` gives (what a ``for`` target unpacks)."""

    iterable: "Value"


@dataclass(frozen=True)
class Unknown:
    """An expression whose value seedlint does not model."""


Value = Union[
    Name, Call, Const, Seq, Subscript, Attr, BinOp, IfExp, Lambda, DictDisplay, Compare, BoolOp, Not, Comprehension, Each, Unknown
]
UNKNOWN = Unknown()

Guard = Tuple[Value, bool]
"""An ``if`` test and the truth value it has where the guarded code runs: the body of
``if t:`` runs under ``(t, True)``, its ``else`` and the statements after
``if t: return`` under ``(t, False)``. Code in an ``except`` block runs under
``(EXCEPT, True)``."""
EXCEPT = Const("<except>")
"""The guard of code that runs only when an exception was raised (an error path)."""


@dataclass(eq=False)
class Assign:
    """``target = value``: also annotated assignments, the walrus, each name a tuple target
    unpacks (``a, b = f()`` binds ``a`` to ``f()[0]``), each name of a ``for`` tuple target
    (``for k, v in d.items()``) and ``with ... as x``."""

    target: str
    value: Value
    span: Span
    guards: Tuple[Guard, ...] = ()


@dataclass(eq=False)
class ItemAssign:
    """``container[key] = value``."""

    container: Value
    key: Value
    value: Value
    span: Span
    guards: Tuple[Guard, ...] = ()


@dataclass(eq=False)
class Loop:
    """A ``for`` or ``while`` statement and the calls and assignments inside its body."""

    span: Span
    target: str
    iterable: Value
    """For a ``while`` loop: its test."""
    calls: List[Call] = field(default_factory=list)
    assigns: List[Assign] = field(default_factory=list)
    is_while: bool = False


@dataclass(eq=False)
class Function:
    """A def, a lambda, or the module's top-level code (qualname ``<module>``)."""

    qualname: str
    name: str
    span: Span
    params: Tuple[str, ...] = ()
    defaults: Tuple[Tuple[str, Value], ...] = ()
    class_name: Optional[str] = None
    nested: bool = False
    is_lambda: bool = False
    decorators: Tuple[Value, ...] = ()
    param_kinds: Tuple[str, ...] = ()
    """Parallel to ``params``: "posonly", "normal", "star" (*args), "kwonly" or "starstar" (**kwargs)."""
    calls: List[Call] = field(default_factory=list)
    assigns: List[Assign] = field(default_factory=list)
    returns: List[Value] = field(default_factory=list)
    return_guards: List[Tuple[Guard, ...]] = field(default_factory=list)
    """Parallel to ``returns``: the guards each ``return`` runs under."""
    exits: List[Span] = field(default_factory=list)
    """Blocks that end with ``return`` or ``raise``: what they bind reaches no code after them."""
    raising_tests: List[Value] = field(default_factory=list)
    """Tests of ``if t: ... raise`` (no ``else``): a run where ``t`` holds fails there, so the
    code after it runs in every run that gets that far."""
    yields: List[Value] = field(default_factory=list)
    """``yield v`` values."""
    yield_froms: List[Value] = field(default_factory=list)
    """``yield from x`` iterables: the function yields their elements."""
    item_assigns: List[ItemAssign] = field(default_factory=list)
    loops: List[Loop] = field(default_factory=list)
    try_bodies: List[Span] = field(default_factory=list)
    """Bodies of ``try`` statements with ``except`` handlers, but for those that catch a missing
    import (the project's imports are taken to work): a statement there may not run while the
    function goes on, when one before it raises."""
    attribute_names: Set[str] = field(default_factory=set)
    """Every ``.name`` used as an attribute in the function's own body (read or written)."""
    reads: List[Name] = field(default_factory=list)
    """For a lambda: every name its body reads (not attribute names or keywords)."""
    global_names: Set[str] = field(default_factory=set)
    """Names the function declares ``global`` (its assignments to them rebind module variables)."""


@dataclass(eq=False)
class Class:
    qualname: str
    name: str
    span: Span
    bases: Tuple[Value, ...] = ()
    methods: Dict[str, str] = field(default_factory=dict)
    body_assigns: List[Assign] = field(default_factory=list)
    nested: bool = False
    decorators: Tuple[Value, ...] = ()
    fields: List[str] = field(default_factory=list)
    """Names annotated in the class body, in order (a dataclass's fields)."""


MODULE_CODE = "<module>"


@dataclass(eq=False)
class ModuleFacts:
    """What one module contains, as far as the rules care."""

    name: str
    path: str
    imports: Dict[str, str] = field(default_factory=dict)
    toplevel: Dict[str, str] = field(default_factory=dict)
    functions: Dict[str, Function] = field(default_factory=dict)
    classes: Dict[str, Class] = field(default_factory=dict)
    noqa: Dict[int, Optional[FrozenSet[str]]] = field(default_factory=dict)
    cells: Tuple[Tuple[int, int], ...] = ()
    """For a notebook: (module line a code cell starts at, the cell's number), in order."""
    star_imports: Tuple[str, ...] = ()
    star_names: List[Name] = field(default_factory=list)
    """Names no scope binds and no builtin has, in a module with ``from x import *``: they
    come from a star import, and the project index sets their ``qualified`` (see
    ``ProjectIndex.link_star_names``)."""
    caps_strings: List[Tuple[str, Span]] = field(default_factory=list)
    """String literals spelled like environment variable names (``"PL_TRAINER_X"``), with spans."""
    api_uses: List[Tuple[str, int]] = field(default_factory=list)
    """Versioned APIs (``knowledge.api_versions``) the module uses outside a feature check,
    with the line: ``("torch.compile", 12)``."""
    plain_from_imports: Tuple[Tuple[str, Tuple[str, ...], int, int], ...] = ()
    """The module's ``from X import a, b`` statements that run whenever it is imported (at
    its top level, outside any ``if``, ``try`` or ``with``): (X as written, (a, b), line,
    the number of leading dots)."""
    optional_packages: FrozenSet[str] = frozenset()
    """Top-level packages the module imports only inside a ``try`` that catches a missing
    import (``try: import albumentations as A`` / ``except ImportError: ...``): code using
    them runs only where the package happens to be installed."""

    @property
    def module_code(self) -> Function:
        return self.functions[MODULE_CODE]

    def all_calls(self):
        """Every call in the module, with the function it belongs to."""
        for function in self.functions.values():
            for call in function.calls:
                yield function, call
