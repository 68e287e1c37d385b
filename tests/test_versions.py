"""The version model: declarations read with ``packaging``, bounds other packages and the
code imply, contradictions reported, and ``--show-settings`` saying what set each bound."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from seedlint.cli import main
from seedlint.config import resolve_root
from seedlint.versions import range_from_specifiers, range_of
from seedlint.versions.declarations import folder_declarations


def write(root: Path, files: dict) -> Path:
    for relative, text in files.items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))
    return root


def versions(root: Path):
    return resolve_root(str(root))


def test_two_pins_of_two_lightning_packages_stay_two_ranges(tmp_path):
    write(tmp_path, {"requirements.txt": "pytorch-lightning==1.3.5\nlightning==2.0.0\n", "setup.cfg": ""})
    resolution = versions(tmp_path)
    assert resolution.get("pytorch-lightning").describe() == "==1.3.5"
    assert resolution.get("lightning").describe() == "==2.0.0"
    assert resolution.lightning(["pytorch_lightning"]).describe() == "==1.3.5"
    assert resolution.lightning(["lightning"]).describe() == "==2.0.0"
    assert resolution.lightning([]).describe() == ">=1.3.5,<=2.0.0"
    assert not resolution.conflicts


def test_an_empty_intersection_is_a_conflict_not_a_range_below(tmp_path):
    # The dev file adds to requirements.txt (`-r`), so both ranges must hold at once.
    write(tmp_path, {"requirements.txt": "torch>=2.0\n", "requirements-dev.txt": "-r requirements.txt\ntorch<1.9\n", "setup.cfg": ""})
    resolution = versions(tmp_path)
    torch = resolution.get("torch")
    assert not torch.declared and torch.may_be_below("1.9") and torch.may_be_at_least("2.0")
    assert len(resolution.conflicts) == 1 and "requirements" in resolution.conflicts[0]


def test_a_readme_python_no_declared_torch_installs_on_is_a_conflict(tmp_path):
    # torch>=2.6 installs on no CPython before 3.9; the README asks for 3.7.0.
    write(tmp_path, {"requirements.txt": "torch>=2.6.0\nnumpy==1.15.4\n", "README.md": "### Requirements\n- Python 3.7.0\n", "setup.cfg": ""})
    resolution = versions(tmp_path)
    assert resolution.get("torch").describe() == ">=2.6.0" and not resolution.get("torch").may_be_below("1.9")
    assert any("torch >=2.6.0 needs python>=3.9" in c and "README.md:2" in c for c in resolution.conflicts)
    write(tmp_path / "old", {"requirements.txt": "torch\n", "environment.yml": "dependencies:\n  - python=3.7\n"})
    assert versions(tmp_path / "old").get("torch").describe() == "<2.0"  # torch 2.0's Requires-Python is >=3.8.0


def test_an_unpinned_install_beside_a_stated_version_is_no_older_than_it(tmp_path):
    # "Pytorch 1.11" in the requirements list, then `conda install pytorch` without a version:
    # that install gets 1.11 or a later release, never one before 1.9.
    write(tmp_path, {"docs/installation.md": """\
        ## Installation
        * Python 3.x
        * Pytorch 1.11

        ```
        conda install pytorch cudatoolkit=10.2 -c pytorch
        pip install -r requirements.txt
        ```
        """, "requirements.txt": "numpy\n", "setup.cfg": ""})
    torch = versions(tmp_path).get("torch")
    assert not torch.may_be_below("1.9") and torch.may_be_at_least("2.0")
    assert torch.describe() == ">=1.11"
    write(tmp_path / "alone", {"INSTALL.md": "```\nconda install pytorch -c pytorch\n```\n", "setup.cfg": ""})
    assert versions(tmp_path / "alone").get("torch").may_be_below("1.9")  # nothing names a release: any
    # A Dockerfile's newer pin is another environment: it says nothing of the README's install.
    write(tmp_path / "docker", {
        "README.md": "```\nconda install pytorch torchvision cudatoolkit=9.0 -c pytorch\n```\n",
        "Dockerfile": "FROM ubuntu:20.04\nRUN pip install torch==1.10 torchvision==0.11.1\n", "setup.cfg": "",
    })
    assert versions(tmp_path / "docker").get("torch").may_be_below("1.9")


def test_requirement_files_that_pin_one_package_apart_are_variants(tmp_path):
    # A default, a Windows and an export environment: no numpy satisfies all three, so each
    # file is one way to install the project, and the export file's torch pin binds no other.
    write(tmp_path, {
        "requirements.txt": "numpy==1.23.5\ntorch\nlibrosa==0.9.1\n",
        "requirements_win.txt": "numpy\ntorch\nlibrosa==0.9.1\n",
        "requirements_onnx_export.txt": "numpy==1.23.0\ntorch==1.13.1\nonnx==1.14.0\n",
        "setup.cfg": "",
    })
    resolution = versions(tmp_path)
    assert not resolution.conflicts
    torch = resolution.get("torch")
    assert torch.may_be_below("1.9") and torch.may_be_at_least("2.0")
    assert resolution.get("numpy").may_be_at_least("2.0")
    assert resolution.get("librosa").describe() == "==0.9.1"
    assert resolution.get("onnx").describe() == "==1.14.0"


@pytest.mark.parametrize(
    "files, torch_range",
    [
        ({"requirements.txt": "lightning>=2.0\n"}, ">=1.11"),
        ({"requirements.txt": "pytorch-lightning>=1.7,<2\n"}, ">=1.9"),
        ({"requirements.txt": "torchvision>=0.15\n"}, ">=2.0"),
        ({"requirements.txt": "torchvision==0.9.1\n"}, ">=1.8,<1.9"),
        ({"requirements.txt": "torchvision>=0.4.1,<0.6\n"}, ">=1.3,<1.5"),
        ({"requirements.txt": "torchaudio==0.13.1\n"}, ">=1.13,<2.0"),
        ({"pyproject.toml": '[project]\nname = "x"\nversion = "1"\nrequires-python = ">=3.11"\n'}, ">=1.13"),
        ({"requirements.txt": "numpy==2.1.3\n"}, ">=2.3"),
        ({"requirements.txt": "scipy>=1.14\n"}, ">=1.11"),
        ({"requirements.txt": "monai>=1.2\n"}, ">=1.9"),
        ({"requirements.txt": "transformers>=4.52.1\n"}, ">=2.1"),
    ],
)
def test_bounds_implied_by_other_packages(tmp_path, files, torch_range):
    write(tmp_path, {"setup.cfg": "", **files})
    torch = versions(tmp_path).get("torch")
    assert torch.declared
    assert torch.describe().startswith(torch_range), torch.describe()


@pytest.mark.parametrize(
    "pin, python_range",
    [
        ("numpy==1.26.4\n", ">=3.9,<3.13"),
        ("numpy<1.26\n", "<3.12"),
        ("numpy==2.1.3\n", ">=3.10"),
        ("tensorflow-gpu==1.14.0\n", "<3.8"),
        ("torch==1.1.0\n", "<3.8"),
        ("torch==1.4.0\n", "<3.9"),
        ("tensorflow<2.2\n", "<3.8"),
        ("tensorflow==2.2.0\n", "any version (none declared)"),
    ],
)
def test_package_releases_bound_the_python_they_run_on(tmp_path, pin, python_range):
    write(tmp_path, {"setup.cfg": "", "requirements.txt": pin})
    python = versions(tmp_path).get("python")
    assert python.describe() == python_range, python.describe()


def test_requirements_files_follow_includes_constraints_urls_and_markers(tmp_path):
    write(tmp_path, {
        "requirements.txt": """\
            # pinned for the cluster
            -r requirements/base.txt
            -c constraints.txt
            --extra-index-url https://example.invalid/simple
            https://example.invalid/whl/cu111/torch-1.8.1%2Bcu111-cp38-cp38-linux_x86_64.whl
            tensorboard; python_version < "3.8"
            lightning >= 2.0 ; extra == "train"
            """,
        "requirements/base.txt": "numpy \\\n  >=1.20\n",
        "constraints.txt": "scipy<1.12\n",
    })
    found = {d.package: d for d in folder_declarations(str(tmp_path))}
    assert found["torch"].specifier == "==1.8.1" and found["torch"].line == 5
    assert found["numpy"].specifier == ">=1.20" and found["numpy"].file == "requirements/base.txt"
    assert found["scipy"].file == "constraints.txt"
    assert not found["tensorboard"].narrows
    assert found["lightning"].narrows and found["lightning"].specifier == ">=2.0"


def test_conda_environment_poetry_and_setup_py(tmp_path):
    write(tmp_path / "conda", {"environment.yml": """\
        name: seg
        dependencies:
          - python=3.8
          - pytorch::pytorch=1.8.1=py3.8_cuda11.1
          - torchvision
          - pip:
            - albumentations==1.3.0
        """})
    found = {d.package: d for d in folder_declarations(str(tmp_path / "conda"))}
    assert found["torch"].specifier == "==1.8.1.*" and found["python"].specifier == "==3.8.*"
    assert found["albumentations"].specifier == "==1.3.0"
    write(tmp_path / "poetry", {"pyproject.toml": """\
        [tool.poetry.dependencies]
        python = "^3.10"
        torch = "^1.8"
        pytorch-lightning = {version = "~1.6.4", optional = true}
        """})
    found = {d.package: d for d in folder_declarations(str(tmp_path / "poetry"))}
    assert range_of(found["torch"].specifier).describe() == ">=1.8,<2"
    assert range_of(found["pytorch-lightning"].specifier).describe() == ">=1.6.4,<1.7"
    assert found["python"].specifier == ">=3.10,<4"
    write(tmp_path / "setup", {
        "setup.py": """\
            from setuptools import setup

            setup(name="seg", keywords=["torch", "lightning"], install_requires=open("deps.txt").read().split(), python_requires=">=3.9")
            """,
        "deps.txt": "torch>=1.10\n",
    })
    found = {d.package: d for d in folder_declarations(str(tmp_path / "setup"))}
    assert found["torch"].file == "deps.txt" and found["python"].specifier == ">=3.9"
    assert "lightning" not in found  # a keyword list is not a requirement


def test_a_pip_pin_in_an_environment_file_replaces_the_conda_pin(tmp_path):
    """conda installs its list, then pip reinstalls what the ``pip:`` list names."""
    write(tmp_path, {"environment.yml": """\
        dependencies:
          - python=3.9
          - imagecodecs==2022.8.8
          - pip:
            - imagecodecs==2022.9.26
        """})
    resolution = versions(tmp_path)
    assert resolution.get("imagecodecs").describe() == "==2022.9.26"
    assert not resolution.conflicts


def test_several_environment_files_are_alternatives(tmp_path):
    """``environment.yml`` and ``environment_macos.yml`` are two ways to install the project: a
    package gets the union of their ranges, and different pins are no contradiction."""
    write(tmp_path, {
        "environment.yml": "dependencies:\n  - python=3.8\n  - pytorch=1.8.1\n  - numpy=1.21\n",
        "environment_macos.yml": "dependencies:\n  - python=3.10\n  - pytorch=1.13.1\n",
    })
    resolution = versions(tmp_path)
    torch = resolution.get("torch")
    assert torch.declared and torch.may_be_below("1.9") and torch.may_be_at_least("1.13")
    assert not torch.may_be_below("1.8") and not torch.may_be_at_least("1.14")
    assert resolution.get("python").describe() == ">=3.8,<3.11.dev0"
    # One file alone pins NumPy: the macOS environment installs whatever NumPy its torch pulls.
    assert not resolution.get("numpy").declared
    assert not resolution.conflicts


def test_lock_files_per_release_are_alternatives(tmp_path):
    """A folder of lock files, one per release (``requirements/2.0.1_requirements.txt``), pins
    each package once per file: different pins are alternatives (the union), not a
    contradiction; where a conda environment asks for more, it is one more route."""
    write(tmp_path, {
        "requirements/1.9.0_requirements.txt": "torch==1.8.1\nnumpy==1.21.0\nmolkit==0.2\n",
        "requirements/2.0.0_requirements.txt": "torch==2.1.0+cpu\nnumpy==1.26.4\nmolkit==0.2.1\n",
        "requirements/2.1.0_requirements.txt": "torch==2.5.1\nnumpy==1.26.4\n",
        "environment.yml": "dependencies:\n  - pip:\n    - molkit>=0.3\n",
        "setup.cfg": "",
    })
    resolution = versions(tmp_path)
    torch = resolution.get("torch")
    assert torch.declared and torch.may_be_below("1.9") and torch.may_be_at_least("2.5")
    assert not torch.may_be_below("1.8.1") and not torch.may_be_at_least("2.6")
    assert resolution.get("numpy").describe() == ">=1.21.0,<=1.26.4"
    assert resolution.get("molkit").declared and resolution.get("molkit").may_be_at_least("0.3")
    assert not resolution.conflicts


def test_optional_dependency_groups_are_alternatives(tmp_path):
    """Extras that pin torch for different accelerators are two ways to install, not one: a
    package the required dependencies name keeps their range (the project installs without
    any extra), and one only extras name gets the union of their ranges."""
    write(tmp_path / "required", {"pyproject.toml": """\
        [project]
        name = "forecast"
        dependencies = ["torch>=2.3.0", "numpy"]

        [project.optional-dependencies]
        cpu = ["torch>=2.12,<2.13"]
        gpu = ["torch>=2.11,<2.12"]
        """})
    resolution = versions(tmp_path / "required")
    assert resolution.get("torch").describe() == ">=2.3.0" and not resolution.conflicts
    write(tmp_path / "extras", {"pyproject.toml": """\
        [project]
        name = "forecast"
        dependencies = ["numpy"]

        [project.optional-dependencies]
        legacy = ["torch==1.8.1"]
        current = ["torch>=2.1"]
        """})
    torch = versions(tmp_path / "extras").get("torch")
    assert torch.declared and torch.may_be_below("1.9") and torch.may_be_at_least("2.1")
    assert not torch.may_be_below("1.8.1") and not versions(tmp_path / "extras").conflicts


def test_pip_and_conda_files_that_disagree_are_two_routes(tmp_path):
    """requirements.txt ("for pip users") and environment.yml ("for conda users") that pin a
    package so no version satisfies both are two ways to install: the union, no warning.
    Where they agree, both hold."""
    write(tmp_path, {
        "requirements.txt": "torch>=1.4.0\nvisdom>=0.1.8.8\n",
        "environment.yml": "dependencies:\n  - pytorch=1.4.0\n  - pip:\n    - visdom==0.1.8\n",
    })
    resolution = versions(tmp_path)
    assert resolution.get("torch").describe() == ">=1.4.0,<1.4.1.dev0"  # they agree: both hold
    assert resolution.get("visdom").describe() == ">=0.1.8"  # ==0.1.8 or >=0.1.8.8
    assert not resolution.conflicts


def test_readme_install_commands_fill_in_what_nothing_else_declares(tmp_path):
    write(tmp_path / "readme", {
        "requirements.txt": "numpy\nopencv-python\n",
        "README.md": """\
            ## Installation
            ```bash
            conda create -n seg python=3.10.4
            conda activate seg
            pip install -r requirements.txt
            pip install torch==1.12.1+cu113 torchvision==0.13.1+cu113 \\
                -f https://example.org/whl/torch_stable.html
            ```
            """,
    })
    resolution = versions(tmp_path / "readme")
    assert resolution.get("torch").describe() == "==1.12.1"
    assert resolution.get("python").describe() == ">=3.10.4,<3.10.5.dev0"
    assert "README.md:6" in resolution.get("torch").reasons[0]
    write(tmp_path / "cuda", {"README.md": """\
        For CUDA 10.2: `pip install torch==1.8.1`
        For CUDA 11.3:

            $ pip install torch==1.12.1
        """, "setup.cfg": ""})
    torch = versions(tmp_path / "cuda").get("torch")
    assert torch.may_be_below("1.9") and torch.may_be_at_least("1.12") and not torch.may_be_at_least("1.13")
    write(tmp_path / "spans", {"README.md": """\
        `pip install "tracker[api]"` or `pip install torch==1.8.1`
        """, "setup.cfg": ""})
    spans = versions(tmp_path / "spans")
    assert spans.get("torch").describe() == "==1.8.1"
    assert not spans.get("or").declared and not spans.get("install").declared  # words between two commands
    write(tmp_path / "colab", {"requirements.txt": "monai\n", "README.md": """\
        #### Google Colab Setup (CUDA 12.x, PyTorch 2.6)

        # Install PyTorch 2.6.0 with CUDA 12.4
        pip install torch==2.6.0 torchvision==0.21.0
        """})
    assert not versions(tmp_path / "colab").get("torch").declared  # one platform's setup, not the project's
    write(tmp_path / "declared", {"requirements.txt": "torch>=1.7\n", "README.md": "pip install torch==2.1.0\n"})
    assert versions(tmp_path / "declared").get("torch").describe() == ">=1.7"


def test_a_cog_build_is_an_environment_the_project_runs_in(tmp_path):
    write(tmp_path, {
        "requirements.txt": "timm==0.4.12\n",
        "cog.yaml": """\
            build:
              gpu: true
              python_version: "3.8"
              python_packages:
                - "torchvision==0.11.1"
                - "torch==1.10.0"
            predict: "predict.py:Predictor"
            """,
    })
    resolution = versions(tmp_path)
    assert resolution.get("torch").describe() == "==1.10.0"
    assert "cog.yaml:6" in resolution.get("torch").reasons[0]
    assert resolution.get("python").describe() == ">=3.8,<3.9.dev0"


def test_ranges_follow_pep_440():
    assert range_from_specifiers("1.9").describe() == ">=1.9,<1.10.dev0"
    assert not range_from_specifiers("1.9").may_be_below("1.9")
    assert range_from_specifiers("~=1.7.0").describe() == ">=1.7.0,<1.8.dev0"
    assert range_of("==1.8.*").may_be_below("1.9") and not range_of("==1.8.*").may_be_at_least("1.9")
    assert range_of("<=1.9").may_be_at_least("1.9") and not range_of("<1.9").may_be_at_least("1.9")
    assert range_of("!=1.8.0").describe() == "any version"
    with pytest.raises(ValueError):
        range_from_specifiers(">=one")


def run(project: Path, *args: str, monkeypatch, capsys):
    monkeypatch.chdir(project)
    status = main(["--no-cache", *args])
    out, err = capsys.readouterr()
    return status, out, err


def test_show_settings_names_the_file_line_and_api_behind_each_bound(tmp_path, monkeypatch, capsys):
    write(tmp_path, {
        "pyproject.toml": '[project]\nname = "tagger"\nversion = "1"\ndependencies = [\n  "lightning>=2.0",\n  "numpy",\n]\n',
        "train.py": "import torch\n\nmodel = torch.compile(torch.nn.Linear(2, 2))\n",
    })
    status, out, err = run(tmp_path, "--show-settings", "train.py", monkeypatch=monkeypatch, capsys=capsys)
    assert status == 0 and err == ""
    assert "  torch: >=2.0\n" in out
    assert "lower bound >=2.0: train.py:3 uses `torch.compile`" in out
    assert "  lightning: >=2.0\n    lower bound >=2.0: pyproject.toml:5 `lightning>=2.0`" in out
    status, out, err = run(tmp_path, "--show-settings", ".", monkeypatch=monkeypatch, capsys=capsys)
    assert "  torch: >=1.11\n    lower bound >=1.11: lightning >=2.0 needs torch>=1.11" in out
    status, out, err = run(tmp_path, "--show-settings", "--torch-version", "1.8", ".", monkeypatch=monkeypatch, capsys=capsys)
    assert "  torch: >=1.8,<1.9.dev0  (set by --torch-version / torch-version)" in out


@pytest.mark.parametrize("torchvision_pin", ["torchvision==0.2.2", "torchvision==0.3.0", "torchvision<0.5"])
def test_torchvision_releases_before_the_first_pinning_one_bound_no_torch_from_above(tmp_path, torchvision_pin, monkeypatch, capsys):
    # torchvision 0.2.x requires any torch and 0.3.0 torch>=1.1.0; only 0.4.0 on pin a release.
    write(tmp_path, {"setup.cfg": "", "requirements.txt": f"{torchvision_pin}\ntorch==1.2.0\n", "train.py": "import torch\n"})
    status, out, err = run(tmp_path, ".", monkeypatch=monkeypatch, capsys=capsys)
    assert status == 0
    assert "version declarations" not in err, err
    assert versions(tmp_path).get("torch").describe().startswith("==1.2.0")


def test_a_requirement_packaging_rejects_is_a_warning_and_narrows_nothing(tmp_path, monkeypatch, capsys):
    # `>=1.4.*` is no PEP 440 specifier (a wildcard goes with == and != only); pip refuses it.
    write(tmp_path, {"requirements.txt": "numpy\ntorch>=1.4.*\n", "setup.cfg": "", "train.py": "import torch\n"})
    status, out, err = run(tmp_path, ".", monkeypatch=monkeypatch, capsys=capsys)
    assert status == 0
    assert err.startswith(
        "seedlint: warning: version declarations: torch: requirements.txt:2 `torch>=1.4.*` is not a valid requirement "
        "(PEP 508/440); left out"
    )
    assert not versions(tmp_path).get("torch").declared
    status, out, err = run(tmp_path, "--show-settings", ".", monkeypatch=monkeypatch, capsys=capsys)
    assert "conflicts (left out of the ranges above):" in out and "`torch>=1.4.*` is not a valid requirement" in out


def test_contradictory_declarations_are_a_warning_naming_both(tmp_path, monkeypatch, capsys):
    write(tmp_path, {
        "requirements.txt": "lightning==2.0.0\ntorch==1.8.1\n",
        "setup.cfg": "",
        "train.py": "import torch\n",
    })
    status, out, err = run(tmp_path, ".", monkeypatch=monkeypatch, capsys=capsys)
    assert status == 0
    assert err.startswith("seedlint: warning: version declarations: torch: lightning ==2.0.0 needs torch>=1.11")
    assert "requirements.txt:2 `torch==1.8.1`" in err


def test_a_dockerfile_fills_in_what_the_packaging_files_leave_undeclared(tmp_path):
    write(tmp_path, {
        "requirements.txt": "numpy>=1.20\n",
        "Dockerfile": """\
            ARG BASE="3.8"
            FROM python:${BASE}-slim AS build
            # pinned for the cluster
            RUN apt-get update && \\
                pip install --no-cache-dir -f https://example.invalid/wheels \\
                    torch==1.8.1 "albumentations>=1.0,<1.2" numpy==1.19.5 \\
                && conda install -y -c conda-forge imgaug=0.4
            """,
    })
    found = {(d.package, d.specifier, d.file, d.line) for d in folder_declarations(str(tmp_path))}
    assert ("torch", "==1.8.1", "Dockerfile", 4) in found
    assert ("albumentations", "<1.2,>=1.0", "Dockerfile", 4) in found
    assert ("imgaug", "==0.4.*", "Dockerfile", 4) in found
    assert ("python", "==3.8.*", "Dockerfile", 2) in found
    assert not any(p == "numpy" and f == "Dockerfile" for p, _, f, _ in found), "requirements.txt declares numpy"
    resolution = versions(tmp_path)
    assert resolution.get("torch").describe() == "==1.8.1"
    assert resolution.get("numpy").describe() == ">=1.20"
    assert not resolution.conflicts


def test_the_pytorch_image_tag_gives_torch(tmp_path):
    write(tmp_path, {"Dockerfile": "FROM pytorch/pytorch:1.10.0-cuda11.3-cudnn8-devel\n", "setup.cfg": ""})
    assert versions(tmp_path).get("torch").describe() == "==1.10.0"


@pytest.mark.parametrize("tag, below_1_9", [("21.11-py3", False), ("21.03-py3", True), ("20.12-py3", True), ("24.05-py3", False)])
def test_an_ngc_image_runs_the_torch_its_release_ships(tmp_path, tag, below_1_9):
    """``nvcr.io/nvidia/pytorch:21.11-py3`` ships torch 1.11.0a0 (knowledge.ngc_images); 21.03's
    1.9.0a0 is a snapshot taken before 1.9.0, so it counts as below 1.9."""
    write(tmp_path, {"docker/Dockerfile": f"FROM nvcr.io/nvidia/pytorch:{tag}\nRUN pip install h5py\n"})
    torch = versions(tmp_path).get("torch")
    assert torch.declared and torch.may_be_below("1.9") is below_1_9
    unknown = write(tmp_path / "unknown", {"docker/Dockerfile": "FROM nvcr.io/nvidia/pytorch:19.02-py3\n"})
    assert not versions(unknown).get("torch").declared


def test_setup_py_extras_group_names_are_not_packages(tmp_path):
    write(tmp_path, {"setup.py": """\
        from setuptools import setup
        setup(name="x", install_requires=["torch>=2.0"], extras_require={"dev": ["pytest"], "all": ["timm==0.9.2"]})
        """})
    packages = {d.package for d in folder_declarations(str(tmp_path))}
    assert packages == {"torch", "pytest", "timm"}


def test_a_python_too_old_for_a_release_rules_the_release_out(tmp_path):
    write(tmp_path, {"requirements.txt": "torch==1.4.0\nalbumentations\n", "setup.cfg": ""})
    resolution = versions(tmp_path)
    assert resolution.get("python").describe() == "<3.9"
    assert resolution.get("albumentations").describe() == "<1.4.21"


def test_a_project_installed_only_through_linux_environments_is_linux_only(tmp_path):
    from seedlint.versions.model import declared_linux

    write(tmp_path, {"environment.yml": "dependencies:\n  - _libgcc_mutex=0.1=main\n  - python=3.9.7\n", "code/train.py": ""})
    assert "pins `_libgcc_mutex`" in declared_linux(str(tmp_path / "code"), str(tmp_path))
    write(tmp_path, {"requirements.txt": "torch\n"})
    declared_linux.cache_clear()
    assert declared_linux(str(tmp_path / "code"), str(tmp_path)) is None, "requirements install anywhere"


def test_a_windows_container_is_not_linux(tmp_path):
    from seedlint.versions.model import declared_linux

    write(tmp_path, {"Dockerfile": "FROM mcr.microsoft.com/windows/servercore:ltsc2022\n"})
    assert declared_linux(str(tmp_path), str(tmp_path)) is None
    write(tmp_path / "other", {"Dockerfile": "FROM python:3.11-slim\n"})
    assert "container image is Linux" in declared_linux(str(tmp_path / "other"), str(tmp_path / "other"))


def test_a_conda_environment_yaml_marks_the_project_root(tmp_path, capsys):
    """A repository whose only packaging file is ``environment.yaml`` (conda accepts both
    spellings) has its root there, and its pins set the versions ``--show-settings`` shows."""
    write(tmp_path, {
        "environment.yaml": """\
            name: sketch
            dependencies:
              - python=3.8.5
              - pytorch=1.12.1
            """,
        "train.py": "import torch\n",
    })
    main(["--show-settings", str(tmp_path)])
    shown = capsys.readouterr().out
    assert f"project root: {tmp_path}" in shown
    assert "torch: >=1.12.1" in shown


def test_a_conda_environment_named_env_yml_is_read(tmp_path):
    write(tmp_path, {
        "env.yml": "name: simclr\ndependencies:\n  - python=3.7.6\n  - pytorch=1.4.0\n",
        "requirements.txt": "# conda list --export\n_libgcc_mutex=0.1=main\n",
    })
    resolution = versions(tmp_path)
    assert resolution.get("torch").describe() == ">=1.4.0,<1.4.1.dev0"
    assert resolution.get("python").describe() == ">=3.7.6,<3.7.7.dev0"


def test_versions_a_readme_states_in_prose(tmp_path):
    write(tmp_path / "listed", {"setup.cfg": "", "README.md": """\
        # Retrieval pretraining
        A PyTorch implementation of the paper (2021). We convert PyTorch 2 models to ONNX for serving.

        ### Requirements:
        * pytorch 1.8.0
        * [timm](https://example.org/timm) 0.4.9
        * Python 3
        """})
    resolution = versions(tmp_path / "listed")
    assert resolution.get("torch").describe() == "==1.8.0" and "README.md:5" in resolution.get("torch").reasons[0]
    assert resolution.get("timm").describe() == "==0.4.9"
    assert all("README" not in reason for reason in resolution.get("python").reasons)  # "Python 3" narrows nothing
    write(tmp_path / "sentence", {"setup.cfg": "", "README.md": """\
        This code was tested with Ubuntu 18.04, Python 3.7 and PyTorch >= 1.4 (PyTorch 1.8 + CUDA 11.1 also works).
        """})
    resolution = versions(tmp_path / "sentence")
    assert resolution.get("python").describe() == ">=3.7,<3.8.dev0"
    assert resolution.get("torch").describe() == ">=1.4,<2.0"  # "1.8 + CUDA" is not "1.8+"; torch 2 needs Python 3.8
    write(tmp_path / "fenced", {"setup.cfg": "", "README.md": """\
        ## Requirements
        ```
        Python >= 3.5.5, PyTorch == 0.3.1, torchvision == 0.2.0
        ```
        ## Training
        ```
        python train.py --torch 2.1
        ```
        """})
    resolution = versions(tmp_path / "fenced")
    assert resolution.get("torch").describe() == "==0.3.1" and resolution.get("python").describe().startswith(">=3.5.5")
    write(tmp_path / "install_version", {"setup.cfg": "", "README.md": """\
        ## Requirements
        - a Python installation version 2.7
        - a PyTorch install version 0.1.8
        """})
    resolution = versions(tmp_path / "install_version")
    assert resolution.get("torch").describe() == "==0.1.8" and resolution.get("python").describe().startswith(">=2.7,<2.8")
    write(tmp_path / "listing", {"setup.cfg": "", "README.md": "This code has been tested with `Python 3.7` and `3.8`.\n"})
    assert versions(tmp_path / "listing").get("python").describe() == ">=3.7,<3.9.dev0"
    write(tmp_path / "unrelated", {"setup.cfg": "", "README.md": """\
        ## Results
        Numbers measured with PyTorch 1.8 on eight GPUs.

        ## Speed
        torch.compile gives PyTorch 2.1 a 30% speed-up.

        ## Installation
        ### Known issues
        - Some images come with torchaudio 2.8.0, which is incompatible with torch 2.6.0.
        - PyTorch 1.7 is not supported.
        """})
    assert not versions(tmp_path / "unrelated").get("torch").declared  # neither a requirements section nor "tested with"
    write(tmp_path / "typo", {"setup.cfg": "", "README.md": """\
        ## Dependencies
        1. [torch 1.81](https://example.org/pytorch)
        2. [torchvision 0.6.0](https://example.org/vision)
        """})
    resolution = versions(tmp_path / "typo")
    assert resolution.get("torch").describe() == ">=1.5,<1.6"  # no torch 1.81: torchvision's pairing alone bounds it
    write(tmp_path / "get_started", {"setup.cfg": "", "README.md": """\
        ## Get Started

        1. Install Python 3.6, PyTorch >= 1.4.0.
        2. Download the benchmarks.
        """})
    resolution = versions(tmp_path / "get_started")
    assert resolution.get("torch").describe().startswith(">=1.4.0") and "README.md:3" in resolution.get("torch").reasons[0]


def test_a_readme_statement_and_a_demo_container_are_two_environments(tmp_path):
    """The Dockerfile serves a demo on torch 2.1; the README's requirements are the training
    environment: the project runs on either."""
    write(tmp_path, {
        "Dockerfile": "FROM python:3.10-slim\nRUN pip install torch==2.1.0  # the demo server\n",
        "README.md": "## Requirements\n- PyTorch 1.8.0\n",
    })
    torch = versions(tmp_path).get("torch")
    assert torch.may_be_below("1.9") and torch.may_be_at_least("2.1")


def test_a_shell_comment_after_an_install_command_declares_nothing(tmp_path):
    write(tmp_path, {"README.md": """\
        ```bash
        conda create -n recon python=3.11 cmake=3.14.0
        conda install pytorch torchvision pytorch-cuda=12.1 -c pytorch -c nvidia  # use the correct version of cuda for your system
        ```
        """, "setup.cfg": ""})
    resolution = versions(tmp_path)
    assert set(resolution.ranges) == {"python", "cmake", "torch", "torchvision", "pytorch-cuda"}


def test_an_exported_conda_environment_named_requirements_states_its_versions(tmp_path):
    # `conda list --export > requirements.txt`, read back with `conda create --file`.
    write(tmp_path, {"requirements.txt": (
        "# This file may be used to create an environment using:\n"
        "# $ conda create --name <env> --file <this file>\n"
        "# platform: linux-64\n"
        "_libgcc_mutex=0.1=main\n"
        "openssl=1.1.1w=h7f8727e_0\n"
        "python=3.7.6=h0371630_2\n"
        "pytorch=1.4.0=py3.7_cuda10.1.243_cudnn7.6.3_0\n"
        "x264=1!152.20180806=h14c3975_0\n"
    ), "setup.cfg": ""})
    resolution = versions(tmp_path)
    assert resolution.get("torch").describe() == ">=1.4.0,<1.4.1.dev0"
    assert resolution.get("python").may_be_below("3.8") and not resolution.get("python").may_be_below("3.7")
    assert not resolution.conflicts


def test_a_saved_conda_list_states_the_versions_of_its_environment(tmp_path):
    # `conda list > requirements.txt`: name, version, build, channel; pip-installed packages
    # show `<pip>` as their build.
    write(tmp_path, {"requirements.txt": (
        "# packages in environment at /opt/conda/envs/seg:\n"
        "#\n"
        "# Name                    Version                   Build  Channel\n"
        "_libgcc_mutex             0.1                        main\n"
        "numpy                     1.26.4                    <pip>\n"
        "openssl                   1.1.1w               h7f8727e_0\n"
        "python                    3.9.12               h12debd9_0\n"
        "pytorch                   1.7.1           py3.9_cuda11.0.221_cudnn8.0.5_0    pytorch\n"
    )})
    resolution = versions(tmp_path)
    assert resolution.get("torch").describe() == "==1.7.1"
    assert resolution.get("numpy").describe() == "==1.26.4"
    assert resolution.get("python").describe() == "==3.9.12"
    assert not resolution.conflicts
