"""SDL103 replace-sampler-ddp-removed."""

from __future__ import annotations

import os
from typing import Iterable, Tuple

from seedlint.config import Settings
from seedlint.diagnostics import Diagnostic, Fix
from seedlint.analysis.lightning import NEW_FLAG, OLD_ENV_VAR, RENAMED_IN, FlagSpelling, renamed
from seedlint.analysis.config_files import config_where
from seedlint.rules.base import Project, Rule
from seedlint.span import Span

FIX_KIND = "rename-lightning-flag"


class ReplaceSamplerDdpRemoved(Rule):
    """
    ## What it does
    Finds `Trainer(replace_sampler_ddp=...)`, `Fabric.setup_dataloaders(replace_sampler=...)`
    (also spelled through `**dict(...)` or `**{...}`) and code that sets the
    `PL_TRAINER_REPLACE_SAMPLER_DDP` environment variable (`os.environ[...] = ...`) in a
    project that may run Lightning >= 2.0 (it declares such a version, or none). Other
    strings that merely mention the name are left alone. A `replace_sampler_ddp:` key in the
    configuration a Trainer is built from (`hydra.utils.instantiate(cfg.trainer)`, a
    LightningCLI config file) is reported at the call that builds it, citing the file and line.

    ## Why is this bad?
    Lightning 2.0 renamed the flag to `use_distributed_sampler` with no deprecation overlap.
    The old keyword is a `TypeError: Trainer.__init__() got an unexpected keyword argument
    'replace_sampler_ddp'` at start-up; the old environment variable is silently ignored, so a
    project that meant to turn sampler injection off gets a `DistributedSampler` injected.

    ## Example
    ```python
    trainer = L.Trainer(strategy="ddp", replace_sampler_ddp=False)
    ```

    ## Use instead
    ```python
    trainer = L.Trainer(strategy="ddp", use_distributed_sampler=False)
    ```

    ## Fix safety
    Renames the keyword (a configuration file's key is left for you to rename). Safe when the project declares Lightning >= 2.0; when it declares no
    Lightning version the rename is applied only with `--unsafe-fixes`, because on Lightning
    1.x the new name is the one that fails (SDL105). Renaming the environment variable is
    always unsafe.
    """

    code = "SDL103"
    name = "replace-sampler-ddp-removed"
    summary = "`replace_sampler_ddp` was renamed `use_distributed_sampler` in Lightning 2.0"
    fix_safety = "safe"

    def triggers(self, settings: Settings) -> Tuple[bytes, ...]:
        # A Trainer given the key through `**{...}`, a Hydra `instantiate` or LightningCLI reading
        # it from a YAML file spells no keyword: the file that builds the Trainer starts it.
        return (b"replace_sampler", b"PL_TRAINER_REPLACE_SAMPLER_DDP", b"Trainer", b"LightningCLI", b"instantiate")

    def check(self, project: Project) -> Iterable[Diagnostic]:
        for spelling in project.lightning.flag_spellings:
            if spelling.spelled == NEW_FLAG:
                continue
            version = project.settings_for(spelling.module.path).lightning_version
            if not version.may_be_at_least(RENAMED_IN):
                continue
            safe = version.declared and not version.may_be_below(RENAMED_IN)
            new = renamed(spelling)
            if spelling.spelled == OLD_ENV_VAR:
                message = (
                    f"`{OLD_ENV_VAR}` is ignored by Lightning >= 2.0 (the flag was renamed "
                    f"`use_distributed_sampler`): sampler injection stays on -- use `{new}`"
                )
            else:
                callee = "Trainer.__init__" if spelling.owner in ("Trainer", "LightningCLI") else spelling.owner
                message = (
                    f"`{spelling.spelled}=` was renamed `{new}=` in Lightning 2.0: "
                    f"`TypeError: {callee}() got an unexpected keyword argument '{spelling.spelled}'` -- use `{new}=`"
                )
            if not version.declared:
                message += " (no Lightning version declared; the rename is an unsafe fix)"
            if spelling.spelled == OLD_ENV_VAR:
                safe = False  # a string: renaming it changes what the program sets, decided by the user
            if spelling.place is not None:
                yield configured_flag(self, project, spelling, "renamed `use_distributed_sampler` in Lightning 2.0", new)
                continue
            fix = Fix(FIX_KIND, spelling.module.path, spelling.span, safe, (spelling.spelled, new))
            yield self.report(spelling.module, spelling.span, message, fix)


def configured_flag(rule: Rule, project: Project, spelling: FlagSpelling, why: str, rename_to: str) -> Diagnostic:
    """The flag as a configuration file's key: reported at the call that builds the Trainer,
    citing the key. ``--fix`` does not edit configuration files."""
    if spelling.owner == "LightningCLI":
        failure = "LightningCLI rejects the configuration at start-up: the Trainer has no such parameter"
    else:
        failure = f"`TypeError: Trainer.__init__() got an unexpected keyword argument '{spelling.spelled}'`"
    message = (
        f"the configuration this Trainer is built from sets `{spelling.spelled}` "
        f"({config_where(spelling.place, project.settings.project_root)}), {why}: {failure} -- rename the key `{rename_to}`"
    )
    path, line = spelling.place
    diagnostic = rule.report(spelling.module, spelling.span, message,
                             evidence=[(path, Span(line, 0, line, 0), f"`{spelling.spelled}` is set here")])
    diagnostic.related.add(os.path.abspath(path))
    return diagnostic
