"""Bad input that needs the engine's guards: size limit, syntax error positions, failed writes."""

from __future__ import annotations

from test_bad_input import FIXED, SOURCE, assert_good_file_still_reported, assert_one_error_naming, seedlint, tree  # noqa: F401


def test_syntax_error_names_the_line_python_names(tree):
    (tree / "broken.py").write_text("from torch.utils.data import DataLoader\ndef f(:\n    pass\n")
    completed = seedlint(".", cwd=tree)
    assert completed.returncode == 2
    assert_one_error_naming(completed, "broken.py", "syntax error at line 2, column 7: invalid syntax")


def test_huge_file_past_the_prefilter_is_reported_not_parsed(tree):
    chunk = "def f{0}(x):\n    return [x + {0}, {{'k': x}}]\n\n\n"
    body = "".join(chunk.format(i) for i in range(400_000))
    (tree / "generated.py").write_text("from torch.utils.data import DataLoader\n\n\n" + body)
    completed = seedlint(".", cwd=tree, timeout=120)
    assert completed.returncode == 2
    assert_one_error_naming(completed, "generated.py", "MB limit for parsing")
    assert_good_file_still_reported(completed)


def test_read_only_file_is_still_reported_after_fix(tree):
    (tree / "locked.py").write_text(SOURCE)
    (tree / "locked.py").chmod(0o444)
    completed = seedlint("--fix", ".", cwd=tree)
    assert completed.returncode == 2
    assert_one_error_naming(completed, "locked.py", "cannot write: read-only")
    assert (tree / "good.py").read_text() == FIXED
    assert "locked.py:16:12: SDL001 " in completed.stdout, "what could not be fixed is still reported"
