"""PyTorch Lightning: whether a project uses it, whether it injects distributed samplers,
and what happens when it re-creates each custom batch sampler the project passes to a
DataLoader (the verdict SDL101, SDL102, SDL104, SDL106 and SDL107 report from).

Lightning (2.1 .. 2.6, ``lightning.pytorch.utilities.data._dataloader_init_kwargs_resolve_sampler``)
re-creates a DataLoader's custom batch sampler under DDP, and in ``predict`` even on one device:
- a ``BatchSampler`` subclass built inside a ``*_dataloader`` hook: from its recorded
  constructor arguments with ``sampler`` replaced (TypeError when ``__init__`` has no ``sampler``);
- otherwise, when it has ``batch_size`` and ``drop_last`` attributes:
  ``type(bs)(sampler, batch_size=bs.batch_size, drop_last=bs.drop_last)``;
- otherwise: TypeError "doesn't subclass PyTorch's `BatchSampler`" (Lightning <= 2.0 read
  ``bs.batch_size`` unconditionally: AttributeError).
A plain ``torch.utils.data.BatchSampler`` is not re-created but dropped.
"""

from __future__ import annotations

import weakref
from dataclasses import dataclass
from typing import Dict, Iterator, List, Optional, Tuple

from seedlint.dataflow import Instance
from seedlint.facts.model import Attr, Call, Const, Function, IfExp, ModuleFacts, Name, Span, Value
from seedlint.analysis.index import ClassRef, ExternalRef, FunctionRef
from seedlint.loaders import LoaderCall

LIGHTNING_PACKAGES = ("lightning", "pytorch_lightning", "lightning_fabric")
TRAINER_CLASSES = frozenset({
    "lightning.Trainer", "lightning.pytorch.Trainer", "lightning.pytorch.trainer.Trainer",
    "lightning.pytorch.trainer.trainer.Trainer", "pytorch_lightning.Trainer", "pytorch_lightning.trainer.Trainer",
    "pytorch_lightning.trainer.trainer.Trainer",
})
FABRIC_CLASSES = frozenset({
    "lightning.Fabric", "lightning.fabric.Fabric", "lightning.fabric.fabric.Fabric", "lightning_fabric.Fabric",
    "lightning_fabric.fabric.Fabric", "lightning.fabric.LightningLite", "pytorch_lightning.lite.LightningLite",
    "lightning_lite.LightningLite",
})
BATCH_SAMPLER = frozenset({"torch.utils.data.BatchSampler", "torch.utils.data.sampler.BatchSampler"})
NEW_FLAG = "use_distributed_sampler"
TRAINER_OLD_FLAG = "replace_sampler_ddp"
FABRIC_OLD_FLAG = "replace_sampler"
OLD_ENV_VAR = "PL_TRAINER_REPLACE_SAMPLER_DDP"
NEW_ENV_VAR = "PL_TRAINER_USE_DISTRIBUTED_SAMPLER"
RENAMED_IN = "2.0"
TYPE_ERROR_SINCE = "2.1"
HOOK_SUFFIX = "_dataloader"
DISABLE_ADVICE = f"or set `Trainer({NEW_FLAG}=False)` and shard by rank yourself"


# ---------------------------------------------------------------- project-level facts
def uses_lightning(project) -> bool:
    """The project declares a Lightning version or imports one of its packages."""
    if project.settings.lightning_version.declared:
        return True
    for module in list(project.index.modules.values()):
        for target in module.imports.values():
            if target.split(".", 1)[0] in LIGHTNING_PACKAGES:
                return True
    return False


@dataclass(frozen=True, eq=False)
class FlagCall:
    """A call that may take the sampler-injection flag: a ``Trainer(...)`` or ``fabric.setup_dataloaders(...)``."""

    module: ModuleFacts
    function: Function
    call: Call
    old_flag: str
    """The pre-2.0 spelling of the flag for this call (``replace_sampler_ddp`` or ``replace_sampler``)."""


def flag_calls(project) -> List[FlagCall]:
    return _cached(project, "flag_calls", lambda: list(_flag_calls(project)))


def _flag_calls(project) -> Iterator[FlagCall]:
    for module in project.modules:
        for function, call in module.all_calls():
            if _is_class_call(project, module, call.func, TRAINER_CLASSES):
                yield FlagCall(module, function, call, TRAINER_OLD_FLAG)
            elif (
                isinstance(call.func, Name) and call.func.rest.rsplit(".", 1)[-1] in ("setup_dataloaders", "setup_dataloader")
                and _is_fabric_object(project, module, call.func)
            ):
                yield FlagCall(module, function, call, FABRIC_OLD_FLAG)


def _is_class_call(project, module: ModuleFacts, func: Value, classes: frozenset) -> bool:
    return project.dataflow.refers_to(module, func, project.subclasses(classes)) is not None


def _is_fabric_object(project, module: ModuleFacts, method: Name) -> bool:
    owner = Name(method.dotted.rsplit(".", 1)[0], method.span, method.qualified.rsplit(".", 1)[0] if method.qualified else None, method.scope)
    if owner.qualified is not None and owner.qualified.split(".", 1)[0] in LIGHTNING_PACKAGES:
        return False
    for binding in project.dataflow.bindings(module, owner):
        if isinstance(binding.value, Call) and _is_class_call(project, binding.module, binding.value.func, FABRIC_CLASSES):
            return True
    return False


def sampler_injection_disabled(project) -> bool:
    """True only when the project builds a Trainer/Fabric loader setup and every one of them
    passes the flag as literally False."""
    calls = flag_calls(project)
    if not calls:
        return False
    for item in calls:
        value = item.call.kwarg(NEW_FLAG)
        if value is None:
            value = item.call.kwarg(item.old_flag)
        constant = project.dataflow.const(item.module, value) if value is not None else None
        if constant is None or constant.value is not False:
            return False
    return True


def lightning_injects_samplers(project) -> bool:
    """The project uses Lightning and does not turn sampler injection off everywhere."""
    return _cached(project, "injects", lambda: uses_lightning(project) and not sampler_injection_disabled(project))


# ---------------------------------------------------------------- batch samplers
@dataclass(frozen=True, eq=False)
class BatchSamplerUse:
    """A value passed as ``batch_sampler=`` to a loader."""

    loader: LoaderCall
    value: Value
    keyword: Optional[Span]
    instance: Optional[Instance]
    """The project class object passed, when it resolves to one."""
    in_hook: bool
    """The batch sampler is constructed inside a LightningModule/DataModule ``*_dataloader`` hook."""


def batch_sampler_uses(project) -> List[BatchSamplerUse]:
    return _cached(project, "uses", lambda: list(_batch_sampler_uses(project)))


def _batch_sampler_uses(project) -> Iterator[BatchSamplerUse]:
    for loader in project.loader_calls():
        value = loader.argument("batch_sampler")
        if value is None or (isinstance(value, Const) and value.value is None):
            continue
        keyword = loader.call.keyword_span("batch_sampler")
        instances = project.dataflow.instances(loader.module, value)
        for instance in instances:
            yield BatchSamplerUse(loader, value, keyword, instance, _built_in_hook(instance))
        if not instances:
            yield BatchSamplerUse(loader, value, keyword, None, False)


def _built_in_hook(instance: Instance) -> bool:
    if instance.call is None:
        return False
    for function in instance.module.functions.values():
        if any(call is instance.call for call in function.calls):
            return function.class_name is not None and function.name.endswith(HOOK_SUFFIX)
    return False


def plain_batch_sampler_call(project, use: BatchSamplerUse) -> Optional[Tuple[ModuleFacts, Call]]:
    """The ``torch.utils.data.BatchSampler(...)`` call (exactly that class) the value comes from."""
    return _plain_call(project, use.loader.module, use.value, 0)


def _plain_call(project, module: ModuleFacts, value: Value, depth: int) -> Optional[Tuple[ModuleFacts, Call]]:
    if depth > 4:
        return None
    if isinstance(value, Call):
        symbols = project.dataflow.symbols(module, value.func)
        if symbols and all(isinstance(s, ExternalRef) and s.qualified in BATCH_SAMPLER for s in symbols):
            return module, value
        return None
    if isinstance(value, Name):
        bindings = project.dataflow.bindings(module, value)
        if len(bindings) == 1:
            return _plain_call(project, bindings[0].module, bindings[0].value, depth + 1)
    return None


@dataclass(frozen=True)
class Verdict:
    """What Lightning does to one batch sampler class, as the rule that reports it says."""

    code: str
    cls: ClassRef
    message: str
    anchor: Span
    module: ModuleFacts


def batch_sampler_verdicts(project) -> List[Verdict]:
    """One verdict per custom batch sampler class (the most specific problem wins)."""
    return _cached(project, "verdicts", lambda: _verdicts(project))


PRECEDENCE = ("SDL102", "SDL101", "SDL106", "SDL107")


def _verdicts(project) -> List[Verdict]:
    if not lightning_injects_samplers(project):
        return []
    by_class: Dict[Tuple[str, str], List[Verdict]] = {}
    order: List[Tuple[str, str]] = []
    for use in batch_sampler_uses(project):
        if use.instance is None:
            continue
        verdict = _judge(project, use)
        if verdict is None:
            continue
        key = use.instance.cls.key
        if key not in by_class:
            by_class[key] = []
            order.append(key)
        by_class[key].append(verdict)
    return [min(by_class[key], key=lambda v: PRECEDENCE.index(v.code)) for key in order]


def is_batch_sampler_subclass(project, ref: ClassRef) -> bool:
    return project.index.is_subclass(ref, BATCH_SAMPLER)


def _judge(project, use: BatchSamplerUse) -> Optional[Verdict]:
    index = project.index
    ref = use.instance.cls
    name = ref.cls.name
    subclass = is_batch_sampler_subclass(project, ref)
    init = index.method(ref, "__init__")
    params = _signature(init) if init is not None else None

    def verdict(code: str, message: str, anchor: Optional[Span] = None, module: Optional[ModuleFacts] = None) -> Verdict:
        return Verdict(code, ref, message, anchor or ref.cls.span, module or ref.module)

    if subclass and params is not None and "sampler" not in params.names and not params.varkw:
        if use.in_hook:
            return verdict("SDL102", (
                f"`{name}` subclasses `BatchSampler` but its `__init__` has no `sampler` parameter: under DDP "
                f"Lightning re-creates it from the arguments it was built with, replacing `sampler`, and raises "
                f"`TypeError: Trying to inject a modified sampler into the batch sampler; however, it seems the class "
                f"`{name}` does not have an argument called `sampler.`` -- take `sampler` as the first argument and "
                f"draw indices from `self.sampler`, {DISABLE_ADVICE}"
            ))
    attributes = _has_attribute(project, ref, "batch_size", subclass) and _has_attribute(project, ref, "drop_last", subclass)
    recreated_from_arguments = subclass and use.in_hook and (params is None or "sampler" in params.names or params.varkw)
    if not recreated_from_arguments:
        if not attributes:
            return verdict("SDL101", _missing_attributes_message(project, name, subclass))
        error = _bind_error(name, params, subclass, ref)
        if error is not None:
            return verdict("SDL101", (
                f"under DDP Lightning re-creates `{name}` as `{name}(sampler, batch_size=..., drop_last=...)`, "
                f"which raises {error} -- {TEMPLATE}, {DISABLE_ADVICE}"
            ))
        if params is not None:
            first = params.positional[0] if params.positional else None
            if first is not None and first != "sampler":
                return verdict("SDL106", (
                    f"under DDP Lightning re-creates `{name}` as `{name}(sampler, batch_size=..., drop_last=...)`: the "
                    f"distributed sampler arrives as `{first}`, so `{name}` silently iterates over a sampler where it "
                    f"expects `{first}` -- {TEMPLATE}, {DISABLE_ADVICE}"
                ))
            lost = _lost_arguments(project, use, params)
            if lost:
                where = "outside a `*_dataloader` hook" if subclass else "from its attributes"
                return verdict("SDL106", (
                    f"under DDP Lightning re-creates `{name}` {where} as `{name}(sampler, batch_size=..., drop_last=...)`: "
                    f"the argument{'s' if len(lost) > 1 else ''} {', '.join(f'`{p}`' for p in lost)} passed here "
                    f"silently fall{'' if len(lost) > 1 else 's'} back to {'their defaults' if len(lost) > 1 else 'its default'} "
                    f"-- build the batch sampler inside the `*_dataloader` hook of your LightningModule/DataModule, {DISABLE_ADVICE}"
                ))
    set_epoch = index.method(ref, "set_epoch")
    if set_epoch is not None and project.settings.lightning_version.may_be_at_least(RENAMED_IN) and not _set_epoch_called(project):
        return verdict("SDL107", (
            f"Lightning >= 2.0 calls `set_epoch` on the DataLoader's sampler and on `batch_sampler.sampler`, never on "
            f"the batch sampler itself: `{name}.set_epoch` is never called, so its per-epoch shuffle repeats every "
            f"epoch -- move the epoch-dependent logic into a sampler passed as `sampler` (whose `set_epoch` Lightning "
            f"calls), or call it yourself from an `on_train_epoch_start` hook"
        ), set_epoch.function.span, set_epoch.module)
    return None


TEMPLATE = (
    "subclass `torch.utils.data.BatchSampler` with `__init__(self, sampler, batch_size, drop_last, ...)` and draw "
    "indices from `self.sampler`"
)


def _missing_attributes_message(project, name: str, subclass: bool) -> str:
    version = project.settings.lightning_version
    parts = []
    if version.may_be_below(TYPE_ERROR_SINCE):
        parts.append(f"`AttributeError: '{name}' object has no attribute 'batch_size'` (Lightning <= 2.0)")
    if version.may_be_at_least(TYPE_ERROR_SINCE):
        parts.append(
            "`TypeError: Lightning can't inject a (distributed) sampler into your batch sampler, because it "
            "doesn't subclass PyTorch's `BatchSampler`` (Lightning >= 2.1)"
        )
    kind = "has no `batch_size`/`drop_last` attributes" if subclass else "does not subclass `BatchSampler` and has no `batch_size`/`drop_last` attributes"
    return (
        f"`{name}` is passed as `batch_sampler=` but {kind}: under DDP Lightning cannot re-create it with a "
        f"distributed sampler and raises {' / '.join(parts)} -- {TEMPLATE}, {DISABLE_ADVICE}"
    )


@dataclass(frozen=True)
class _Signature:
    names: Tuple[str, ...]
    positional: Tuple[str, ...]
    """Positional parameters after ``self``."""
    required: Tuple[str, ...]
    keyword: Tuple[str, ...]
    """Parameters a keyword can bind."""
    varargs: bool
    varkw: bool


def _signature(init: FunctionRef) -> _Signature:
    function = init.function
    kinds = function.param_kinds or ("normal",) * len(function.params)
    pairs = list(zip(function.params, kinds))[1:]
    defaults = {name for name, _ in function.defaults}
    positional = tuple(n for n, k in pairs if k in ("posonly", "normal"))
    return _Signature(
        names=tuple(n for n, k in pairs if k not in ("star", "starstar")),
        positional=positional,
        required=tuple(n for n, k in pairs if k in ("posonly", "normal", "kwonly") and n not in defaults),
        keyword=tuple(n for n, k in pairs if k in ("normal", "kwonly")),
        varargs=any(k == "star" for _, k in pairs),
        varkw=any(k == "starstar" for _, k in pairs),
    )


SAMPLER_SIGNATURE = _Signature(("data_source",), ("data_source",), (), ("data_source",), False, False)
BATCH_SAMPLER_SIGNATURE = _Signature(
    ("sampler", "batch_size", "drop_last"), ("sampler", "batch_size", "drop_last"),
    ("sampler", "batch_size", "drop_last"), ("sampler", "batch_size", "drop_last"), False, False,
)


def _bind_error(name: str, params: Optional[_Signature], subclass: bool, ref: ClassRef) -> Optional[str]:
    """The TypeError CPython raises for ``cls(sampler, batch_size=b, drop_last=d)``, in its order:
    keywords first, then too many positionals, then missing arguments."""
    if params is None:
        params = BATCH_SAMPLER_SIGNATURE if subclass else SAMPLER_SIGNATURE
    owner = f"{name}.__init__()"
    positional_bound = params.positional[:1]
    for keyword in ("batch_size", "drop_last"):
        if keyword in positional_bound:
            return (
                f"`TypeError: {owner} got multiple values for argument '{keyword}'` (re-raised by Lightning >= 2.1 as "
                f"\"Lightning can't inject a (distributed) sampler into your batch sampler\")"
            )
        if keyword not in params.keyword and not params.varkw:
            return f"`TypeError: {owner} got an unexpected keyword argument '{keyword}'`"
    if not params.positional and not params.varargs:
        return f"`TypeError: {owner} takes 1 positional argument but 2 were given`"
    missing = [p for p in params.required if p not in positional_bound and p not in ("batch_size", "drop_last")]
    if missing:
        count = len(missing)
        quoted = [f"'{m}'" for m in missing]
        listed = quoted[0] if count == 1 else (
            f"{quoted[0]} and {quoted[1]}" if count == 2 else ", ".join(quoted[:-1]) + f", and {quoted[-1]}"
        )
        return f"`TypeError: {owner} missing {count} required positional argument{'s' if count > 1 else ''}: {listed}`"
    return None


def _has_attribute(project, ref: ClassRef, attribute: str, subclass: bool) -> bool:
    """``self.<attribute>`` is set by the class, or by ``BatchSampler.__init__`` it inherits or calls."""
    if project.dataflow.attribute_bindings(ref, attribute):
        return True
    if not subclass:
        return False
    init = project.index.method(ref, "__init__")
    if init is None:
        return True
    return any(_is_super_init(call) for call in init.function.calls)


def _is_super_init(call: Call) -> bool:
    func = call.func
    if isinstance(func, Name):
        return func.dotted.endswith(".__init__") and func.qualified is not None and func.qualified.rsplit(".", 1)[0] in BATCH_SAMPLER
    return (
        isinstance(func, Attr) and func.attr == "__init__" and isinstance(func.value, Call)
        and isinstance(func.value.func, Name) and func.value.func.qualified == "builtins.super"
    )


def _lost_arguments(project, use: BatchSamplerUse, params: _Signature) -> List[str]:
    lost = []
    for parameter in params.names:
        if parameter in ("sampler", "batch_size", "drop_last") or parameter == (params.positional[:1] or ("",))[0]:
            continue
        passed = project.dataflow.construction_argument(use.instance, parameter)
        if passed is not None:
            lost.append(parameter)
    return lost


def _set_epoch_called(project) -> bool:
    """Some project code calls ``<...>batch_sampler.set_epoch(...)`` itself."""
    for module in list(project.index.modules.values()):
        for _, call in module.all_calls():
            if isinstance(call.func, Name) and call.func.dotted.endswith("batch_sampler.set_epoch"):
                return True
    return False


def may_be_none(value: Value) -> bool:
    if isinstance(value, Const):
        return value.value is None
    if isinstance(value, IfExp):
        return may_be_none(value.body) or may_be_none(value.orelse)
    return False


# ---------------------------------------------------------------- per-run memo
_MEMO: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


def _cached(project, key: str, compute):
    slot = _MEMO.setdefault(project, {})
    if key not in slot:
        slot[key] = compute()
    return slot[key]


# ---------------------------------------------------------------- the renamed flag
@dataclass(frozen=True, eq=False)
class FlagSpelling:
    """One spelling of the sampler-injection flag: a keyword or the environment variable name."""

    module: ModuleFacts
    span: Span
    spelled: str
    owner: str
    """"Trainer", "Fabric.setup_dataloaders" or "environment"."""


def flag_spellings(project) -> List[FlagSpelling]:
    found: List[FlagSpelling] = []
    for item in flag_calls(project):
        owner = "Trainer" if item.old_flag == TRAINER_OLD_FLAG else "Fabric.setup_dataloaders"
        for keyword in (item.old_flag, NEW_FLAG):
            span = item.call.keyword_span(keyword)
            if span is not None:
                found.append(FlagSpelling(item.module, span, keyword, owner))
    for module in project.modules:
        for text, span in module.caps_strings:
            if text == OLD_ENV_VAR:
                found.append(FlagSpelling(module, span, text, "environment"))
    return found


def renamed(spelling: FlagSpelling) -> str:
    """The other side of the Lightning 2.0 rename."""
    pairs = {TRAINER_OLD_FLAG: NEW_FLAG, FABRIC_OLD_FLAG: NEW_FLAG, OLD_ENV_VAR: NEW_ENV_VAR}
    if spelling.spelled in pairs:
        return pairs[spelling.spelled]
    return TRAINER_OLD_FLAG if spelling.owner == "Trainer" else FABRIC_OLD_FLAG
