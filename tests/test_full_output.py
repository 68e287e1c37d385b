"""Text output as ruff lays it out: ``concise`` is one line per finding, ``full`` adds a
frame of the source with the span underlined, the places the finding rests on, the fix and
the whole explanation under a headline of about 100 characters. ``text`` (the default) is
``full`` on a terminal and ``concise`` when piped."""

from __future__ import annotations

import os
import pty
import subprocess
import sys

from ecosystem_support import TRAIN_DIAGNOSTIC, read_terminal, run, write_project
from seedlint.report.headline import headline
from test_notebooks import project as notebook_project

FULL = """\
train.py:8:12: SDL001 [*] DataLoader workers draw from NumPy's global RNG but no worker_init_fn seeds it
   |
 6 |
 7 | def make_loader():
 8 |     return DataLoader(NoisyDataset(), batch_size=8, num_workers=2)
   |            ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^ SDL001
   |
   = note: data.py:11: `np.random.rand` draws from NumPy's global RNG in worker code
   = note: train.py:8: `NoisyDataset` is built here
   = help: Pass a `worker_init_fn` that seeds NumPy and `random` from each worker's torch seed
   = why: DataLoader workers draw from NumPy's global RNG (`np.random.rand` in
"""


def test_full_shows_frame_evidence_and_fix(tmp_path):
    root = write_project(tmp_path / "proj")
    shown = run("seedlint", "--no-cache", "--output-format", "full", ".", cwd=root)
    assert shown.returncode == 1
    assert shown.stdout.startswith(FULL), shown.stdout
    assert shown.stdout.rstrip().endswith("Found 1 problem. 1 fixable with `seedlint --fix`.")


def test_concise_is_one_line_and_the_piped_default(tmp_path):
    root = write_project(tmp_path / "proj")
    concise = run("seedlint", "--no-cache", "--output-format", "concise", ".", cwd=root)
    piped = run("seedlint", "--no-cache", ".", cwd=root)
    assert concise.stdout == piped.stdout
    (line, _blank_or_summary, *_) = concise.stdout.splitlines()
    assert line.startswith(TRAIN_DIAGNOSTIC) and "on torch < 1.9" in line


def test_a_terminal_gets_full(tmp_path):
    root = write_project(tmp_path / "proj")
    leader, follower = pty.openpty()
    environment = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "FORCE_COLOR")}
    process = subprocess.Popen([sys.executable, "-m", "seedlint", "--no-cache", "."], cwd=root,
                               env=dict(environment, NO_COLOR="1"), stdout=follower, stderr=subprocess.DEVNULL)
    process.wait(timeout=300)
    os.close(follower)
    shown = read_terminal(leader)
    assert process.returncode == 1
    assert shown.replace(b"\r\n", b"\n").decode().startswith(FULL)


def test_full_frames_a_notebook_cell(tmp_path):
    root = notebook_project(tmp_path)
    shown = run("seedlint", "--no-cache", "--output-format", "full", "--select", "SDL001", ".", cwd=root).stdout
    assert shown.startswith("train.ipynb:cell 5:1:10: SDL001 DataLoader workers draw from NumPy's global RNG but no")
    assert "1 | loader = DataLoader(Clouds(512), batch_size=32, shuffle=True, num_workers=4)" in shown
    assert "  |          ^^^^^^^^^^^" in shown
    assert "= note: train.ipynb:cell 3:9: `np.random.normal`" in shown
    assert "= help:" not in shown  # a notebook is not fixed


def test_statistics_and_diff_accept_both_layouts(tmp_path):
    root = write_project(tmp_path / "proj")
    for layout in ("concise", "full"):
        stats = run("seedlint", "--no-cache", "--statistics", "--output-format", layout, ".", cwd=root)
        assert stats.stdout.startswith("1\tSDL001\t[*]"), stats.stdout
        diff = run("seedlint", "--no-cache", "--diff", "--output-format", layout, ".", cwd=root)
        assert diff.returncode == 1 and "+def seed_worker(worker_id):" in diff.stdout


def test_headline_drops_evidence_and_stays_short():
    assert headline(
        "DataLoader workers draw from NumPy's global RNG (`np.random.rand` in `A.__getitem__`, a.py:3) but no "
        "worker_init_fn seeds it: on torch < 1.9 every worker starts from the same copy"
    ) == "DataLoader workers draw from NumPy's global RNG but no worker_init_fn seeds it"
    assert headline("`f(a: int)` is a lambda (see `x`), which cannot be pickled") == "`f(a: int)` is a lambda, which cannot be pickled"
    long = "the DistributedSampler `" + "s" * 150 + "` is iterated in every epoch"
    short = headline(long)
    assert len(short) <= 120 and short.endswith("…`") and short.count("`") % 2 == 0
