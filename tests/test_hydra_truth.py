"""Truth for the configurations seedlint reads: for every Hydra fixture, what Hydra itself
composes from the same files (its ``compose`` API, interpolations resolved), and for every
``OmegaConf.load`` fixture what OmegaConf loads, is exactly what the value flow reads."""

from __future__ import annotations

import pytest

from fixture_cases import ROOT
from seedlint.analysis.config_files import composed, loaded_file
from seedlint.facts.model import Const, DictDisplay, Seq

hydra = pytest.importorskip("hydra", reason="hydra-core is not installed (pip install -e .[test])")
from hydra import compose, initialize_config_dir  # noqa: E402
from omegaconf import OmegaConf  # noqa: E402

CASES = [
    "SDL008/hydra_lightning_template",
    "SDL008/clean_hydra_one_device_default",
    "SDL101/clean_hydra_trainer_injection_off",
    "SDL103/hydra_trainer_removed_keyword",
]


def as_python(value):
    if isinstance(value, Const):
        return value.value
    if isinstance(value, DictDisplay):
        return {key.value: as_python(item) for key, item in zip(value.keys, value.values)}
    if isinstance(value, Seq):
        return [as_python(item) for item in value.items]
    return "<unknown>"


@pytest.mark.parametrize("overrides", [[], ["data.workers=0"], ["+data.pin_memory=true", "epochs=2"], ["~data.noise"]])
def test_compose_overrides_match_hydra(overrides):
    """``compose(config_name=..., overrides=[...])`` with value overrides, as Hydra applies them."""
    directory = ROOT / "SDL001/hydra_compose_api_config/conf"
    with initialize_config_dir(config_dir=str(directory), version_base="1.3"):
        expected = OmegaConf.to_container(compose(config_name="train", overrides=overrides), resolve=True)
    assert as_python(composed(str(directory), "train", tuple(overrides))) == expected


def test_a_group_override_is_another_program():
    directory = ROOT / "SDL001/hydra_compose_api_config/conf"
    assert as_python(composed(str(directory), "train", ("data=spectra",))) == "<unknown>"


@pytest.mark.parametrize("case", CASES)
def test_composition_matches_hydra(case):
    directory = ROOT / case / "configs"
    with initialize_config_dir(config_dir=str(directory), version_base="1.3"):
        expected = OmegaConf.to_container(compose(config_name="train"), resolve=True)
    assert as_python(composed(str(directory), "train")) == expected


TREE = {
    "train.yaml": """\
        defaults:
          - _self_
          - data: images
          - trainer: default
          - optim@model.optimizer: adam
          - experiment: null
          - globals

        seed: 1
        model:
          width: 64
        trainer:
          max_epochs: 3
        """,
    "data/images.yaml": """\
        defaults:
          - base
          - augment: [flips, crops]
        num_workers: ${trainer.devices}
        root: ${paths.root}/images
        """,
    "data/base.yaml": "batch_size: 16\nnum_workers: 2\npin_memory: true\n",
    "data/augment/flips.yaml": "p_flip: 0.5\n",
    "data/augment/crops.yaml": "size: 224\np_flip: 0.25\n",
    "trainer/default.yaml": "# @package trainer\n_target_: lightning.pytorch.Trainer\ndevices: 2\nmax_epochs: 10\n",
    "optim/adam.yaml": "_target_: torch.optim.Adam\nlr: 0.001\n",
    "paths/default.yaml": "root: /data\n",
    "globals.yaml": "# @package _global_\npaths:\n  root: /data\n",
}


def test_composition_matches_hydra_on_nested_defaults(tmp_path):
    """Defaults inside group files, ``_self_`` first, a package override, a list of options,
    a null option, ``# @package`` headers and interpolations between groups."""
    import textwrap

    for relative, text in TREE.items():
        path = tmp_path / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))
    with initialize_config_dir(config_dir=str(tmp_path), version_base="1.3"):
        expected = OmegaConf.to_container(compose(config_name="train"), resolve=False)
    found = as_python(composed(str(tmp_path), "train"))
    assert found["data"]["num_workers"] == 2 and found["data"]["root"] == "<unknown>"  # "${paths.root}/images": text around it
    expected["data"]["num_workers"] = 2  # interpolations: seedlint resolves them, Hydra keeps them unresolved here
    expected["data"]["root"] = "<unknown>"
    assert found == expected


@pytest.mark.parametrize("case", ["SDL001/clean_omegaconf_loader_without_workers", "SDL001/omegaconf_loader_with_workers"])
def test_loaded_file_matches_omegaconf(case):
    path = ROOT / case / "configs" / "train.yaml"
    expected = OmegaConf.to_container(OmegaConf.load(path), resolve=True)
    assert as_python(loaded_file(str(path))) == expected
