"""Truth for the findings seedlint cites a configuration file for: the Trainer a
configuration builds fails at start-up on the key seedlint names, and starts once the key
is renamed as the message says. LightningCLI runs on its own parser (``--print_config``
parses and validates the whole configuration without building anything); a Hydra
configuration is instantiated with Hydra's own ``instantiate``."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

import pytest

from fixture_cases import ROOT
from seedlint.config import load_settings
from seedlint.engine import Engine

pytest.importorskip("lightning", reason="lightning is not installed (pip install -e .[test])")
pytest.importorskip("jsonargparse", reason="jsonargparse is not installed (pip install -e .[test])")
hydra = pytest.importorskip("hydra", reason="hydra-core is not installed (pip install -e .[test])")
from hydra import compose, initialize_config_dir  # noqa: E402
from hydra.errors import InstantiationException  # noqa: E402
from hydra.utils import instantiate  # noqa: E402


def findings(project):
    result = Engine(load_settings([str(project)])).check([str(project)])
    return [(os.path.relpath(d.path, project), d.code, d.message) for d in result.diagnostics]


def print_config(project, config):
    """``python main.py fit --config CONFIG --print_config``: exit code and stderr."""
    env = dict(os.environ, PYTHONPATH=str(project))
    run = subprocess.run(
        [sys.executable, "main.py", "fit", "--config", config, "--print_config"],
        cwd=project, env=env, capture_output=True, text=True, timeout=300,
    )
    return run.returncode, run.stderr


def test_lightning_cli_rejects_the_removed_key_it_is_cited_for(tmp_path):
    project = tmp_path / "cli"
    shutil.copytree(ROOT / "SDL103/lightning_cli_config_removed_key", project)
    [(path, code, message)] = findings(project)
    assert (path, code) == ("main.py", "SDL103")
    assert "configs/ddp.yaml:7" in message and "LightningCLI rejects the configuration" in message
    status, stderr = print_config(project, "configs/ddp.yaml")
    assert status != 0 and "replace_sampler_ddp" in stderr
    config = project / "configs/ddp.yaml"
    config.write_text(config.read_text().replace("replace_sampler_ddp:", "use_distributed_sampler:"))
    status, stderr = print_config(project, "configs/ddp.yaml")
    assert status == 0, stderr
    assert findings(project) == []


def test_lightning_cli_accepts_the_configuration_seedlint_passes(tmp_path):
    project = tmp_path / "cli"
    shutil.copytree(ROOT / "SDL101/clean_lightning_cli_injection_off", project)
    assert findings(project) == []
    status, stderr = print_config(project, "configs/ddp.yaml")
    assert status == 0, stderr


def test_hydra_instantiated_trainer_fails_on_the_cited_key(tmp_path):
    project = tmp_path / "hydra"
    shutil.copytree(ROOT / "SDL103/hydra_config_removed_key", project)
    [(path, code, message)] = findings(project)
    assert (path, code) == ("train.py", "SDL103") and "configs/trainer/ddp.yaml:7" in message
    [diagnostic] = Engine(load_settings([str(project)])).check([str(project)]).diagnostics
    [key] = diagnostic.evidence
    assert (key.path, key.span.line, key.note) == (str(project / "configs/trainer/ddp.yaml"), 7, "`replace_sampler_ddp` is set here")
    on_cpu = ["trainer.accelerator=cpu", "trainer.devices=1", "trainer.strategy=auto"]
    with initialize_config_dir(config_dir=str(project / "configs"), version_base="1.3"):
        config = compose(config_name="train", overrides=on_cpu)
    with pytest.raises(InstantiationException, match="unexpected keyword argument 'replace_sampler_ddp'"):
        instantiate(config.trainer)
    renamed = project / "configs/trainer/ddp.yaml"
    renamed.write_text(renamed.read_text().replace("replace_sampler_ddp:", "use_distributed_sampler:"))
    with initialize_config_dir(config_dir=str(project / "configs"), version_base="1.3"):
        config = compose(config_name="train", overrides=on_cpu)
    trainer = instantiate(config.trainer, logger=False, enable_checkpointing=False)
    assert trainer.max_epochs == 50
    assert findings(project) == []
