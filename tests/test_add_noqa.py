"""``--add-noqa`` (as in ruff, for adopting seedlint on an existing codebase): a directive on
each reported line, merged with the codes already there, idempotent, written atomically with
the file's newline style and mode kept; lines that cannot take a comment are said, not broken."""

from __future__ import annotations

import os
import stat

from ecosystem_support import run, write_project
from seedlint.noqa_writer import with_noqa


def test_add_noqa_silences_what_is_reported_and_a_second_run_adds_nothing(tmp_path):
    project = write_project(tmp_path / "proj")
    train = project / "train.py"
    train.write_bytes(train.read_bytes().replace(b"\n", b"\r\n"))
    os.chmod(train, 0o640)
    first = run("seedlint", "--no-cache", "--add-noqa", ".", cwd=project)
    assert first.returncode == 0 and first.stderr.strip() == "Added 1 noqa directive."
    data = train.read_bytes()
    assert b"num_workers=2)  # noqa: SDL001\r\n" in data and b"\n" not in data.replace(b"\r\n", b"")
    assert stat.S_IMODE(os.stat(train).st_mode) == 0o640
    assert "All checks passed!" in run("seedlint", "--no-cache", ".", cwd=project).stdout
    again = run("seedlint", "--no-cache", "--add-noqa", ".", cwd=project)
    assert again.stderr.strip() == "Added 0 noqa directives." and train.read_bytes() == data


def test_existing_codes_are_kept():
    text = "x = load()  # noqa: E501\ny = load()  # noqa\nz = load()  # noqa: SDL001\n"
    new, added, skipped = with_noqa(text, {1: {"SDL001"}, 2: {"SDL001"}, 3: {"SDL001"}})
    assert new == "x = load()  # noqa: E501, SDL001\ny = load()  # noqa\nz = load()  # noqa: SDL001\n"
    assert (added, skipped) == (1, [])


def test_a_line_that_cannot_take_a_comment_is_left_and_said():
    text = 'loader = make("""first\nsecond""")\nother = a + \\\n    b\nlast = 1\n'
    new, added, skipped = with_noqa(text, {1: {"SDL001"}, 3: {"SDL006"}, 5: {"SDL003"}})
    assert skipped == [1, 3] and added == 1
    assert new.endswith("last = 1  # noqa: SDL003\n") and new.startswith('loader = make("""first\n')
    compile(new, "<fixed>", "exec")


def test_add_noqa_does_not_read_stdin(tmp_path):
    completed = run("seedlint", "--add-noqa", "-", cwd=tmp_path, input="x = 1\n")
    assert completed.returncode == 2 and "--add-noqa writes files" in completed.stderr
