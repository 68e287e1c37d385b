"""Bad input through the real ``seedlint`` command: every broken file gets one message on
stderr naming it, the other files are still checked, the exit status is 2 when something
could not be checked, and ``--fix`` keeps encodings, BOMs, newlines, tabs and modes."""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
import sys
import tempfile
from pathlib import Path

import libcst as cst
import pytest

from seedlint.source import ChangedOnDisk, read_source, write_atomically

FIXTURE = Path(__file__).resolve().parent.parent / "fixtures" / "SDL001" / "basic_getitem.py"
SOURCE = FIXTURE.read_text()
FIXED = FIXTURE.with_name("basic_getitem.fixed.py").read_text()
LOADER_LINE = "DataLoader(NoisyDataset()"
NOBODY = 65534


def seedlint(*args: str, cwd: Path, timeout: int = 300) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "seedlint", "--no-cache", *args],
                          cwd=cwd, capture_output=True, text=True, timeout=timeout)


def stderr_lines(completed: subprocess.CompletedProcess):
    assert "Traceback" not in completed.stderr, completed.stderr
    return completed.stderr.splitlines()


def assert_one_error_naming(completed, name: str, reason: str) -> None:
    """Exactly one stderr line names ``name``, and it gives ``reason``."""
    lines = [line for line in stderr_lines(completed) if name in line]
    assert len(lines) == 1, completed.stderr
    assert reason in lines[0], lines[0]


def assert_good_file_still_reported(completed) -> None:
    assert "good.py:16:12: SDL001 " in completed.stdout, (completed.stdout, completed.stderr)


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    """A project whose ``good.py`` has one fixable SDL001 finding."""
    (tmp_path / "good.py").write_text(SOURCE)
    return tmp_path


# ---------------------------------------------------------------------------- unreadable input


def test_syntax_error(tree):
    (tree / "broken.py").write_text("from torch.utils.data import DataLoader\ndef f(:\n    pass\n")
    completed = seedlint(".", cwd=tree)
    assert completed.returncode == 2
    assert_one_error_naming(completed, "broken.py", "syntax error at line")
    assert_good_file_still_reported(completed)


def test_syntax_error_under_fix_writes_nothing_there_and_fixes_the_rest(tree):
    broken = "from torch.utils.data import DataLoader\nDataLoader(x, num_workers=2\n"
    (tree / "broken.py").write_text(broken)
    completed = seedlint("--fix", ".", cwd=tree)
    assert completed.returncode == 2
    assert_one_error_naming(completed, "broken.py", "syntax error")
    assert (tree / "broken.py").read_text() == broken
    assert (tree / "good.py").read_text() == FIXED


def test_invalid_utf8(tree):
    (tree / "binary.py").write_bytes(b"from torch.utils.data import DataLoader\nname = '\xff\xfe'\n")
    completed = seedlint(".", cwd=tree)
    assert completed.returncode == 2
    assert_one_error_naming(completed, "binary.py", "cannot decode as utf-8 at byte")
    assert_good_file_still_reported(completed)


def test_unknown_coding_cookie(tree):
    (tree / "cookie.py").write_bytes(b"# -*- coding: no-such-codec -*-\nfrom torch.utils.data import DataLoader\n")
    completed = seedlint(".", cwd=tree)
    assert completed.returncode == 2
    assert_one_error_naming(completed, "cookie.py", "cannot decode")
    assert_good_file_still_reported(completed)


def test_dangling_symlink(tree):
    os.symlink(tree / "nowhere.py", tree / "dangling.py")
    completed = seedlint(".", cwd=tree)
    assert completed.returncode == 2
    assert_one_error_naming(completed, "dangling.py", "cannot read")
    assert_good_file_still_reported(completed)


def test_symlink_loop(tree):
    os.symlink("loop.py", tree / "loop.py")
    completed = seedlint(".", cwd=tree)
    assert completed.returncode == 2
    assert_one_error_naming(completed, "loop.py", "cannot read")
    assert_good_file_still_reported(completed)


def _run_as_nobody(args, cwd: Path) -> subprocess.CompletedProcess:
    """The real CLI as an unprivileged user. Root reads every file, so a root test run
    loads the interpreter and seedlint first, then drops to ``nobody`` before main()."""
    if os.geteuid() != 0:
        return seedlint(*args, cwd=cwd)
    code = (
        "import gettext, importlib, locale, os, sys\n"  # argparse imports locale lazily (Python 3.10)
        "import libcst, libcst.metadata, libcst.native, seedlint\n"
        # seedlint imports most of itself lazily, and the checkout may not be readable by nobody
        "top = os.path.dirname(os.path.dirname(seedlint.__file__))\n"
        "for folder, _, files in os.walk(os.path.dirname(seedlint.__file__)):\n"
        "    for name in files:\n"
        "        if name.endswith('.py') and name != '__main__.py':\n"
        "            relative = os.path.relpath(os.path.join(folder, name[:-3]), top)\n"
        "            importlib.import_module(relative.replace(os.sep, '.').removesuffix('.__init__'))\n"
        f"os.setgroups([]); os.setgid({NOBODY}); os.setuid({NOBODY})\n"
        "sys.exit(seedlint.cli.main(sys.argv[1:]))\n"
    )
    return subprocess.run([sys.executable, "-c", code, "--no-cache", "--jobs", "1", *args],
                          cwd=cwd, capture_output=True, text=True, timeout=300)


def test_file_without_read_permission():
    # A world-readable directory outside pytest's private tmp (which nobody cannot enter).
    tree = Path(tempfile.mkdtemp(prefix="seedlint-noperm-"))
    try:
        tree.chmod(0o755)
        (tree / "good.py").write_text(SOURCE)
        (tree / "secret.py").write_text(SOURCE)
        (tree / "secret.py").chmod(0o000)
        completed = _run_as_nobody(["."], cwd=tree)
        assert completed.returncode == 2
        assert_one_error_naming(completed, "secret.py", "cannot read: permission denied")
        assert_good_file_still_reported(completed)
    finally:
        shutil.rmtree(tree)


# ---------------------------------------------------------------------------- odd but valid input


def test_empty_file(tree):
    (tree / "empty.py").write_bytes(b"")
    completed = seedlint("--fix", "empty.py", cwd=tree)
    assert completed.returncode == 0 and stderr_lines(completed) == []
    assert (tree / "empty.py").read_bytes() == b""


def test_directory_named_like_a_module_is_walked_not_read(tree):
    package = tree / "weird.py"
    package.mkdir()
    (package / "inner.py").write_text(SOURCE)
    for given in (".", "weird.py"):
        completed = seedlint(given, cwd=tree)
        assert completed.returncode == 1 and stderr_lines(completed) == [], completed.stderr
        assert "inner.py:16:12: SDL001 " in completed.stdout


def test_huge_file_outside_the_prefilter_completes(tree):
    chunk = "def f{0}(x):\n    return [x + {0}, {{'k': x}}]\n\n\n"
    body = "".join(chunk.format(i) for i in range(400_000))
    (tree / "generated.py").write_text("import os\n\n\n" + body)
    assert (tree / "generated.py").stat().st_size > 20_000_000
    completed = seedlint(".", cwd=tree)
    assert completed.returncode == 1 and stderr_lines(completed) == []
    assert_good_file_still_reported(completed)


# ---------------------------------------------------------------------------- --fix keeps the file's form


def test_latin1_with_coding_cookie_stays_latin1(tree):
    text = "# -*- coding: latin-1 -*-\n# café, naïve\n" + SOURCE
    (tree / "good.py").unlink()
    (tree / "latin.py").write_bytes(text.encode("latin-1"))
    completed = seedlint("--fix", ".", cwd=tree)
    assert completed.returncode == 0, completed.stderr
    data = (tree / "latin.py").read_bytes()
    assert b"# caf\xe9, na\xefve\n" in data
    assert data.decode("latin-1") == "# -*- coding: latin-1 -*-\n# café, naïve\n" + FIXED


def test_utf8_bom_is_kept(tree):
    (tree / "good.py").write_bytes(b"\xef\xbb\xbf" + SOURCE.encode())
    completed = seedlint("--fix", ".", cwd=tree)
    assert completed.returncode == 0, completed.stderr
    assert (tree / "good.py").read_bytes() == b"\xef\xbb\xbf" + FIXED.encode()


def test_crlf_is_kept(tree):
    (tree / "good.py").write_bytes(SOURCE.replace("\n", "\r\n").encode())
    completed = seedlint("--fix", ".", cwd=tree)
    assert completed.returncode == 0, completed.stderr
    assert (tree / "good.py").read_bytes() == FIXED.replace("\n", "\r\n").encode()


def _is_subsequence(needles, haystack) -> bool:
    remaining = iter(haystack)
    return all(any(item == candidate for candidate in remaining) for item in needles)


def test_mixed_newlines_keep_every_original_line_ending(tree):
    lines = SOURCE.splitlines()
    mixed = "".join(line + ("\r\n" if index % 2 else "\n") for index, line in enumerate(lines))
    (tree / "good.py").write_bytes(mixed.encode())
    completed = seedlint("--fix", ".", cwd=tree)
    assert completed.returncode == 0, completed.stderr
    after = (tree / "good.py").read_bytes()
    cst.parse_module(after)
    untouched = [line for line in mixed.encode().splitlines(keepends=True) if LOADER_LINE.encode() not in line]
    assert _is_subsequence(untouched, after.splitlines(keepends=True))
    assert b"worker_init_fn=seed_worker" in after


def test_tab_indentation_is_kept(tree):
    (tree / "good.py").write_text(SOURCE.replace("    ", "\t"))
    completed = seedlint("--fix", ".", cwd=tree)
    assert completed.returncode == 0, completed.stderr
    after = (tree / "good.py").read_text()
    # A tab counts one column (as flake8's E501 counts it): the arguments fit on one line of
    # their own, so the call is split black's other way.
    spaces = FIXED.replace(
        "        NoisyDataset(),\n        batch_size=8,\n        shuffle=True,\n        num_workers=2,\n        worker_init_fn=seed_worker,\n",
        "        NoisyDataset(), batch_size=8, shuffle=True, num_workers=2, worker_init_fn=seed_worker\n",
    )
    assert spaces != FIXED
    assert after == spaces.replace("    ", "\t")
    assert seedlint("--fix", ".", cwd=tree).returncode == 0
    assert (tree / "good.py").read_text() == after


def test_mode_bits_are_kept_and_no_temporary_file_is_left(tree):
    (tree / "good.py").chmod(0o751)
    completed = seedlint("--fix", ".", cwd=tree)
    assert completed.returncode == 0, completed.stderr
    assert stat.S_IMODE((tree / "good.py").stat().st_mode) == 0o751
    assert (tree / "good.py").read_text() == FIXED
    assert sorted(p.name for p in tree.iterdir()) == ["good.py"]


@pytest.mark.skipif(os.geteuid() != 0, reason="only root can give a file to another user")
def test_owner_is_kept_when_root_fixes_a_users_file(tree):
    os.chown(tree / "good.py", NOBODY, NOBODY)
    assert seedlint("--fix", ".", cwd=tree).returncode == 0
    status = (tree / "good.py").stat()
    assert (status.st_uid, status.st_gid) == (NOBODY, NOBODY)
    assert (tree / "good.py").read_text() == FIXED


def test_a_link_to_a_file_of_the_tree_is_checked_once_under_the_files_own_path(tree):
    """The link is met first (a directory's files come before its subdirectories)."""
    (tree / "recipes").mkdir()
    shutil.move(tree / "good.py", tree / "recipes" / "good.py")
    os.symlink(Path("recipes") / "good.py", tree / "a_shared_copy.py")
    completed = seedlint(".", cwd=tree)
    findings = [line for line in completed.stdout.splitlines() if " SDL001 " in line]
    assert len(findings) == 1 and findings[0].startswith("recipes/good.py:16:12: SDL001 "), completed.stdout


def test_fix_through_a_symlink_rewrites_the_target_and_keeps_the_link(tree):
    (tree / "real").mkdir()
    shutil.move(tree / "good.py", tree / "real" / "target.py")
    os.symlink(Path("real") / "target.py", tree / "good.py")
    completed = seedlint("--fix", "good.py", cwd=tree)
    assert completed.returncode == 0, completed.stderr
    assert (tree / "good.py").is_symlink()
    assert (tree / "real" / "target.py").read_text() == FIXED


# ---------------------------------------------------------------------------- refusing to write


def test_read_only_file_is_reported_and_left_alone(tree):
    (tree / "locked.py").write_text(SOURCE)
    (tree / "locked.py").chmod(0o444)
    completed = seedlint("--fix", ".", cwd=tree)
    assert completed.returncode == 2
    assert_one_error_naming(completed, "locked.py", "cannot write: read-only")
    assert (tree / "locked.py").read_text() == SOURCE
    assert stat.S_IMODE((tree / "locked.py").stat().st_mode) == 0o444
    assert (tree / "good.py").read_text() == FIXED


def test_file_changed_between_analysis_and_write_is_left_as_it_is_now(tree):
    path = tree / "good.py"
    source = read_source(str(path))
    edited = SOURCE + "# the user's edit\n"
    path.write_text(edited)
    with pytest.raises(ChangedOnDisk):
        write_atomically(source, FIXED)
    assert path.read_text() == edited
    assert sorted(p.name for p in tree.iterdir()) == ["good.py"]


def test_failed_write_leaves_the_original_and_no_temporary(tree, monkeypatch):
    path = tree / "good.py"
    source = read_source(str(path))

    def fail(*args, **kwargs):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", fail)
    with pytest.raises(OSError):
        write_atomically(source, FIXED)
    assert path.read_text() == SOURCE
    assert sorted(p.name for p in tree.iterdir()) == ["good.py"]
