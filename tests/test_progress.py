"""The progress line (as pytest and ruff users expect): on a terminal, once a run passes
``SEEDLINT_PROGRESS_AFTER`` seconds, one line on stderr says where the run is and is erased at
the end; piped, stderr stays empty."""

from __future__ import annotations

import os
import pty
import subprocess
import sys

from ecosystem_support import read_terminal, run, write_project


def test_progress_on_a_terminal_and_nothing_when_piped(tmp_path):
    project = write_project(tmp_path / "proj")
    leader, follower = pty.openpty()
    env = dict(os.environ, SEEDLINT_PROGRESS_AFTER="0")
    process = subprocess.Popen(
        [sys.executable, "-m", "seedlint", "--no-cache", "."], cwd=project, env=env,
        stdout=subprocess.PIPE, stderr=follower,
    )
    out, _ = process.communicate(timeout=300)
    os.close(follower)
    shown = read_terminal(leader)
    assert process.returncode == 1 and b"SDL001" in out
    assert b"seedlint: rule SDL001 (1 of " in shown and shown.endswith(b"\r\x1b[K")
    piped = run("seedlint", "--no-cache", ".", cwd=project, env={"SEEDLINT_PROGRESS_AFTER": "0"})
    assert piped.stderr == ""
