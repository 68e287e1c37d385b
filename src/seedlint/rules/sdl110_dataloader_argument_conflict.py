"""SDL110 dataloader-argument-conflict."""

from __future__ import annotations

from typing import Iterable, List, Optional, Tuple

from seedlint.analysis.objects import NONE, Constant, ExternalInstance, Instance
from seedlint.config import Settings
from seedlint.diagnostics import Diagnostic, Fix
from seedlint.facts.model import Call, Const, Name
from seedlint.rules.base import Project, Rule, where

FIX_KIND = "drop-batch-size-none"
HARMLESS = (("batch_size", (1,)), ("shuffle", (False, None)), ("sampler", (None,)), ("drop_last", (False, None)))
"""Values torch accepts beside ``batch_sampler`` (it tests ``batch_size != 1 or shuffle or
sampler is not None or drop_last``)."""
TORCH_ERROR = "ValueError: batch_sampler option is mutually exclusive with batch_size, shuffle, sampler, and drop_last"
SAMPLER_ERROR = "ValueError: sampler option is mutually exclusive with shuffle"
SHUFFLE_FIX = "shuffle-only-without-sampler"


class DataloaderArgumentConflict(Rule):
    """
    ## What it does
    Finds `DataLoader(batch_sampler=...)` that also passes `batch_size` other than 1 (including
    `batch_size=None`), `shuffle=True`, a `sampler`, or `drop_last=True`; and
    `DataLoader(sampler=...)` with `shuffle=True` where the sampler may be an object (a
    `DistributedSampler` built when the run is distributed).

    ## Why is this bad?
    torch raises `ValueError: batch_sampler option is mutually exclusive with batch_size,
    shuffle, sampler, and drop_last` when the DataLoader is built: the batch sampler already
    decides batching, order and dropping. Note that `batch_size=None` is a conflict too (torch
    compares with the default `1`). A sampler decides the order too: with `shuffle=True`
    torch raises `ValueError: sampler option is mutually exclusive with shuffle`, often only
    in the distributed runs that build the sampler, so single-GPU tests pass.

    ## Example
    ```python
    DataLoader(ds, batch_size=None, batch_sampler=BucketSampler(ds, 32))
    ```

    ## Use instead
    ```python
    DataLoader(ds, batch_sampler=BucketSampler(ds, 32))
    ```

    ## Fix safety
    Safe, for a literal `batch_size=None` keyword, which is dropped (the loader then builds as
    intended), and for a literal `shuffle=True` beside a sampler: it becomes
    `shuffle=sampler is None` when the sampler is a name that may be None (runs without a
    sampler still shuffle), and is dropped when the sampler is built in the call. Other
    conflicts carry a value the user must move into the batch sampler, so they are reported
    without a fix.
    """

    code = "SDL110"
    name = "dataloader-argument-conflict"
    summary = "DataLoader arguments torch rejects together (batch_sampler with batch_size, shuffle, sampler or drop_last; sampler with shuffle)"
    fix_safety = "safe"

    def triggers(self, settings: Settings) -> Tuple[bytes, ...]:
        return (b"sampler",)

    def check(self, project: Project) -> Iterable[Diagnostic]:
        loaders = project.loaders
        reported = set()
        for loader in loaders.all:
            if id(loader.call) in reported:
                continue
            if not loader.positional:
                # A library's DataLoader subclass (MONAI's) passes its keywords on to torch's.
                for frame in loaders.contexts(loader):
                    found = self._sampler_with_shuffle(project, loader, frame)
                    if found is not None:
                        reported.add(id(loader.call))
                        yield found
                        break
                continue
            for frame in loaders.contexts(loader):
                batch_sampler = loaders.argument(loader, "batch_sampler", frame)
                if NONE in batch_sampler.values or (batch_sampler.unknown and batch_sampler.explicit is None):
                    found = self._sampler_with_shuffle(project, loader, frame)
                    if found is not None:
                        reported.add(id(loader.call))
                        yield found
                        break
                    continue
                conflicts: List[str] = []
                fix = None
                for name, harmless in HARMLESS:
                    argument = loaders.argument(loader, name, frame)
                    if argument.unknown and argument.explicit is None:
                        continue  # it may not be passed at all
                    if any(isinstance(v, Constant) and v.value in harmless for v in argument.values):
                        continue
                    constants = [v.value for v in argument.values if isinstance(v, Constant)]
                    shown = repr(constants[0]) if len(constants) == 1 and len(argument.values) == 1 else "..."
                    conflicts.append(f"`{name}={shown}`")
                    span = loader.call.keyword_span(name)
                    explicit = argument.explicit
                    if name == "batch_size" and isinstance(explicit, Const) and explicit.value is None and span is not None:
                        fix = Fix(FIX_KIND, loader.module.path, span, True, ("batch_size",))
                if not conflicts:
                    continue
                reported.add(id(loader.call))
                message = (
                    f"`batch_sampler=` together with {', '.join(conflicts)}: torch raises `{TORCH_ERROR}` "
                    "when this DataLoader is built -- let the batch sampler decide batching, order and dropping"
                )
                built = sorted((v.site for v in batch_sampler.values if getattr(v, "site", None) is not None and v.site.call is not loader.call),
                               key=lambda site: (site.frame.module.path, site.call.span.line, site.call.span.col))
                evidence = [(site.frame.module.path, site.call.span, "the batch sampler is built here") for site in built[:1]]
                yield self.report(loader.module, loader.call.span, message, fix, related=(frame.module,), evidence=evidence)
                break

    def _sampler_with_shuffle(self, project: Project, loader, frame) -> Optional[Diagnostic]:
        """``sampler=`` that may be an object, with ``shuffle`` certainly true."""
        loaders = project.loaders
        shuffle = loaders.argument(loader, "shuffle", frame)
        if shuffle.explicit is None or not shuffle.all_constant or not all(v.value is True for v in shuffle.values):
            return None
        sampler = loaders.argument(loader, "sampler", frame)
        if sampler.explicit is None:
            return None
        objects = [v for v in sampler.values if isinstance(v, (Instance, ExternalInstance))]
        if not objects:
            return None
        may_be_none = NONE in sampler.values
        built = sorted((v.site for v in objects if getattr(v, "site", None) is not None),
                       key=lambda site: (site.frame.module.path, site.call.span.line, site.call.span.col))
        where_built = f" (built at {where(built[0].frame.module, built[0].call.span)})" if built else ""
        when = f"when the sampler{where_built} is not None" if may_be_none else f"with the sampler{where_built}"
        message = (
            f"`shuffle=True` together with `sampler=`: {when}, torch raises `{SAMPLER_ERROR}` as this DataLoader "
            "is built -- the sampler decides the order (a `DistributedSampler` shuffles by itself)"
        )
        fix = None
        span = loader.call.keyword_span("shuffle")
        explicit = sampler.explicit
        if span is not None and isinstance(shuffle.explicit, Const):
            if isinstance(explicit, Name) and explicit.dotted.isidentifier():
                fix = Fix(SHUFFLE_FIX, loader.module.path, span, True, ("unless", explicit.dotted))
            elif isinstance(explicit, Call) and not may_be_none:
                fix = Fix(SHUFFLE_FIX, loader.module.path, span, True, ("drop",))
        evidence = [(site.frame.module.path, site.call.span, "the sampler is built here") for site in built[:1]]
        return self.report(loader.module, loader.call.span, message, fix, related=(frame.module,), evidence=evidence)
