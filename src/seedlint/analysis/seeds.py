"""Seeds: where a seed value comes from, and which calls reseed a process-wide RNG.

One evaluator answers both questions the rules ask:

- in a DataLoader worker (a ``worker_init_fn`` and what it calls, or dataset worker code):
  is a seed *per epoch* (derived from ``torch.initial_seed()`` or ``get_worker_info().seed``,
  which torch sets to ``base_seed + worker_id`` with a fresh ``base_seed`` every epoch), or
  *fixed* (constants, ``worker_id``, values computed once in the main process, and
  ``np.random.get_state()[1][0]``, which torch >= 1.9 makes 2147483648 in every worker)?
- in the main process: is a seed fixed for the run (constants, config and argparse values,
  parameters), does it vary between epochs (a loop variable, the clock), and does it depend
  on the process rank (``dist.get_rank()``, ``args.local_rank``, ``os.environ["RANK"]``)?

``Origin.raw`` says a per-epoch value reaches the seed without a reduction (``%``, ``&``,
``>>``...), i.e. it may be as large as 2**63. Seeding through a project helper
(``set_seed(args.seed)``) is found by following the call: the seeding call inside is judged
in the helper's frame, whose parameters are the call's arguments.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Dict, FrozenSet, Iterable, List, Optional, Set, Tuple

from seedlint import timing
from seedlint.analysis.objects import Constant, Frame, Instance
from seedlint.facts.model import MODULE_CODE, Attr, BinOp, Call, Compare, Const, DictDisplay, Function, IfExp, Name, Seq, Subscript, Value
from seedlint.knowledge.launchers import PROCESS_INDEX
from seedlint.knowledge.process_groups import RANK_SPECIFIC_SEED_SWITCHES
from seedlint.rng import (
    LIBRARY_SEED_DEFAULTS,
    LIBRARY_SEED_HELPERS,
    LIGHTNING_SEED_EVERYTHING,
    NUMPY,
    NUMPY_STATE_GETTERS,
    PYTHON_RANDOM,
    TORCH,
    WORKER_INFO,
    WORKER_SEED_SOURCES,
    global_stream,
)

EPOCH, FIXED, VARYING, ENTROPY, UNKNOWN = "epoch", "fixed", "varying", "entropy", "unknown"
CONSTANT, WORKER_ID, CONFIG, NUMPY_STATE, RANK = "a constant", "worker_id", "a value fixed for the run", "np.random.get_state()", "rank"
_WORKER_INFO, _NUMPY_STATE_ARRAY = "worker-info", "numpy-state-array"
"""Intermediate kinds: the result of ``get_worker_info()``/``np.random.get_state()``."""

EVERY_RNG = frozenset({TORCH, NUMPY, PYTHON_RANDOM})
DIRECT_SEEDERS: Dict[str, Tuple[str, str]] = {
    "torch.manual_seed": (TORCH, "seed"),
    "torch.random.manual_seed": (TORCH, "seed"),
    "numpy.random.seed": (NUMPY, "seed"),
    "random.seed": (PYTHON_RANDOM, "a"),
}
"""Global seeders that take a seed value: qualified name -> (RNG, parameter name)."""
RANK_SOURCES = frozenset({
    "torch.distributed.get_rank", "torch.distributed.distributed_c10d.get_rank", "torch.distributed.get_node_local_rank",
    PROCESS_INDEX,
})
RANK_SPELLINGS = frozenset({
    "gpu", "local_gpu", "device_id", "process_index", "local_process_index", "node_rank",
    "slurm_procid", "slurm_localid",  # SLURM's documentation: the task's rank in the job, and on its node
})
VARYING_SOURCES = frozenset({"time.time", "time.time_ns", "time.perf_counter", "os.getpid", "os.urandom", "secrets.randbits"})
TRANSPARENT = frozenset({"int", "abs", "float", "hash", "str", "round"})
_REDUCING_OPS = frozenset({"Modulo", "BitAnd", "RightShift", "FloorDivide", "Divide", "BitXor"})
MAX_DEPTH = 48
"""Nested steps when tracing where a seed comes from."""
MAX_HELPER_DEPTH = 6
"""Calls followed into project helpers when looking for the seeding they do."""


@dataclass(frozen=True)
class Origin:
    kind: str
    raw: bool = False
    """For EPOCH: the value may still exceed 2**32 - 1."""
    parts: FrozenSet[str] = frozenset()
    """For FIXED: what it is made of (CONSTANT, WORKER_ID, CONFIG, NUMPY_STATE, RANK); for
    EPOCH: RANK when the rank is mixed in (``torch.initial_seed() + rank * 100``)."""

    @property
    def fixed(self) -> bool:
        return self.kind == FIXED

    @property
    def rank_dependent(self) -> bool:
        return RANK in self.parts


UNKNOWN_ORIGIN = Origin(UNKNOWN)
_CYCLE = "cycle"
CYCLE_ORIGIN = Origin(_CYCLE)
"""What a value being traced contributes to itself (``args = setup(args)``): nothing; the
other values it may hold decide."""


def fixed(*parts: str) -> Origin:
    return Origin(FIXED, parts=frozenset(parts))


def combine(origins: Iterable[Origin], op: Optional[str] = None) -> Origin:
    """The origin of a value computed from several: per epoch wins, then varying, unknown."""
    origins = list(origins)
    if not origins:
        return UNKNOWN_ORIGIN
    if any(o.kind == _CYCLE for o in origins):
        origins = [o for o in origins if o.kind != _CYCLE]
        if not origins:
            return CYCLE_ORIGIN
    kinds = {o.kind for o in origins}
    if len(kinds) == 1 and kinds <= {_WORKER_INFO, _NUMPY_STATE_ARRAY} and op is None:
        return origins[0]
    epoch = [o for o in origins if o.kind == EPOCH]
    if epoch:
        raw = any(o.raw for o in epoch) and op not in _REDUCING_OPS
        rank = frozenset({RANK}) if any(RANK in o.parts for o in origins) else frozenset()
        return Origin(EPOCH, raw=raw, parts=rank)
    for kind in (VARYING, UNKNOWN, _WORKER_INFO, _NUMPY_STATE_ARRAY):
        if any(o.kind == kind for o in origins):
            return Origin(UNKNOWN) if kind in (_WORKER_INFO, _NUMPY_STATE_ARRAY) else Origin(kind)
    if all(o.kind == ENTROPY for o in origins):
        return Origin(ENTROPY)
    return Origin(FIXED, parts=frozenset().union(*(o.parts for o in origins if o.kind == FIXED)))


def _clamped_below_2_32(bindings, root: str) -> bool:
    """One of the name's assignments reduces it under a test of its own size
    (``if seed >= 2**32: seed = seed % 2**32``): past that ``if`` it is below 2**32 either way."""
    for assign in bindings:
        if not assign.guards:
            continue
        test, expected = assign.guards[-1]
        value = assign.value
        if not (isinstance(value, BinOp) and value.op in _REDUCING_OPS and isinstance(value.left, Name) and value.left.dotted == root):
            continue
        if not (isinstance(test, Compare) and isinstance(test.left, Name) and test.left.dotted == root):
            continue
        limit = _constant_int(test.right)
        if limit is None:
            continue
        if expected and ((test.op == ">=" and limit <= 2**32) or (test.op == ">" and limit < 2**32)):
            return True
    return False


def _constant_int(value) -> Optional[int]:
    """An integer written with constants: ``4294967296``, ``2**32``, ``2**32 - 1``."""
    if isinstance(value, Const) and isinstance(value.value, int) and not isinstance(value.value, bool):
        return value.value
    if isinstance(value, BinOp):
        left, right = _constant_int(value.left), _constant_int(value.right)
        if left is None or right is None:
            return None
        if value.op == "Power" and 0 <= right <= 64:
            return left ** right
        if value.op == "Subtract":
            return left - right
        if value.op == "Add":
            return left + right
    return None


def describe(origin: Origin, torch_version=None) -> str:
    """Words for a fixed seed, for messages; ``torch_version`` (a range) decides what
    ``np.random.get_state()[1][0]`` is in a worker."""
    if NUMPY_STATE in origin.parts:
        spelled = "`np.random.get_state()[1][0]`"
        if torch_version is not None and not torch_version.may_be_below("1.9"):
            return f"{spelled}, which is 2147483648 in every worker on torch >= 1.9"
        if torch_version is not None and not torch_version.may_be_at_least("1.9"):
            return f"{spelled}, which every worker copies from the main process's NumPy state on torch < 1.9"
        return (f"{spelled}, which is the same in every worker (2147483648 on torch >= 1.9, the main process's "
                "NumPy state before)")
    if origin.parts == {WORKER_ID}:
        return "`worker_id` alone"
    if origin.parts <= {CONSTANT}:
        return "a constant"
    shown = "a value fixed for the run"
    if RANK in origin.parts:
        shown += " and the rank"
    return shown + (" plus `worker_id`" if WORKER_ID in origin.parts else "")


def spells_rank(dotted: str) -> bool:
    return any("rank" in part.lower() or part.lower() in RANK_SPELLINGS for part in dotted.split("."))


@dataclass(frozen=True)
class Context:
    """What the evaluation knows about the process it runs in.

    ``worker``: keys of functions running inside DataLoader workers. ``worker_id``:
    (function key, parameter) bound to the worker id. ``varying``: (function key, name) of
    locals that change from one epoch to the next."""

    worker: FrozenSet[tuple] = frozenset()
    worker_id: Optional[Tuple[tuple, str]] = None
    varying: FrozenSet[Tuple[tuple, str]] = frozenset()


MAIN = Context()


@dataclass(frozen=True, eq=False)
class Seeding:
    """A call that reseeds process-wide RNGs, as reached from an anchor call."""

    anchor: Call
    """The call in the function asked about (the seeding call itself, or a helper's call)."""
    frame: Frame
    """The frame the seeding call runs in."""
    call: Call
    rngs: FrozenSet[str]
    seed: Optional[Value]
    """The seed expression, evaluated in ``frame``; None for ``seed_everything()`` etc.
    called without one (fresh entropy)."""
    kind: str
    """"direct", "lightning" or "library"."""
    rank_specific: bool = False
    """The helper may add the rank to the seed itself (``set_seed(s, device_specific=True)``,
    or a switch whose value is not known to be false)."""

    @property
    def spelled(self) -> str:
        func = self.anchor.func
        return func.dotted if isinstance(func, Name) else "seeding call"

    @property
    def through_helper(self) -> bool:
        return self.anchor is not self.call


class Seeds:
    def __init__(self, project) -> None:
        self.project = project
        self.flow = project.flow
        self._memo: Dict[tuple, Origin] = {}
        self._cycles_met: Set[tuple] = set()
        """The traces under way that the current one has met (their values are not known yet)."""
        self._depth = 0

    # ------------------------------------------------------------------ seeding calls
    def direct(self, call: Call, frame: Frame) -> Optional[Seeding]:
        """The seeding ``call`` itself performs, if it reseeds a global RNG."""
        if not _may_be_seeder(call, frame.function.function):
            return None
        names = self.flow.callee_names(call, frame)
        for name in names:
            if name in DIRECT_SEEDERS:
                rng, parameter = DIRECT_SEEDERS[name]
                return Seeding(call, frame, call, frozenset({rng}), call.argument(parameter, 0), "direct")
            if name in LIGHTNING_SEED_EVERYTHING:
                return Seeding(call, frame, call, EVERY_RNG, call.argument("seed", 0), "lightning")
            if name in LIBRARY_SEED_HELPERS:
                seed = call.argument("seed", 0)
                if seed is None and name in LIBRARY_SEED_DEFAULTS:
                    seed = Const(LIBRARY_SEED_DEFAULTS[name])
                return Seeding(call, frame, call, EVERY_RNG, seed, "library", self._rank_specific(name, call, frame))
        return None

    def _rank_specific(self, name: str, call: Call, frame: Frame) -> bool:
        switch = RANK_SPECIFIC_SEED_SWITCHES.get(name)
        if switch is None:
            return False
        value = call.argument(*switch)
        if value is None:
            return False
        constant = self.flow.constant(value, frame)
        return constant is None or bool(constant.value)

    def seedings(self, call: Call, frame: Frame, depth: int = 0, screen: bool = True) -> List[Seeding]:
        """Seedings ``call`` performs, directly or in the project helpers it calls (with
        ``screen``, only helpers whose name says they seed)."""
        found = self.direct(call, frame)
        if found is not None:
            return [found]
        if depth >= MAX_HELPER_DEPTH or (screen and not _may_seed(call)):
            return []
        result: List[Seeding] = []
        for callee, _ in self.flow.callee_frames(call, frame):
            function = callee.function.function
            if function.qualname == MODULE_CODE:
                continue
            for inner in function.calls:
                if not self.flow.guards_may_hold(inner.guards, callee):
                    continue
                for seeding in self.seedings(inner, callee, depth + 1, screen):
                    result.append(Seeding(
                        call, seeding.frame, seeding.call, seeding.rngs, seeding.seed, seeding.kind, seeding.rank_specific
                    ))
        return result

    def reads_the_process_seed(self, value: Optional[Value], frame: Frame) -> bool:
        """The value reads ``torch.initial_seed()`` in the main process: each process seeds
        torch from fresh entropy at start-up, so unless the program seeded torch alike first,
        every process (every rank) reads its own."""
        if isinstance(value, Call):
            if self.flow.callee_names(value, frame) & WORKER_SEED_SOURCES:
                return True
            return any(self.reads_the_process_seed(v, frame) for v in (*value.args, *(v for _, v in value.kwargs)))
        if isinstance(value, BinOp):
            return self.reads_the_process_seed(value.left, frame) or self.reads_the_process_seed(value.right, frame)
        return False

    # ------------------------------------------------------------------ origins
    def origin(self, value: Optional[Value], frame: Frame, context: Context = MAIN) -> Origin:
        if value is None:
            return Origin(ENTROPY)
        key = (id(value), frame.key, id(context))
        found = self._memo.get(key)
        if found is CYCLE_ORIGIN:
            self._cycles_met.add(key)
            return found
        if found is not None:
            return found
        if self._depth > MAX_DEPTH:
            timing.limit_hit("seed origin depth")
            return UNKNOWN_ORIGIN
        self._memo[key] = CYCLE_ORIGIN
        self._depth += 1
        outer, self._cycles_met = self._cycles_met, set()
        try:
            found = self._origin(value, frame, context)
        finally:
            self._depth -= 1
            self._cycles_met.discard(key)
            met, self._cycles_met = self._cycles_met, outer | self._cycles_met
        if found.kind == _CYCLE and not met:
            found = UNKNOWN_ORIGIN  # it depends on nothing but itself
        if met:
            del self._memo[key]  # computed without the values of a trace still under way
        else:
            self._memo[key] = found
        return found

    def _origin(self, value: Value, frame: Frame, context: Context) -> Origin:
        if isinstance(value, Const):
            if value.value is None:
                return Origin(ENTROPY)
            return fixed(CONSTANT) if isinstance(value.value, (int, float, bool)) else UNKNOWN_ORIGIN
        if isinstance(value, BinOp):
            return combine((self.origin(value.left, frame, context), self.origin(value.right, frame, context)), value.op)
        if isinstance(value, IfExp):
            return combine((self.origin(value.body, frame, context), self.origin(value.orelse, frame, context)), "IfExp")
        if isinstance(value, Call):
            return self._call(value, frame, context)
        if isinstance(value, Attr):
            return self._attribute(self.origin(value.value, frame, context), value.attr)
        if isinstance(value, Subscript):
            return self._subscript(value, frame, context)
        if isinstance(value, Name):
            return self._name(value, frame, context)
        if isinstance(value, Seq) and value.items:
            return combine(self.origin(v, frame, context) for v in value.items)
        if isinstance(value, DictDisplay) and value.attributes:
            return fixed(CONFIG)  # a configuration file's values are fixed for the run
        if isinstance(value, DictDisplay) and not value.stars:
            # a dict the code writes out: what its values are (an empty one is filled later)
            return combine(self.origin(v, frame, context) for v in value.values) if value.values else fixed(CONFIG)
        return UNKNOWN_ORIGIN

    def _in_worker(self, frame: Frame, context: Context) -> bool:
        return frame.function.key in context.worker

    def _call(self, call: Call, frame: Frame, context: Context) -> Origin:
        names = self.flow.callee_names(call, frame)
        worker = self._in_worker(frame, context)
        if names & WORKER_SEED_SOURCES:
            return Origin(EPOCH, raw=True) if worker else fixed(CONFIG)
        if names & WORKER_INFO:
            return Origin(_WORKER_INFO) if worker else UNKNOWN_ORIGIN
        if names & NUMPY_STATE_GETTERS:
            return Origin(_NUMPY_STATE_ARRAY) if worker else UNKNOWN_ORIGIN
        if names & RANK_SOURCES:
            return fixed(RANK)
        if names & VARYING_SOURCES:
            return Origin(VARYING)
        if names & TRANSPARENT and len(call.args) == 1 and not call.kwargs:
            return self.origin(call.args[0], frame, context)
        if any(n.endswith(("environ.get", "getenv")) for n in names) and call.args:
            return self._environment(call.args[0], frame)
        if any(global_stream(n) for n in names):
            return Origin(VARYING)
        returned = []
        for callee, _ in self.flow.callee_frames(call, frame):
            function = callee.function.function
            if function.name == "__init__" and isinstance(callee.receiver, Instance) and not worker:
                returned.append(self._constructed(call, frame, callee, context))
                continue
            if not function.returns or function.qualname == MODULE_CODE:
                return UNKNOWN_ORIGIN
            inner = context
            if worker:
                inner = Context(context.worker | {callee.function.key}, context.worker_id, context.varying)
            returned.append(combine(self.origin(v, callee, inner) for v in function.returns))
        if returned:
            return combine(returned)
        if worker:
            return UNKNOWN_ORIGIN
        # A library call in the main process runs once per evaluation: fixed unless what it
        # is computed from varies (``hash((seed, epoch))``).
        arguments = [self.origin(v, frame, context) for v in (*call.args, *(v for _, v in call.kwargs))]
        varying = [o for o in arguments if o.kind in (VARYING, EPOCH)]
        return combine(varying) if varying else fixed(CONFIG)

    def _constructed(self, call: Call, frame: Frame, init: Frame, context: Context) -> Origin:
        """A project object built in the main process (``hps = HParams(**config)``): its
        attributes are what it was built from and what its ``__init__`` stores, fixed for the
        run unless one of those varies (``self.seed = int(time.time())``)."""
        given = [self.origin(v, frame, context) for v in (*call.args, *(v for _, v in call.kwargs), *call.stars, *call.double_stars)]
        function = init.function.function
        receiver = function.params[0] if function.params else None
        stored = [self.origin(a.value, init, context) for a in function.assigns if receiver and a.target.startswith(receiver + ".")]
        moving = [o for o in given + stored if o.kind in (VARYING, EPOCH, ENTROPY)]
        if moving:
            return combine(moving)
        # fixed, keeping what it was computed from (``Cfg(seed=args.seed + rank)``: the rank)
        return fixed(CONFIG, *(part for o in given + stored if o.kind == FIXED for part in o.parts))

    def _returned_element(self, call: Call, index: int, frame: Frame, context: Context) -> Optional[Origin]:
        """``args, model = setup(args)``: element ``index`` of the tuple every ``return`` of the
        project function spells out (``return args, model``); None when one does not."""
        picked = []
        for callee, _ in self.flow.callee_frames(call, frame):
            function = callee.function.function
            if not function.returns:
                return None
            for returned in function.returns:
                if not isinstance(returned, Seq) or not -len(returned.items) <= index < len(returned.items):
                    return None
                picked.append(self.origin(returned.items[index], callee, context))
        return combine(picked) if picked else None

    def _environment(self, key: Value, frame: Frame) -> Origin:
        constant = self.flow.constant(key, frame)
        if constant is not None and isinstance(constant.value, str) and spells_rank(constant.value.lower()):
            return fixed(RANK)
        return fixed(CONFIG)

    @staticmethod
    def _attribute(base: Origin, attribute: str) -> Origin:
        if base.kind == _WORKER_INFO:
            if attribute == "seed":
                return Origin(EPOCH, raw=True)
            if attribute == "id":
                return fixed(WORKER_ID)
            if attribute == "dataset":
                return fixed(CONFIG)  # the worker's copy of a dataset built in the main process, as ``self``
            return UNKNOWN_ORIGIN
        if base.kind == FIXED:
            return fixed(*(base.parts | ({RANK} if spells_rank(attribute) else set())))
        return base if base.kind in (EPOCH, VARYING) else UNKNOWN_ORIGIN

    def _subscript(self, value: Subscript, frame: Frame, context: Context) -> Origin:
        if isinstance(value.value, Call) and isinstance(value.index, Const) and type(value.index.value) is int:
            picked = self._returned_element(value.value, value.index.value, frame, context)
            if picked is not None:
                return picked
        inner = value.value
        depth = 0
        while isinstance(inner, Subscript) and depth < 4:
            inner, depth = inner.value, depth + 1
        base = self.origin(inner, frame, context)
        if base.kind == _NUMPY_STATE_ARRAY:
            return fixed(NUMPY_STATE)
        if isinstance(inner, Name) and inner.qualified is not None and inner.qualified.endswith("os.environ"):
            return self._environment(value.index, frame)
        if base.kind == FIXED:
            index = value.index
            rank = isinstance(index, Const) and isinstance(index.value, str) and spells_rank(index.value)
            return fixed(*(base.parts | ({RANK} if rank else set())))
        return base if base.kind in (EPOCH, VARYING) else UNKNOWN_ORIGIN

    def _name(self, name: Name, frame: Frame, context: Context) -> Origin:
        rank = {RANK} if spells_rank(name.dotted) else set()
        if name.qualified is not None:
            return self._global(name, frame, rank)
        module = frame.module
        scope = frame
        if name.scope != frame.function.function.qualname:
            function = module.functions.get(name.scope)
            if function is None:
                return UNKNOWN_ORIGIN
            scope = self.flow.function_frame(module, function)
        function = scope.function.function
        root = name.root
        if (scope.function.key, root) in context.varying:
            return Origin(VARYING)
        if root in function.params:
            base = self._parameter(scope, root, context)
        else:
            bindings = [a for a in function.assigns if a.target == root and self.flow.guards_may_hold(a.guards, scope)]
            looped = any(loop.target == root for loop in function.loops)
            if looped and self._in_worker(scope, context):
                base = UNKNOWN_ORIGIN
            elif bindings:
                base = combine(self.origin(a.value, scope, context) for a in bindings)
                if base.kind == EPOCH and base.raw and _clamped_below_2_32(bindings, root):
                    base = Origin(EPOCH, raw=False, parts=base.parts)
            else:
                base = UNKNOWN_ORIGIN if not looped else fixed(CONFIG)
        if name.rest:
            for part in name.rest.split("."):
                base = self._attribute(base, part)
        if base.kind == FIXED and rank:
            return fixed(*(base.parts | rank))
        return base

    def _parameter(self, frame: Frame, name: str, context: Context) -> Origin:
        function = frame.function.function
        if context.worker_id == (frame.function.key, name):
            return fixed(WORKER_ID)
        if function.params and name == function.params[0] and frame.receiver is not None:
            return fixed(CONFIG)  # ``self``: attributes of an object built in the main process
        expressions, complete = self.flow.parameter_expressions(frame, name)
        worker = self._in_worker(frame, context)
        if not expressions:
            return UNKNOWN_ORIGIN if worker else fixed(CONFIG)
        origins = []
        for value, caller in expressions:
            origin = self.origin(value, caller, context)
            if worker and not self._in_worker(caller, context) and origin.kind == EPOCH:
                origin = fixed(CONFIG)  # computed once in the main process (a partial's argument)
            origins.append(origin)
        if not complete:
            origins.append(UNKNOWN_ORIGIN if worker else fixed(CONFIG))
        return combine(origins)

    def _global(self, name: Name, frame: Frame, rank: Set[str]) -> Origin:
        """A module-level or imported name: fixed for the run, unless code reassigns it at
        run time (``global EPOCH`` in the training loop), which forked workers would see."""
        qualified = name.qualified
        if qualified.startswith(("torch.", "numpy.", "random.")):
            return UNKNOWN_ORIGIN
        values = self.flow.eval(name, frame)
        owner = self._owner(qualified, frame)
        if owner is not None and _reassigned_at_run_time(*owner) and not self._written_once_fixed(*owner):
            return UNKNOWN_ORIGIN
        if owner is not None and "." not in qualified[len(owner[0].name) + 1:]:
            module, variable = owner
            assigns = [a for a in module.module_code.assigns if a.target == variable]
            if assigns:
                computed = combine(self.origin(a.value, self.flow.module_frame(module), MAIN) for a in assigns)
                if computed.kind != UNKNOWN:
                    return fixed(*(computed.parts | rank)) if computed.kind == FIXED else computed
        parts = set(rank)
        if values and all(isinstance(v, Constant) and isinstance(v.value, (int, float)) for v in values):
            parts.add(CONSTANT)
        else:
            parts.add(CONFIG)
        return Origin(FIXED, parts=frozenset(parts))

    def _written_once_fixed(self, module, variable: str) -> bool:
        """A global that functions assign (``global args`` then ``args = parser.parse_args()``
        in ``main``), outside loops, from values fixed for the run: fixed itself. One given
        a loop variable or a parameter that changes each epoch (``EPOCH = epoch``) is not."""
        origins = []
        for function in module.functions.values():
            if function.qualname == MODULE_CODE or variable not in function.global_names:
                continue
            if any(a.target == variable for loop in function.loops for a in loop.assigns):
                return False
            writer = self.flow.function_frame(module, function)
            origins += [self.origin(a.value, writer, MAIN) for a in function.assigns if a.target == variable]
        return bool(origins) and all(origin.kind == FIXED for origin in origins)

    def _owner(self, qualified: str, frame: Frame):
        parts = qualified.split(".")
        for cut in range(len(parts) - 1, 0, -1):
            dotted = ".".join(parts[:cut])
            module = frame.module if frame.module.name == dotted else self.flow.index.module_named(dotted, frame.module, load=False)
            if module is not None:
                return module, parts[cut]
        return None


def _may_seed(call: Call) -> bool:
    """A project seeding helper says so in its name (``set_seed``, ``fix_random_seeds``,
    ``init_seeds``, ``worker_init``): a spelling screen before following a call."""
    func = call.func
    spelled = func.dotted.rsplit(".", 1)[-1].lower() if isinstance(func, Name) else ""
    return "seed" in spelled or "determinis" in spelled or "random" in spelled or "init" in spelled


def _may_be_seeder(call: Call, function: Function) -> bool:
    """Every global seeder says "seed" or "determinis" in its last name, and so does any
    name a module gives it (``seed_all = torch.manual_seed``); only a local alias or a
    parameter (``seeder(0)``) can hide one."""
    func = call.func
    if not isinstance(func, Name):
        return False
    spelled = func.dotted.rsplit(".", 1)[-1].lower()
    if "seed" in spelled or "determinis" in spelled:
        return True
    if func.qualified is not None and ("seed" in func.qualified.rsplit(".", 1)[-1].lower()):
        return True
    local = func.qualified is None and "." not in func.dotted
    return local and (func.dotted in function.params or any(a.target == func.dotted for a in function.assigns))


def _reassigned_at_run_time(module, variable: str) -> bool:
    for function in module.functions.values():
        if function.qualname == MODULE_CODE:
            if any(a.target == variable for loop in function.loops for a in loop.assigns):
                return True
            if any(loop.target == variable for loop in function.loops):
                return True
            continue
        if variable in function.global_names and any(a.target == variable for a in function.assigns):
            return True
    return False
