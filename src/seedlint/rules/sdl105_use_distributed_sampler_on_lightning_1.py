"""SDL105 use-distributed-sampler-on-lightning-1."""

from __future__ import annotations

from typing import Iterable, Tuple

from seedlint.config import Settings
from seedlint.diagnostics import Diagnostic, Fix
from seedlint.analysis.lightning import NEW_FLAG, RENAMED_IN, renamed
from seedlint.rules.base import Project, Rule
from seedlint.rules.sdl103_replace_sampler_ddp_removed import FIX_KIND, configured_flag


class UseDistributedSamplerOnLightning1(Rule):
    """
    ## What it does
    Finds `Trainer(use_distributed_sampler=...)` or
    `Fabric.setup_dataloaders(use_distributed_sampler=...)` in a project that declares a
    Lightning version below 2.0 (for example `pytorch-lightning==1.9.5`).

    ## Why is this bad?
    `use_distributed_sampler` is the Lightning 2.0 name of `replace_sampler_ddp` (and of
    Fabric's `replace_sampler`); there was no overlap. On Lightning 1.x the new name is a
    `TypeError: __init__() got an unexpected keyword argument 'use_distributed_sampler'`.

    ## Example
    ```python
    # requirements.txt: pytorch-lightning==1.9.5
    trainer = pl.Trainer(use_distributed_sampler=False)
    ```

    ## Use instead
    ```python
    trainer = pl.Trainer(replace_sampler_ddp=False)
    ```

    ## Fix safety
    Safe: applied only when the declared Lightning version is entirely below 2.0.
    """

    code = "SDL105"
    name = "use-distributed-sampler-on-lightning-1"
    summary = "`use_distributed_sampler` does not exist before Lightning 2.0"
    fix_safety = "safe"

    def triggers(self, settings: Settings) -> Tuple[bytes, ...]:
        # As for SDL103: the key may come from `**{...}` or a configuration file.
        return (b"use_distributed_sampler", b"Trainer", b"LightningCLI", b"instantiate")

    def check(self, project: Project) -> Iterable[Diagnostic]:
        for spelling in project.lightning.flag_spellings:
            if spelling.spelled != NEW_FLAG:
                continue
            version = project.settings_for(spelling.module.path).lightning_version
            if not version.declared or version.may_be_at_least(RENAMED_IN):
                continue
            old = renamed(spelling)
            callee = "Trainer.__init__" if spelling.owner in ("Trainer", "LightningCLI") else spelling.owner
            if spelling.place is not None:
                yield configured_flag(self, project, spelling, f"which does not exist before Lightning 2.0 (declared: {version.describe()})", old)
                continue
            message = (
                f"`{NEW_FLAG}=` does not exist before Lightning 2.0 (declared: {version.describe()}): "
                f"`TypeError: {callee}() got an unexpected keyword argument '{NEW_FLAG}'` -- use `{old}=`"
            )
            yield self.report(spelling.module, spelling.span, message, Fix(FIX_KIND, spelling.module.path, spelling.span, True, (NEW_FLAG, old)))
