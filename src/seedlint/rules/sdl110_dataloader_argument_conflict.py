"""SDL110 dataloader-argument-conflict."""

from __future__ import annotations

from typing import Iterable, List, Tuple

from seedlint.analysis.objects import NONE, Constant
from seedlint.config import Settings
from seedlint.diagnostics import Diagnostic, Fix
from seedlint.facts.model import Const
from seedlint.rules.base import Project, Rule

FIX_KIND = "drop-batch-size-none"
HARMLESS = (("batch_size", (1,)), ("shuffle", (False, None)), ("sampler", (None,)), ("drop_last", (False, None)))
"""Values torch accepts beside ``batch_sampler`` (it tests ``batch_size != 1 or shuffle or
sampler is not None or drop_last``)."""
TORCH_ERROR = "ValueError: batch_sampler option is mutually exclusive with batch_size, shuffle, sampler, and drop_last"


class DataloaderArgumentConflict(Rule):
    """
    ## What it does
    Finds `DataLoader(batch_sampler=...)` that also passes `batch_size` other than 1 (including
    `batch_size=None`), `shuffle=True`, a `sampler`, or `drop_last=True`.

    ## Why is this bad?
    torch raises `ValueError: batch_sampler option is mutually exclusive with batch_size,
    shuffle, sampler, and drop_last` when the DataLoader is built: the batch sampler already
    decides batching, order and dropping. Note that `batch_size=None` is a conflict too (torch
    compares with the default `1`).

    ## Example
    ```python
    DataLoader(ds, batch_size=None, batch_sampler=BucketSampler(ds, 32))
    ```

    ## Use instead
    ```python
    DataLoader(ds, batch_sampler=BucketSampler(ds, 32))
    ```

    ## Fix safety
    Safe, and only for a literal `batch_size=None` keyword, which is dropped (the loader then
    builds as intended). Other conflicts carry a value the user must move into the batch
    sampler, so they are reported without a fix.
    """

    code = "SDL110"
    name = "dataloader-argument-conflict"
    summary = "batch_sampler is mutually exclusive with batch_size, shuffle, sampler and drop_last"
    fix_safety = "safe"

    def triggers(self, settings: Settings) -> Tuple[bytes, ...]:
        return (b"batch_sampler",)

    def check(self, project: Project) -> Iterable[Diagnostic]:
        loaders = project.loaders
        reported = set()
        for loader in loaders.all:
            if not loader.positional or id(loader.call) in reported:
                continue
            for frame in loaders.contexts(loader):
                batch_sampler = loaders.argument(loader, "batch_sampler", frame)
                if NONE in batch_sampler.values or (batch_sampler.unknown and batch_sampler.explicit is None):
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
