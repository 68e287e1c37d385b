"""The same project gives the same report, word for word, under any hash seed.

Which dataset and which draw a message cites is a choice among several candidates (a
registry holds several classes, each drawing somewhere else); the choice must not follow
the iteration order of a set, which changes with ``PYTHONHASHSEED``.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

REGISTRY = '''
"""Augmented datasets, registered by name."""

import random

import numpy as np
from torch.utils.data import Dataset

DATASETS = {}


def register(name):
    def add(cls):
        DATASETS[name] = cls
        return cls
    return add


class Base(Dataset):
    def __len__(self):
        return 100

    def __getitem__(self, index):
        return self.augment(index)


@register("flip")
class Flip(Base):
    def augment(self, index):
        return index if np.random.rand() < 0.5 else -index


@register("shift")
class Shift(Base):
    def augment(self, index):
        return index + np.random.randint(0, 4)


@register("scale")
class Scale(Base):
    def augment(self, index):
        return index * np.random.uniform(0.5, 2.0)


@register("noise")
class Noise(Base):
    def augment(self, index):
        return index + random.gauss(0, 1) + np.random.normal()
'''

TRAIN = '''
import sys

from torch.utils.data import DataLoader

from data import DATASETS


def loader(name, workers):
    return DataLoader(DATASETS[name](), batch_size=4, num_workers=workers)


if __name__ == "__main__":
    for batch in loader(sys.argv[1], int(sys.argv[2])):
        print(batch)
'''


def _report(project: Path, seed: str) -> str:
    environment = dict(os.environ, PYTHONHASHSEED=seed)
    completed = subprocess.run(
        [sys.executable, "-m", "seedlint", "--no-cache", "--format", "json", "."],
        cwd=project, env=environment, capture_output=True, text=True, timeout=300,
    )
    assert completed.returncode == 1, completed.stderr
    return completed.stdout


def test_report_does_not_depend_on_the_hash_seed(tmp_path):
    (tmp_path / "data.py").write_text(textwrap.dedent(REGISTRY).lstrip())
    (tmp_path / "train.py").write_text(textwrap.dedent(TRAIN).lstrip())
    reports = {seed: _report(tmp_path, seed) for seed in ("0", "1", "2", "3", "4", "5")}
    assert '"SDL001"' in reports["0"]
    assert len(set(reports.values())) == 1, reports


def test_an_expression_built_for_one_question_never_reads_the_answer_to_another(tmp_path):
    """The value flow remembers answers by the expression's identity. An expression built
    for one question (a receiver split off a call) and then dropped must not lend its
    identity, and so its answer, to the next one built: which answers leaked depended on
    where objects landed in memory, and made findings come and go from run to run."""
    import libcst as cst

    from seedlint.analysis.index import ProjectIndex
    from seedlint.config import Settings
    from seedlint.facts.collector import collect_facts
    from seedlint.facts.model import Name, Span
    from seedlint.rules import Project

    path = tmp_path / "train.py"
    text = "import numpy as np\nimport random\n"
    path.write_text(text)
    module = collect_facts(cst.parse_module(text), "train", str(path), False, text)
    index = ProjectIndex(lambda *args: None, str(tmp_path))
    index.add(module, str(tmp_path))
    flow = Project(index, [module], Settings()).flow
    frame = flow.module_frame(module)
    span = Span(1, 0, 1, 2)
    answers = [flow.eval(Name(name, span, name, ""), frame) for name in ("numpy", "random", "numpy.random", "torch")]
    assert [sorted(v.qualified for v in answer) for answer in answers] == [["numpy"], ["random"], ["numpy.random"], ["torch"]]
