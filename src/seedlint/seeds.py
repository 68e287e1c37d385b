"""Where a seed value comes from, as far as a DataLoader worker is concerned.

A seed passed to ``np.random.seed`` (or ``random.seed``, ``torch.manual_seed``) inside
worker code is one of:

- *per epoch*: derived from ``torch.initial_seed()`` or ``get_worker_info().seed``, which
  torch sets to ``base_seed + worker_id`` with a fresh ``base_seed`` every epoch;
- *fixed*: the same in every epoch: constants, ``worker_id``, module constants, config or
  argparse values, values bound by ``functools.partial``, and
  ``np.random.get_state()[1][0]`` (2147483648 in every worker on torch >= 1.9);
- *unknown*: anything else (a draw from an RNG, the clock, an unmodelled call).

``Origin.raw`` says a per-epoch value reaches the seed without a reduction (``%``, ``&``,
``>>``...), i.e. it may be as large as 2**63.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Dict, FrozenSet, Iterable, List, Optional, Tuple

from seedlint.dataflow import Dataflow
from seedlint.facts.model import (
    MODULE_CODE,
    Attr,
    BinOp,
    Call,
    Const,
    Function,
    IfExp,
    ModuleFacts,
    Name,
    Subscript,
    Value,
)
from seedlint.analysis.index import ExternalRef, FunctionRef, VariableRef
from seedlint.rng import NUMPY_STATE_GETTERS, WORKER_INFO, WORKER_SEED_SOURCES

EPOCH = "epoch"
FIXED = "fixed"
UNKNOWN = "unknown"

CONSTANT = "a constant"
WORKER_ID = "worker_id"
CONFIG = "a value fixed for the run"
NUMPY_STATE = "np.random.get_state()"

_GROWING_OPS = {"Add", "Subtract", "Multiply"}
_TRANSPARENT_CALLS = {"builtins.int", "builtins.abs"}
MAX_DEPTH = 10


@dataclass(frozen=True)
class Origin:
    kind: str
    raw: bool = False
    """For EPOCH: the value may still exceed 2**32 - 1."""
    parts: FrozenSet[str] = frozenset()
    """For FIXED: what it is made of (CONSTANT, WORKER_ID, CONFIG, NUMPY_STATE)."""


UNKNOWN_ORIGIN = Origin(UNKNOWN)


def fixed(*parts: str) -> Origin:
    return Origin(FIXED, parts=frozenset(parts))


def combine(origins: Iterable[Origin], op: Optional[str] = None) -> Origin:
    """The origin of a value computed from several: per epoch wins, then unknown."""
    origins = list(origins)
    if not origins:
        return UNKNOWN_ORIGIN
    epoch = [o for o in origins if o.kind == EPOCH]
    if epoch:
        raw = any(o.raw for o in epoch) and (op is None or op in _GROWING_OPS)
        return Origin(EPOCH, raw=raw)
    if any(o.kind == UNKNOWN for o in origins):
        return UNKNOWN_ORIGIN
    return Origin(FIXED, parts=frozenset().union(*(o.parts for o in origins)))


def describe(origin: Origin) -> str:
    """Words for a fixed seed, for messages."""
    if NUMPY_STATE in origin.parts:
        return "`np.random.get_state()[1][0]`, which is 2147483648 in every worker on torch >= 1.9"
    if origin.parts == {WORKER_ID}:
        return "`worker_id` alone"
    if origin.parts <= {CONSTANT}:
        return "a constant"
    return "a value fixed for the run" + (" plus `worker_id`" if WORKER_ID in origin.parts else "")


@dataclass
class Frame:
    """Parameter origins of one worker-side function."""

    function: FunctionRef
    params: Dict[str, Origin] = field(default_factory=dict)


class SeedOrigins:
    """Evaluates seed expressions in worker-side functions.

    ``frames`` maps a worker-side function (by key) to the origins of its parameters;
    a function not in ``frames`` runs in the parent (an enclosing function, module code),
    where every value is computed once and so is fixed for the loader's lifetime.
    """

    def __init__(self, flow: Dataflow) -> None:
        self.flow = flow
        self.frames: Dict[Tuple[str, str], Frame] = {}

    # ------------------------------------------------------------------ frames
    def enter_worker_init(self, function: FunctionRef, bound: Optional[Call], module: ModuleFacts, parent_fixed: bool) -> Frame:
        """A frame for a worker_init_fn: its first free parameter is ``worker_id``; others
        come from ``functools.partial`` arguments or defaults, computed in the parent."""
        params = list(function.function.params)
        origins: Dict[str, Origin] = {}
        if bound is not None:
            for name, value in zip(params, bound.args[1:]):
                origins[name] = self.parent_value(module, value) if parent_fixed else UNKNOWN_ORIGIN
            for key, value in bound.kwargs:
                origins[key] = self.parent_value(module, value) if parent_fixed else UNKNOWN_ORIGIN
        free = [p for p in params if p not in origins]
        if free:
            origins[free[0]] = fixed(WORKER_ID)
        for name, value in function.function.defaults:
            origins.setdefault(name, self.parent_value(function.module, value))
        frame = Frame(function, origins)
        self.frames[function.key] = frame
        return frame

    def enter_callee(self, caller: FunctionRef, call: Call, callee: FunctionRef, skip_self: bool) -> Frame:
        params = list(callee.function.params)[1 if skip_self else 0:]
        origins: Dict[str, Origin] = {}
        for name, value in zip(params, call.args):
            origins[name] = self.value(caller.module, value)
        for key, value in call.kwargs:
            origins[key] = self.value(caller.module, value)
        frame = Frame(callee, origins)
        self.frames[callee.key] = frame
        return frame

    def enter_worker_code(self, function: FunctionRef) -> None:
        """Dataset worker code: parameters are unknown (``self``, ``index``...)."""
        self.frames.setdefault(function.key, Frame(function, {}))

    # ------------------------------------------------------------------ values
    def value(self, module: ModuleFacts, value: Value, depth: int = 0) -> Origin:
        if depth > MAX_DEPTH:
            return UNKNOWN_ORIGIN
        if isinstance(value, Const):
            return fixed(CONSTANT) if isinstance(value.value, (int, float, bool)) else UNKNOWN_ORIGIN
        if isinstance(value, BinOp):
            return combine((self.value(module, value.left, depth + 1), self.value(module, value.right, depth + 1)), value.op)
        if isinstance(value, IfExp):
            return combine((self.value(module, value.body, depth + 1), self.value(module, value.orelse, depth + 1)), "IfExp")
        if isinstance(value, Call):
            return self._call(module, value, depth)
        if isinstance(value, Attr):
            if value.attr == "seed" and self._is_worker_info(module, value.value):
                return Origin(EPOCH, raw=True)
            if value.attr == "id" and self._is_worker_info(module, value.value):
                return fixed(WORKER_ID)
            return UNKNOWN_ORIGIN
        if isinstance(value, Subscript):
            if self._is_numpy_state(module, value.value):
                return fixed(NUMPY_STATE)
            return UNKNOWN_ORIGIN
        if isinstance(value, Name):
            return self._name(module, value, depth)
        return UNKNOWN_ORIGIN

    def _call(self, module: ModuleFacts, call: Call, depth: int) -> Origin:
        names = self.flow.callee_names(module, call)
        if any(n in WORKER_SEED_SOURCES for n in names):
            return Origin(EPOCH, raw=True)
        if any(n in _TRANSPARENT_CALLS for n in names) and len(call.args) == 1 and not call.kwargs:
            return self.value(module, call.args[0], depth + 1)
        return UNKNOWN_ORIGIN

    def _is_worker_info(self, module: ModuleFacts, value: Value, depth: int = 0) -> bool:
        if isinstance(value, Call):
            return any(n in WORKER_INFO for n in self.flow.callee_names(module, value))
        if isinstance(value, Name) and value.qualified is None and depth < 3:
            return any(self._is_worker_info(b.module, b.value, depth + 1) for b in self.flow.bindings(module, value))
        return False

    def _is_numpy_state(self, module: ModuleFacts, value: Value) -> bool:
        while isinstance(value, Subscript):
            value = value.value
        return isinstance(value, Call) and any(n in NUMPY_STATE_GETTERS for n in self.flow.callee_names(module, value))

    def _name(self, module: ModuleFacts, name: Name, depth: int) -> Origin:
        if name.qualified is not None:
            return self._global(module, name)
        function = module.functions.get(name.scope)
        if function is None:
            return UNKNOWN_ORIGIN
        frame = self.frames.get((module.path, function.qualname))
        if frame is None:
            return self._parent_local(function, name)
        if name.root in function.params:
            origin = frame.params.get(name.root, UNKNOWN_ORIGIN)
            if name.rest and origin.kind != FIXED:
                return UNKNOWN_ORIGIN
            return origin
        bindings = self.flow.bindings(module, name)
        if not bindings and name.rest:
            root = Name(name.root, name.span, None, name.scope)
            if self._is_worker_info(module, root):
                if name.rest == "seed":
                    return Origin(EPOCH, raw=True)
                if name.rest == "id":
                    return fixed(WORKER_ID)
            return UNKNOWN_ORIGIN
        return combine(self.value(b.module, b.value, depth + 1) for b in bindings)

    def _global(self, module: ModuleFacts, name: Name) -> Origin:
        """A module-level name read in worker code: fixed, unless code reassigns it at
        run time (``global EPOCH`` in the training loop), which forked workers would see."""
        symbol = self.flow.index.resolve(name.qualified, module)
        owner = None
        if isinstance(symbol, VariableRef):
            owner, variable = symbol.module, symbol.name
        elif symbol is None and name.rest:
            parts = name.qualified.split(".")
            root = self.flow.index.resolve(".".join(parts[: len(parts) - len(name.rest.split("."))]), module)
            if isinstance(root, VariableRef):
                owner, variable = root.module, root.name
        elif isinstance(symbol, ExternalRef):
            return fixed(CONFIG) if not symbol.qualified.startswith(("torch.", "numpy.", "random.")) else UNKNOWN_ORIGIN
        if owner is None:
            return UNKNOWN_ORIGIN
        if _reassigned_at_run_time(owner, variable):
            return UNKNOWN_ORIGIN
        return fixed(CONFIG)

    @staticmethod
    def _parent_local(function: Function, name: Name) -> Origin:
        """A local of an enclosing (parent-side) function, read by a closure: fixed unless
        a loop of that function rebinds it (``for epoch in ...``)."""
        for loop in function.loops:
            if loop.target == name.root or any(a.target == name.root for a in loop.assigns):
                return UNKNOWN_ORIGIN
        return fixed(CONFIG)

    def parent_value(self, module: ModuleFacts, value: Value) -> Origin:
        """A value computed once in the parent (a ``partial`` argument, a default)."""
        origin = self.value(module, value)
        return fixed(CONFIG) if origin.kind == EPOCH else origin


def _reassigned_at_run_time(module: ModuleFacts, variable: str) -> bool:
    for function in module.functions.values():
        if function.qualname == MODULE_CODE:
            if any(a.target == variable for loop in function.loops for a in loop.assigns):
                return True
            if any(loop.target == variable for loop in function.loops):
                return True
            continue
        if any(a.target == variable for a in function.assigns):
            return True
    return False


def worker_init_functions(flow: Dataflow, module: ModuleFacts, value: Value, depth: int = 0) -> List[Tuple[FunctionRef, Optional[Call]]]:
    """The project functions (defs and lambdas) a ``worker_init_fn=`` value calls, each with
    the ``functools.partial(...)`` call that binds some of its arguments, if any."""
    if depth > MAX_DEPTH:
        return []
    if isinstance(value, Call) and flow.is_partial(module, value) and value.args:
        return [(f, value) for f, _ in worker_init_functions(flow, module, value.args[0], depth + 1)]
    if isinstance(value, Call):
        factories = [s for s in flow.symbols(module, value.func) if isinstance(s, FunctionRef) and not s.function.is_lambda]
        return [
            found
            for factory in factories
            for returned in factory.function.returns
            for found in worker_init_functions(flow, factory.module, returned, depth + 1)
        ]
    if isinstance(value, Name):
        symbol = flow.index.resolve(value.qualified, module) if value.qualified else None
        if isinstance(symbol, FunctionRef):
            return [(symbol, None)]
        nested = module.functions.get(f"{value.scope}.<locals>.{value.dotted}") if value.qualified is None else None
        if nested is not None:
            return [(FunctionRef(module, nested), None)]
        found: List[Tuple[FunctionRef, Optional[Call]]] = []
        for binding in flow.bindings(module, value):
            found.extend(worker_init_functions(flow, binding.module, binding.value, depth + 1))
        return found
    if isinstance(value, IfExp):
        return worker_init_functions(flow, module, value.body, depth + 1) + worker_init_functions(flow, module, value.orelse, depth + 1)
    return [(s, None) for s in flow.symbols(module, value) if isinstance(s, FunctionRef)]


def in_loop(function: Function, call: Call) -> bool:
    return any(any(c is call for c in loop.calls) for loop in function.loops)
