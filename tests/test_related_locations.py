"""Every rule that names other places in its message gives them as related locations: the
loader, the dataset's construction, the draw, the epoch loop, the start method, the
command that starts the workers. Checked on one must-flag fixture per rule, as JSON."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"

CASES = {
    "SDL004/basic_initial_seed.py": ["the DataLoader whose workers run this seeding"],
    "SDL010/curriculum_attribute.py": ["the DataLoader with persistent_workers=True", "the dataset is built here"],
    "SDL101/batch_sampler_picked_by_split_name": ["the DataLoader it is passed to as batch_sampler", "the Trainer that runs that loader"],
    "SDL104/devices_from_the_machine": ["the BatchSampler is built here", "the Trainer that runs this loader"],
    "SDL110/batch_size_none.py": ["the batch sampler is built here"],
    "SDL001/workers_passed_by_documented_script": ["draws from NumPy's global RNG", "runs the program with `--num_workers 8`"],
    "SDL005/lines_generator.py": ["yields every item in every worker"],
    "SDL006/lambda_collate.py": ["the DataLoader whose workers receive it as its collate_fn"],
    "SDL007/manual_seed_constant.py": ["the epoch loop it runs in", "a DataLoader the loop reads"],
    "SDL008/ddp_worker_seed_without_rank.py": ["a DataLoader of each rank whose workers draw"],
    "SDL008/lightning_ddp_trainer.py": ["starts several ranks"],
    "SDL011/albumentations_undeclared.py": ["worker code runs it here", "the DataLoader whose workers copy it"],
    "SDL012/notebook_dataset_and_collate": ["the DataLoader whose workers must import it"],
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_the_places_a_message_names_are_related_locations(case, tmp_path):
    source = FIXTURES / case
    project = tmp_path / "project"
    if source.is_dir():
        shutil.copytree(source, project, ignore=shutil.ignore_patterns("*.fixed.py", "expected"))
    else:
        project.mkdir()
        shutil.copy(source, project / source.name)
    run = subprocess.run([sys.executable, "-m", "seedlint", "--no-cache", "--output-format", "json", "."], cwd=project,
                         capture_output=True, text=True, check=False, env={**os.environ, "PYTHONHASHSEED": "0"})
    diagnostics = [d for d in json.loads(run.stdout)["diagnostics"] if d["code"] == case.split("/")[0]]
    assert diagnostics, run.stderr
    notes = [related["note"] for d in diagnostics for related in d["related"]]
    for expected in CASES[case]:
        assert any(expected in note for note in notes), (expected, notes)
    for d in diagnostics:
        for related in d["related"]:
            assert related["line"] >= 1 and (project / related["path"]).exists(), related


def test_sdl008_points_at_the_loaders_whose_workers_draw_only(tmp_path):
    # The evaluation loader of the same ranks draws nothing: it is no evidence.
    project = tmp_path / "project"
    shutil.copytree(FIXTURES / "SDL008" / "seed_helper_rebinding_args_with_loaders_from_a_table", project,
                    ignore=shutil.ignore_patterns("expected"))
    run = subprocess.run([sys.executable, "-m", "seedlint", "--no-cache", "--output-format", "json", "."], cwd=project,
                         capture_output=True, text=True, check=False)
    (diagnostic,) = json.loads(run.stdout)["diagnostics"]
    drawing = [(r["path"], r["line"]) for r in diagnostic["related"] if r["note"] == "a DataLoader of each rank whose workers draw"]
    assert drawing == [("data/captions.py", 23)]
