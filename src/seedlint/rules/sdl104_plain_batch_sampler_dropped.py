"""SDL104 plain-batch-sampler-dropped."""

from __future__ import annotations

from typing import Iterable, Tuple

from seedlint.analysis.objects import ExternalInstance
from seedlint.config import Settings
from seedlint.diagnostics import Diagnostic, Fix
from seedlint.facts.model import Call
from seedlint.rules.base import Project, Rule
from seedlint.rules.batch_samplers import BATCH_SAMPLER, LIGHTNING_TRIGGERS, distributed_severity, host_note

FIX_KIND = "split-plain-batch-sampler"
LOADER_BATCHING = ("batch_size", "shuffle", "sampler", "drop_last")


class PlainBatchSamplerDropped(Rule):
    """
    ## What it does
    Finds `DataLoader(..., batch_sampler=BatchSampler(S, B, D))` with torch's own
    `BatchSampler`, when a Lightning Trainer or Fabric with sampler injection on runs that
    loader (a `*_dataloader` hook returns it, or it is passed to `fit`/`validate`/`test`/
    `predict` or `setup_dataloaders`).

    ## Why is this bad?
    Under DDP Lightning does not re-create a plain `BatchSampler`: it drops it, passes a
    `DistributedSampler` as `sampler=` and keeps the loader's own batching arguments, which a
    loader built with `batch_sampler=` has at `batch_size=None`/`1`. Training silently runs
    with a batch size of 1 (or unbatched samples) and the sampler `S` (its weights, its order)
    is replaced.

    ## Example
    ```python
    DataLoader(ds, batch_sampler=BatchSampler(RandomSampler(ds), 32, drop_last=True))
    ```

    ## Use instead
    ```python
    DataLoader(ds, sampler=RandomSampler(ds), batch_size=32, drop_last=True)
    ```
    Lightning then wraps the batching it can see around the distributed sampler.

    ## Fix safety
    Safe. Without DDP both spellings build the same `BatchSampler(S, B, D)` inside the
    DataLoader; the fix is applied only when `batch_sampler=` is given the `BatchSampler(...)`
    call itself and the loader passes none of `batch_size`, `shuffle`, `sampler`, `drop_last`.
    """

    code = "SDL104"
    name = "plain-batch-sampler-dropped"
    summary = "Lightning drops a plain BatchSampler under DDP"
    fix_safety = "safe"

    def triggers(self, settings: Settings) -> Tuple[bytes, ...]:
        return LIGHTNING_TRIGGERS

    def check(self, project: Project) -> Iterable[Diagnostic]:
        lightning = project.lightning
        if not lightning.used:
            return
        reported = set()
        for obj, runners in lightning.reached_objects():
            severity = distributed_severity(project, runners)
            if severity is None:
                continue
            loader = obj.loader
            for value in project.loaders.argument(loader, "batch_sampler", obj.frame).values:
                if not (isinstance(value, ExternalInstance) and value.qualified in BATCH_SAMPLER):
                    continue
                keyword = loader.call.keyword_span("batch_sampler")
                anchor = keyword or loader.call.span
                key = (loader.module.path, anchor.line, anchor.col)
                if key in reported:
                    continue
                reported.add(key)
                message = (
                    "a plain `BatchSampler` passed as `batch_sampler=` is dropped by Lightning under DDP: the "
                    "DataLoader is re-created with a `DistributedSampler` and batch size 1 (or unbatched), and "
                    "its sampler is replaced -- pass `sampler=`, `batch_size=`, `drop_last=` to the DataLoader instead"
                ) + host_note(severity)
                fix = None
                if keyword is not None and loader.call.kwarg("batch_sampler") is value.site.call and self._fixable(loader.call, value.site.call):
                    fix = Fix(FIX_KIND, loader.module.path, keyword)
                evidence = [(value.site.frame.module.path, value.site.call.span, "the BatchSampler is built here")]
                evidence += [(r.module.path, r.call.span, "the Trainer that runs this loader") for r in runners
                             if r.injects and r.module is not None and r.call is not None]
                yield self.report(loader.module, anchor, message, fix, severity,
                                  related=[obj.frame.module, *(r.module for r in runners)], evidence=evidence)

    @staticmethod
    def _fixable(loader: Call, sampler_call: Call) -> bool:
        if loader.star_args or loader.star_kwargs or len(loader.args) > 1:
            return False
        if any(loader.kwarg(name) is not None for name in LOADER_BATCHING):
            return False
        if sampler_call.star_args or sampler_call.star_kwargs:
            return False
        names = ("sampler", "batch_size", "drop_last")
        given = len(sampler_call.args) + len(sampler_call.kwargs)
        return given == 3 and all(
            sampler_call.argument(name, position) is not None for position, name in enumerate(names)
        )
