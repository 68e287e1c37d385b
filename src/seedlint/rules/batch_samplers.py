"""What Lightning does to a custom batch sampler it re-creates under DDP: the judgement
SDL101, SDL102, SDL106 and SDL107 share (one verdict per class; the most specific wins).

Lightning (2.1 .. 2.6, ``lightning.pytorch.utilities.data._dataloader_init_kwargs_resolve_sampler``)
re-creates a DataLoader's custom batch sampler under DDP, and in ``predict`` even on one device:
- a ``BatchSampler`` subclass built inside a ``*_dataloader`` hook: from its recorded
  constructor arguments with ``sampler`` replaced (TypeError when ``__init__`` has no ``sampler``);
- otherwise, when it has ``batch_size`` and ``drop_last`` attributes:
  ``type(bs)(sampler, batch_size=bs.batch_size, drop_last=bs.drop_last)``;
- otherwise: TypeError "doesn't subclass PyTorch's `BatchSampler`" (Lightning <= 2.0 read
  ``bs.batch_size`` then ``bs.drop_last`` unconditionally: AttributeError).
Only loaders a Trainer or Fabric with sampler injection on runs are judged.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Dict, Iterable, List, Optional, Tuple

from seedlint.analysis.construction_reads import attributes_read
from seedlint.analysis.index import ClassRef, FunctionRef
from seedlint.analysis.lightning import ON_HOST, RENAMED_IN, SEVERAL, TYPE_ERROR_SINCE
from seedlint.analysis.objects import Instance
from seedlint.config import Settings
from seedlint.diagnostics import Diagnostic
from seedlint.facts.model import Attr, Call, ModuleFacts, Name, Span
from seedlint.knowledge.samplers import (
    DISTRIBUTED_SAMPLER_ATTRIBUTES,
    DISTRIBUTED_SAMPLER_CLASSES,
    DISTRIBUTED_SAMPLER_PARAMETERS,
    INJECTED_SAMPLER,
    inherited_attributes,
)
from seedlint.rules.base import Rule, where

LIGHTNING_TRIGGERS: Tuple[bytes, ...] = (b"batch_sampler", b"Trainer", b"LightningCLI")

BATCH_SAMPLER = frozenset({"torch.utils.data.BatchSampler", "torch.utils.data.sampler.BatchSampler"})
HOOK_SUFFIX = "_dataloader"
DISABLE_ADVICE = "or set `Trainer(use_distributed_sampler=False)` and shard by rank yourself"
TEMPLATE = (
    "subclass `torch.utils.data.BatchSampler` with `__init__(self, sampler, batch_size, drop_last, ...)` and draw "
    "indices from `self.sampler`"
)
PRECEDENCE = ("SDL102", "SDL101", "SDL106", "SDL107")


@dataclass(frozen=True)
class Verdict:
    """What Lightning does to one batch sampler class, as the rule that reports it says."""

    code: str
    cls: ClassRef
    message: str
    anchor: Span
    module: ModuleFacts
    severity: str = "error"
    related: Tuple[ModuleFacts, ...] = ()
    """The modules of the loaders and Trainers that reach the class."""
    evidence: Tuple[Tuple[str, Span, str], ...] = ()
    """Those loaders and Trainers as places: (path, span, note)."""


class BatchSamplerVerdictRule(Rule):
    """A rule that reports the batch sampler classes judged here to be its case."""

    def triggers(self, settings: Settings) -> Tuple[bytes, ...]:
        return LIGHTNING_TRIGGERS

    def check(self, project) -> Iterable[Diagnostic]:
        for verdict in batch_sampler_verdicts(project):
            if verdict.code == self.code:
                yield self.report(verdict.module, verdict.anchor, verdict.message, severity=verdict.severity,
                                  related=verdict.related, evidence=verdict.evidence)


def batch_sampler_verdicts(project) -> List[Verdict]:
    """One verdict per custom batch sampler class passed to a loader Lightning runs."""
    return project.memo("batch-sampler-verdicts", lambda: _verdicts(project))


def _verdicts(project) -> List[Verdict]:
    lightning = project.lightning
    if not lightning.used:
        return []
    by_class: Dict[Tuple[str, str], List[Verdict]] = {}
    order: List[Tuple[str, str]] = []
    for obj, runners in lightning.reached_objects():
        if not any(r.injects for r in runners):
            continue
        severity = distributed_severity(project, runners)
        for value in project.loaders.argument(obj.loader, "batch_sampler", obj.frame).values:
            if not isinstance(value, Instance):
                continue
            verdict = _judge(project, value)
            if verdict is None:
                continue
            if verdict.code != "SDL107":
                if severity is None:
                    continue
                verdict = replace(verdict, severity=severity, message=verdict.message + host_note(severity))
            evidence = ((obj.loader.module.path, obj.loader.call.span, "the DataLoader it is passed to as batch_sampler"),
                        *((r.module.path, r.call.span, "the Trainer that runs that loader") for r in runners
                          if r.injects and r.module is not None and r.call is not None))
            verdict = replace(verdict, related=(obj.loader.module, obj.frame.module, *(r.module for r in runners)), evidence=evidence)
            key = value.cls.key
            if key not in by_class:
                by_class[key] = []
                order.append(key)
            by_class[key].append(verdict)
    chosen = []
    for key in order:
        verdict = min(by_class[key], key=lambda v: PRECEDENCE.index(v.code))
        errors = [v for v in by_class[key] if v.code == verdict.code and v.severity == "error"]
        if errors:
            verdict = errors[0]
        related = {id(m): m for v in by_class[key] for m in v.related}
        evidence = {(path, span.line, span.col, note): (path, span, note) for v in by_class[key] for path, span, note in v.evidence}
        chosen.append(replace(verdict, related=tuple(related.values()), evidence=tuple(evidence.values())))
    return chosen


def host_note(severity: str) -> str:
    """What a warning's message adds: when the multi-process run happens."""
    if severity != "warning":
        return ""
    return " (on a machine with several GPUs: the Trainer that runs this loader does not fix its number of devices)"


def distributed_severity(project, runners) -> Optional[str]:
    """"error" when a runner that injects samplers certainly starts several processes,
    "warning" when that depends on the machine (``devices="auto"``), None when every such
    runner runs one process."""
    counts = {project.lightning.processes(r) for r in runners if r.injects}
    if SEVERAL in counts:
        return "error"
    if ON_HOST in counts:
        return "warning"
    return None


def built_in_hook(instance: Instance) -> bool:
    """The batch sampler is constructed inside a ``*_dataloader`` method (where Lightning
    records its constructor arguments)."""
    if instance.site is None:
        return False
    function = instance.site.frame.function.function
    return function.class_name is not None and function.name.endswith(HOOK_SUFFIX)


def _judge(project, instance: Instance) -> Optional[Verdict]:
    index = project.index
    ref = instance.cls
    name = ref.cls.name
    subclass = index.is_subclass(ref, BATCH_SAMPLER)
    init = index.method(ref, "__init__")
    params = _signature(init) if init is not None else _library_signature(index.external_bases(ref))
    in_hook = built_in_hook(instance)

    def verdict(code: str, message: str, anchor: Optional[Span] = None, module: Optional[ModuleFacts] = None) -> Verdict:
        return Verdict(code, ref, message, anchor or ref.cls.span, module or ref.module)

    if subclass and params is not None and "sampler" not in params.names and not params.varkw and in_hook:
        return verdict("SDL102", (
            f"`{name}` subclasses `BatchSampler` but its `__init__` has no `sampler` parameter: under DDP "
            f"Lightning re-creates it from the arguments it was built with, replacing `sampler`, and raises "
            f"`TypeError: Trying to inject a modified sampler into the batch sampler; however, it seems the class "
            f"`{name}` does not have an argument called `sampler.`` -- take `sampler` as the first argument and "
            f"draw indices from `self.sampler`, {DISABLE_ADVICE}"
        ))
    missing = [a for a in ("batch_size", "drop_last") if not _has_attribute(project, ref, a, subclass)]
    recreated_from_arguments = subclass and in_hook and (params is None or "sampler" in params.names or params.varkw)
    if recreated_from_arguments and params is not None and "sampler" in params.names:
        crash = _injected_sampler_crash(project, ref, "sampler", "from the arguments it was built with, replacing `sampler`,")
        if crash is not None:
            return verdict("SDL101", crash)
    if not recreated_from_arguments:
        if missing:
            return verdict("SDL101", _missing_attributes_message(project, ref.module, name, subclass, missing))
        error = _bind_error(_init_owner(init, index.external_bases(ref), name), params, subclass)
        if error is not None:
            return verdict("SDL101", (
                f"under DDP Lightning re-creates `{name}` as `{name}(sampler, batch_size=..., drop_last=...)`, "
                f"which raises {error} -- {TEMPLATE}, {DISABLE_ADVICE}"
            ))
        if params is not None and params.positional:
            crash = _injected_sampler_crash(
                project, ref, params.positional[0], f"as `{name}(sampler, batch_size=..., drop_last=...)`"
            )
            if crash is not None:
                return verdict("SDL101", crash)
        if params is not None:
            first = params.positional[0] if params.positional else None
            if first is not None and first != "sampler":
                return verdict("SDL106", (
                    f"under DDP Lightning re-creates `{name}` as `{name}(sampler, batch_size=..., drop_last=...)`: the "
                    f"distributed sampler arrives as `{first}`, so `{name}` silently iterates over a sampler where it "
                    f"expects `{first}` -- {TEMPLATE}, {DISABLE_ADVICE}"
                ))
            lost = _lost_arguments(instance, params)
            if lost:
                where = "outside a `*_dataloader` hook" if subclass else "from its attributes"
                return verdict("SDL106", (
                    f"under DDP Lightning re-creates `{name}` {where} as `{name}(sampler, batch_size=..., drop_last=...)`: "
                    f"the argument{'s' if len(lost) > 1 else ''} {', '.join(f'`{p}`' for p in lost)} passed here "
                    f"silently fall{'' if len(lost) > 1 else 's'} back to {'their defaults' if len(lost) > 1 else 'its default'} "
                    f"-- build the batch sampler inside the `*_dataloader` hook of your LightningModule/DataModule, {DISABLE_ADVICE}"
                ))
    set_epoch = index.method(ref, "set_epoch")
    version = project.settings_for(ref.module.path).lightning_version
    if set_epoch is not None and version.may_be_at_least(RENAMED_IN) and not _set_epoch_called(project):
        return verdict("SDL107", (
            f"Lightning >= 2.0 calls `set_epoch` on the DataLoader's sampler and on `batch_sampler.sampler`, never on "
            f"the batch sampler itself: `{name}.set_epoch` is never called, so its per-epoch shuffle repeats every "
            f"epoch -- move the epoch-dependent logic into a sampler passed as `sampler` (whose `set_epoch` Lightning "
            f"calls), or call it yourself from an `on_train_epoch_start` hook"
        ), set_epoch.function.span, set_epoch.module)
    return None


def _injected_sampler_crash(project, ref: ClassRef, parameter: str, how: str) -> Optional[str]:
    """The AttributeError constructing the class around the injected sampler raises: the
    first attribute ``__init__`` reads, on every path, on the sampler's parameter that a
    ``DistributedSampler`` lacks."""
    for read in attributes_read(project.index, ref, parameter):
        if read.attribute in DISTRIBUTED_SAMPLER_ATTRIBUTES:
            continue
        name = ref.cls.name
        return (
            f"under DDP Lightning re-creates `{name}` {how} around a `{INJECTED_SAMPLER}`, and constructing it reads "
            f"`.{read.attribute}` on that sampler in `{read.function}` ({where(read.module, read.span)}), which raises "
            f"`AttributeError: '{INJECTED_SAMPLER}' object has no attribute '{read.attribute}'` -- read what you need "
            f"from arguments of your own or from `sampler.dataset`, {DISABLE_ADVICE}"
        )
    return None


def _missing_attributes_message(project, module: ModuleFacts, name: str, subclass: bool, missing: List[str]) -> str:
    version = project.settings_for(module.path).lightning_version
    parts = []
    if version.may_be_below(TYPE_ERROR_SINCE):
        parts.append(f"`AttributeError: '{name}' object has no attribute '{missing[0]}'` (Lightning <= 2.0)")
    if version.may_be_at_least(TYPE_ERROR_SINCE):
        parts.append(
            "`TypeError: Lightning can't inject a (distributed) sampler into your batch sampler, because it "
            "doesn't subclass PyTorch's `BatchSampler`` (Lightning >= 2.1)"
        )
    lacking = " or ".join(f"`{m}`" for m in missing)
    attributes = f"has no {lacking} attribute" if len(missing) == 1 else f"has no {lacking} attributes"
    kind = attributes if subclass else f"does not subclass `BatchSampler` and {attributes}"
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


def _init_owner(init: Optional[FunctionRef], bases: List[str], name: str) -> str:
    """The class whose ``__init__`` runs, as CPython names it in a TypeError."""
    if init is not None:
        return init.function.qualname.rsplit(".", 1)[0] if "." in init.function.qualname else name
    library = next((base for base in bases if base in DISTRIBUTED_SAMPLER_CLASSES), None)
    return library.rsplit(".", 1)[-1] if library is not None else name


def _library_signature(bases: List[str]) -> Optional[_Signature]:
    """The ``__init__`` a project class without its own inherits from a library sampler."""
    if any(base in DISTRIBUTED_SAMPLER_CLASSES for base in bases):
        names = DISTRIBUTED_SAMPLER_PARAMETERS
        return _Signature(names, names, names[:1], names, False, False)
    return None


SAMPLER_SIGNATURE = _Signature(("data_source",), ("data_source",), (), ("data_source",), False, False)
BATCH_SAMPLER_SIGNATURE = _Signature(
    ("sampler", "batch_size", "drop_last"), ("sampler", "batch_size", "drop_last"),
    ("sampler", "batch_size", "drop_last"), ("sampler", "batch_size", "drop_last"), False, False,
)


def _bind_error(name: str, params: Optional[_Signature], subclass: bool) -> Optional[str]:
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
    """``self.<attribute>`` is set by the class (or is a property of it), or by
    ``BatchSampler.__init__`` it inherits or calls."""
    index = project.index
    for item in index.mro(ref):
        if any(a.target == attribute for a in item.cls.body_assigns):
            return True
        for qualname in item.cls.methods.values():
            method = item.module.functions[qualname]
            if method.name == attribute:
                return True
            if method.params and any(a.target == f"{method.params[0]}.{attribute}" for a in method.assigns):
                return True
    init = index.method(ref, "__init__")
    library_runs = init is None or any(_is_super_init(call) for call in init.function.calls)
    if library_runs and any(attribute in inherited_attributes(base) for base in index.external_bases(ref)):
        return True  # a DistributedSampler subclass has ``drop_last`` from DistributedSampler.__init__
    if not subclass:
        return False
    return library_runs


def _is_super_init(call: Call) -> bool:
    func = call.func
    if isinstance(func, Name):
        return func.dotted.endswith(".__init__") and func.qualified is not None and func.qualified.rsplit(".", 1)[0] in BATCH_SAMPLER
    return (
        isinstance(func, Attr) and func.attr == "__init__" and isinstance(func.value, Call)
        and isinstance(func.value.func, Name) and func.value.func.qualified == "builtins.super"
    )


def _lost_arguments(instance: Instance, params: _Signature) -> List[str]:
    if instance.site is None:
        return []
    call = instance.site.call
    lost = []
    for parameter in params.names:
        if parameter in ("sampler", "batch_size", "drop_last") or parameter == (params.positional[:1] or ("",))[0]:
            continue
        position = params.positional.index(parameter) if parameter in params.positional else None
        if call.argument(parameter, position) is not None:
            lost.append(parameter)
    return lost


def _set_epoch_called(project) -> bool:
    """Some project code calls ``<...>batch_sampler.set_epoch(...)`` itself."""
    for module in list(project.index.modules.values()):
        for _, call in module.all_calls():
            if isinstance(call.func, Name) and call.func.dotted.endswith("batch_sampler.set_epoch"):
                return True
    return False
