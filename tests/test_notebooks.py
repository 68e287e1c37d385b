"""Notebooks as ruff checks them: found by default, code cells joined (IPython magics and
cell magics left out, markdown ignored), findings and the places they name reported as
``nb.ipynb:cell N:line:col``, ``# noqa`` honoured in a cell; ``--fix`` writes back into the
cells and keeps every other byte; a notebook of another language is skipped and broken JSON
is an error."""

from __future__ import annotations

import json

from ecosystem_support import run
from seedlint.notebook_writer import _source_spans, written_back
from seedlint.notebooks import read_notebook

CELLS = [
    ("markdown", ["# Augmented point clouds\n", "Training notebook."]),
    ("code", ["%matplotlib inline\n", "!pip install -q trimesh\n", "import numpy as np\n", "import torch\n",
              "from torch.utils.data import DataLoader, Dataset"]),
    ("code", ["class Clouds(Dataset):\n", "    def __init__(self, n):\n",
              "        self.points = [np.zeros((1024, 3), dtype=np.float32) for _ in range(n)]\n", "\n",
              "    def __len__(self):\n", "        return len(self.points)\n", "\n",
              "    def __getitem__(self, index):\n",
              "        jitter = np.random.normal(0, 0.01, (1024, 3)).astype(np.float32)\n",
              "        return torch.from_numpy(self.points[index] + jitter)"]),
    ("code", ["%%time\n", "print('timing')"]),
    ("code", ["loader = DataLoader(Clouds(512), batch_size=32, shuffle=True, num_workers=4)\n",
              "for epoch in range(10):\n", "    for batch in loader:\n", "        pass"]),
]


def notebook(cells=CELLS, language="python") -> str:
    document = {
        "cells": [
            {"cell_type": kind, "metadata": {}, "source": source, **({"outputs": [], "execution_count": None} if kind == "code" else {})}
            for kind, source in cells
        ],
        "metadata": {"kernelspec": {"name": "k", "language": language, "display_name": "K"}, "language_info": {"name": language}},
        "nbformat": 4,
        "nbformat_minor": 5,
    }
    return json.dumps(document, indent=1) + "\n"


def project(tmp_path, text=None):
    root = tmp_path / "proj"
    root.mkdir()
    (root / "requirements.txt").write_text("torch==1.8.1\nnumpy\n")
    (root / "train.ipynb").write_text(text if text is not None else notebook())
    return root


def test_a_notebook_is_checked_and_reported_by_cell(tmp_path):
    root = project(tmp_path)
    text = run("seedlint", "--no-cache", ".", cwd=root)
    assert text.returncode == 1
    spawn, line = [l for l in text.stdout.splitlines() if ": SDL" in l]
    assert line.startswith("train.ipynb:cell 5:1:10: SDL001 ") and "train.ipynb:cell 3:9" in line
    assert spawn.startswith("train.ipynb:cell 3:1:1: SDL012 warning: `Clouds` (the dataset's class) is defined in this notebook")
    document = json.loads(run("seedlint", "--no-cache", "--format", "json", ".", cwd=root).stdout)
    _, diagnostic = document["diagnostics"]
    assert (diagnostic["cell"], diagnostic["line"], diagnostic["column"], diagnostic["fixable"]) == (5, 1, 10, False)
    assert [(r["cell"], r["line"]) for r in diagnostic["related"]] == [(3, 9), (5, 1)]


def test_fix_leaves_a_notebook_that_may_spawn_as_it_is(tmp_path):
    """SDL001's fix would define `seed_worker` in the notebook, which workers started by spawn
    (the default on macOS and Windows) cannot import: no fix is offered there."""
    root = project(tmp_path)
    before = (root / "train.ipynb").read_bytes()
    fixed = run("seedlint", "--no-cache", "--fix", ".", cwd=root)
    assert fixed.returncode == 1 and "train.ipynb:cell 5:1:10: SDL001" in fixed.stdout
    assert (root / "train.ipynb").read_bytes() == before


def linux_only_project(tmp_path, text=None):
    """The notebook of a project that installs only in a Linux container: its workers fork."""
    root = tmp_path / "proj"
    root.mkdir()
    (root / "Dockerfile").write_text("FROM python:3.8-slim\nRUN pip install torch==1.8.1 numpy\n")
    (root / "train.ipynb").write_text(text if text is not None else notebook())
    return root


def with_outputs() -> str:
    """The notebook as Jupyter leaves it: outputs, execution counts, metadata, non-ASCII text."""
    document = json.loads(notebook())
    document["cells"][0]["source"].append("Données augmentées — 3 canaux")
    document["cells"][4]["outputs"] = [{"output_type": "stream", "name": "stdout", "text": ["epoch 0\n", "epoch 1\n"]}]
    document["cells"][4]["execution_count"] = 7
    document["cells"][2]["metadata"] = {"collapsed": True, "tags": ["data"]}
    return json.dumps(document, indent=1, ensure_ascii=False) + "\n"


def _outside_sources(text: str) -> list:
    spans = _source_spans(text)
    pieces, position = [], 0
    for start, end in spans:
        pieces.append(text[position:start])
        position = end
    return pieces + [text[position:]]


def test_fix_writes_back_into_the_cells_and_keeps_every_other_byte(tmp_path):
    root = linux_only_project(tmp_path, with_outputs())
    before = (root / "train.ipynb").read_text(encoding="utf-8")
    diff = run("seedlint", "--no-cache", "--diff", ".", cwd=root)
    assert diff.returncode == 1 and '+    "def seed_worker(worker_id):\\n",' in diff.stdout
    assert "Would fix 1 problem" in diff.stderr
    fixed = run("seedlint", "--no-cache", "--fix", ".", cwd=root)
    assert fixed.returncode == 0 and "Fixed 1 problem." in fixed.stdout, fixed.stdout + fixed.stderr
    after = (root / "train.ipynb").read_text(encoding="utf-8")
    assert _outside_sources(after) == _outside_sources(before)  # outputs, metadata, layout: byte for byte
    cells = json.loads(after)["cells"]
    assert cells[1]["source"][:2] == ["%matplotlib inline\n", "!pip install -q trimesh\n"]
    assert "def seed_worker(worker_id):\n" in cells[1]["source"]
    assert cells[3]["source"] == ["%%time\n", "print('timing')"]
    assert "worker_init_fn=seed_worker" in "".join(cells[4]["source"])
    compile(read_notebook(after).text, "train.ipynb", "exec")
    again = run("seedlint", "--no-cache", "--fix", ".", cwd=root)
    assert again.returncode == 0 and (root / "train.ipynb").read_text(encoding="utf-8") == after


def test_an_edit_across_two_cells_is_not_written_back():
    original = notebook()
    cells = read_notebook(original)
    lines = cells.text.split("\n")
    joined_end = cells.starts[2] - 2  # the blank line between the 2nd and 3rd code cells
    edited = lines[:joined_end - 1] + ["x = 1"] + lines[joined_end + 1:]
    assert written_back(original, cells, "\n".join(edited)) is None
    assert written_back(original, cells, cells.text) == original


def test_noqa_in_a_cell(tmp_path):
    cells = list(CELLS)
    kind, source = cells[4]
    cells[4] = (kind, [source[0].rstrip("\n") + "  # noqa: SDL001\n"] + source[1:])
    kind, source = cells[2]
    cells[2] = (kind, [source[0].rstrip("\n") + "  # noqa: SDL012\n"] + source[1:])
    root = project(tmp_path, notebook(cells))
    assert "All checks passed!" in run("seedlint", "--no-cache", ".", cwd=root).stdout


def test_other_languages_are_skipped_and_broken_json_is_an_error(tmp_path):
    root = project(tmp_path, notebook(language="R"))
    (root / "plot.py").write_text("from torch.utils.data import DataLoader\n")
    assert run("seedlint", "--no-cache", ".", cwd=root).returncode == 0
    (root / "train.ipynb").write_text('{"cells": [ DataLoader')
    broken = run("seedlint", "--no-cache", ".", cwd=root)
    assert broken.returncode == 2 and "train.ipynb: not a notebook" in broken.stderr


def test_shell_continuations_and_large_outputs(tmp_path):
    """A shell escape continued with backslashes is not Python either, and a notebook whose
    outputs are megabytes is checked by the size of its code."""
    cells = list(CELLS)
    cells.insert(2, ("code", ["!nsys profile \\\n", "    --trace nvtx,cuda \\\n", "    --delay 5 \\\n", "    python train.py"]))
    text = json.loads(notebook(cells))
    text["cells"][2]["outputs"] = [{"output_type": "stream", "name": "stdout", "text": ["x" * 1000 + "\n"] * 3000}]
    root = project(tmp_path, json.dumps(text))
    assert (root / "train.ipynb").stat().st_size > 2 * 1024 * 1024
    completed = run("seedlint", "--no-cache", ".", cwd=root)
    assert completed.returncode == 1 and completed.stderr == ""
    assert "train.ipynb:cell 6:1:10: SDL001" in completed.stdout
