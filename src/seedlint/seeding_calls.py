"""Calls that reseed the process-wide RNGs with a value fixed in advance.

A *seeding call* is ``torch.manual_seed(s)``, ``np.random.seed(s)``, ``random.seed(s)``,
Lightning's ``seed_everything(s)``, a library helper such as ``transformers.set_seed(s)``,
or a call of a small project helper (no loops) that makes one of those calls from its
parameters or constants, e.g. ``set_seed(args.seed)``.

Whether a seed value is *fixed* is judged where it is written: constants, config and
argparse attributes (``args.seed``, ``cfg.SEED``), parameters, and arithmetic on them are
fixed; names in ``varying`` (a loop's variables), unmodelled calls (``time.time()``,
``dist.get_rank()``) and unknown locals are not. ``rank_aware`` additionally treats any
name that spells a process rank (``local_rank``, ``args.gpu``) as not fixed: a seed built
from it differs between DDP processes.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Dict, FrozenSet, Optional, Set, Tuple

from seedlint.dataflow import Binding
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
from seedlint.rng import LIBRARY_SEED_HELPERS, LIGHTNING_SEED_EVERYTHING

TORCH, NUMPY, RANDOM = "torch", "numpy", "random"
EVERY_RNG = frozenset({TORCH, NUMPY, RANDOM})
DIRECT_SEEDERS: Dict[str, Tuple[str, str]] = {
    "torch.manual_seed": (TORCH, "seed"),
    "torch.random.manual_seed": (TORCH, "seed"),
    "numpy.random.seed": (NUMPY, "seed"),
    "random.seed": (RANDOM, "a"),
}
"""Global seeders that take a seed value: qualified name -> (RNG, parameter name)."""
PURE_BUILTINS = frozenset({"int", "abs", "hash", "str", "float", "len"})
RANK_SPELLINGS = frozenset({"gpu", "local_gpu", "device_id", "process_index", "local_process_index", "node_rank"})
MAX_DEPTH = 6

DIRECT, LIGHTNING, LIBRARY, HELPER = "direct", "lightning", "library", "helper"


@dataclass(frozen=True, eq=False)
class Seeding:
    module: ModuleFacts
    function: Function
    call: Call
    kind: str
    rngs: FrozenSet[str]
    values: Tuple[Value, ...]
    """The values the call site passes that end up in the seed (every argument of a helper)."""
    helper: Optional[FunctionRef] = None
    helper_rank_independent: bool = True
    """For a helper: it does not add a rank to the seed itself."""
    helper_parametrised: bool = False
    """For a helper: its seed comes from a bare parameter (``def set_seed(seed)``), so the
    seeding call inside it is judged at each call site instead."""

    @property
    def spelled(self) -> str:
        func = self.call.func
        return func.dotted if isinstance(func, Name) else "seeding call"


def spells_rank(dotted: str) -> bool:
    return any("rank" in part.lower() or part.lower() in RANK_SPELLINGS for part in dotted.split("."))


class SeedingCalls:
    def __init__(self, loops) -> None:
        self.loops = loops
        self.flow = loops.flow
        self._helpers: Dict[Tuple[str, str], Optional[Tuple[FrozenSet[str], bool, bool]]] = {}

    # ------------------------------------------------------------------ classification
    def classify(self, module: ModuleFacts, function: Function, call: Call, depth: int = 0) -> Optional[Seeding]:
        """The seeding ``call`` performs, or None when it does not seed a global RNG."""
        for name in self.flow.callee_names(module, call):
            if name in DIRECT_SEEDERS:
                rng, parameter = DIRECT_SEEDERS[name]
                return self._with_value(module, function, call, DIRECT, frozenset({rng}), call.argument(parameter, 0))
            if name in LIGHTNING_SEED_EVERYTHING:
                return self._with_value(module, function, call, LIGHTNING, EVERY_RNG, call.argument("seed", 0))
            if name in LIBRARY_SEED_HELPERS:
                return self._with_value(module, function, call, LIBRARY, EVERY_RNG, call.argument("seed", 0))
        if depth >= 2 or "seed" not in _spelled(call).lower():
            return None  # a project seeding helper says so in its name: set_seed, fix_random_seeds
        for callee, _ in self.loops.callees(module, function, call):
            summary = self.helper_summary(callee, depth + 1)
            if summary is not None:
                rngs, rank_independent, parametrised = summary
                values = tuple(call.args) + tuple(v for _, v in call.kwargs)
                return Seeding(module, function, call, HELPER, rngs, values, callee, rank_independent, parametrised)
        return None

    @staticmethod
    def _with_value(module, function, call, kind, rngs, value) -> Optional[Seeding]:
        if value is None or (isinstance(value, Const) and value.value is None):
            return None  # seeded from the OS entropy: a fresh stream every time
        return Seeding(module, function, call, kind, rngs, (value,))

    def helper_summary(self, ref: FunctionRef, depth: int) -> Optional[Tuple[FrozenSet[str], bool, bool]]:
        """(RNGs seeded, rank-independent, seeded from a bare parameter) for a small seeding
        helper; None for anything else."""
        if ref.key in self._helpers:
            return self._helpers[ref.key]
        self._helpers[ref.key] = None
        function = ref.function
        if function.loops or function.is_lambda or function.qualname == MODULE_CODE:
            return None
        rngs: Set[str] = set()
        rank_independent = True
        parametrised = False
        for call in function.calls:
            inner = self.classify(ref.module, function, call, depth)
            if inner is None:
                continue
            if not all(self.is_fixed(ref.module, function, v) for v in inner.values):
                return None
            rngs.update(inner.rngs)
            parametrised = parametrised or inner.helper_parametrised or any(depends_on_parameter(function, v) for v in inner.values)
            rank_independent = rank_independent and inner.helper_rank_independent and all(
                self.is_fixed(ref.module, function, v, rank_aware=True) for v in inner.values
            )
        summary = (frozenset(rngs), rank_independent, parametrised) if rngs else None
        self._helpers[ref.key] = summary
        return summary

    # ------------------------------------------------------------------ values
    def is_fixed(
        self,
        module: ModuleFacts,
        function: Optional[Function],
        value: Value,
        varying: FrozenSet[str] = frozenset(),
        rank_aware: bool = False,
        depth: int = 0,
    ) -> bool:
        if depth > MAX_DEPTH:
            return False
        again = lambda v: self.is_fixed(module, function, v, varying, rank_aware, depth + 1)
        if isinstance(value, Const):
            return value.value is not None
        if isinstance(value, Name):
            return self._name_fixed(module, function, value, varying, rank_aware, depth)
        if isinstance(value, Attr):
            return not (rank_aware and spells_rank(value.attr)) and again(value.value)
        if isinstance(value, (BinOp, IfExp)):
            parts = (value.left, value.right) if isinstance(value, BinOp) else (value.body, value.orelse)
            return all(again(part) for part in parts)
        if isinstance(value, Subscript):
            index = value.index
            if rank_aware and isinstance(index, Const) and isinstance(index.value, str) and spells_rank(index.value):
                return False
            return again(value.value) and (isinstance(index, Const) or again(index))
        if isinstance(value, Call):
            names = self.flow.callee_names(module, value)
            return bool(names) and all(n in PURE_BUILTINS for n in names) and all(again(a) for a in value.args)
        return False

    def _name_fixed(self, module, function, name: Name, varying, rank_aware, depth) -> bool:
        if rank_aware and spells_rank(name.dotted):
            return False
        if name.qualified is None and name.root in varying:
            return False
        bindings = self.flow.bindings(module, name)
        if bindings:
            return all(self._binding_fixed(b, function, varying, rank_aware, depth) for b in bindings)
        if name.qualified is not None:
            symbol = self.flow.index.resolve(name.qualified, module)
            return isinstance(symbol, (ExternalRef, VariableRef)) or symbol is None
        if function is None:
            return False
        if name.root in function.params:
            return True
        # An attribute of a local object (``args.seed`` after ``args = parser.parse_args()``).
        return bool(name.rest) and any(a.target == name.root for a in function.assigns)

    def _binding_fixed(self, binding: Binding, function, varying, rank_aware, depth) -> bool:
        same_scope = function is not None and binding.scope == function.qualname
        owner = function if same_scope else binding.module.functions.get(binding.scope)
        return self.is_fixed(binding.module, owner, binding.value, varying if same_scope else frozenset(), rank_aware, depth + 1)


def depends_on_parameter(function: Function, value: Value) -> bool:
    """Whether ``value`` uses a bare parameter of ``function`` (``seed`` in ``def set_seed(seed)``),
    so the seed is decided by each caller rather than here."""
    if isinstance(value, Name):
        return value.qualified is None and value.scope == function.qualname and value.dotted in function.params
    if isinstance(value, BinOp):
        return depends_on_parameter(function, value.left) or depends_on_parameter(function, value.right)
    if isinstance(value, Call):
        return any(depends_on_parameter(function, a) for a in value.args)
    return False


def _spelled(call: Call) -> str:
    """The last identifier of a callee as written (``set_seed`` in ``utils.set_seed(...)``)."""
    return call.func.dotted.rsplit(".", 1)[-1] if isinstance(call.func, Name) else ""
