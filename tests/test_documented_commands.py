"""The options a project's documented commands pass: shell scripts, Makefiles and README
code, as a user writes them."""

from __future__ import annotations

import os
from pathlib import Path

from seedlint.analysis import inputs
from seedlint.analysis.documented_commands import DocumentedCommands, positional_flag, script_paths
from seedlint.discovery import ProjectTree


def _project(tmp_path: Path, files: dict) -> DocumentedCommands:
    for relative, text in files.items():
        path = tmp_path / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return DocumentedCommands(ProjectTree(str(tmp_path), inputs.read))


def _values(commands: DocumentedCommands, *flags: str):
    return [(p.text, p.file, p.line, p.script) for p in commands.passed(list(flags))]


def test_a_slurm_script_with_variables_and_continuations(tmp_path):
    commands = _project(tmp_path, {"scripts/train.sbatch": (
        "#!/bin/bash\n#SBATCH --cpus-per-task=8\nexport WORKERS=8\nsrun python -u tools/train.py \\\n"
        "    --config configs/a.yaml \\\n    --num_workers ${WORKERS} --amp\n"
    )})
    assert _values(commands, "--num_workers") == [("8", "scripts/train.sbatch", 4, "tools/train.py")]
    assert [p.bare for p in commands.passed(["--amp"])] == [True]
    assert commands.passed(["--cpus-per-task"]) == []  # a directive, not an option of the script


def test_launchers_environment_assignments_and_module_scripts(tmp_path):
    commands = _project(tmp_path, {"run.sh": (
        "CUDA_VISIBLE_DEVICES=0,1 python -m torch.distributed.launch --nproc_per_node 2 main.py -j 4\n"
        "torchrun --nproc_per_node=8 train.py --workers=6\n"
        "accelerate launch --num_processes 2 -m mypkg.finetune --num-workers 3\n"
        "python -c 'print(1)' --workers 9\n"
        "pip install torch --workers 5\n"
    )})
    assert _values(commands, "-j") == [("4", "run.sh", 1, "main.py")]
    assert _values(commands, "--workers") == [("6", "run.sh", 2, "train.py")]
    assert _values(commands, "--num_workers") == [("3", "run.sh", 3, "-m mypkg.finetune")]


def test_readme_fenced_blocks_prompts_and_inline_code(tmp_path):
    commands = _project(tmp_path, {"README.md": (
        "# Training\n\n```bash\n$ python train.py --epochs 10 \\\n  --num-workers=4\n```\n\n"
        "Or run `python train.py --num_workers 2` on a laptop; set `--num_workers` to taste.\n"
        "WORKERS=16 is a value a README does not assign: `python train.py --num_workers $WORKERS`\n"
    )})
    assert _values(commands, "--num_workers") == [
        ("4", "README.md", 4, "train.py"), ("2", "README.md", 8, "train.py"), (None, "README.md", 9, "train.py"),
    ]


def test_positional_words_before_the_first_option_are_filed_by_position(tmp_path):
    commands = _project(tmp_path, {"scripts/eval.sh": (
        "CONFIG=configs/s3dis.yaml\n"
        "python tools/test.py $CONFIG work_dirs/latest.pth --eval mIoU > log.txt\n"
        "python tools/test.py --launcher pytorch configs/other.yaml\n"
        "python tools/test.py $UNSET 2>&1 | tee out.txt\n"
    )})
    assert _values(commands, positional_flag(0)) == [
        ("configs/s3dis.yaml", "scripts/eval.sh", 2, "tools/test.py"), (None, "scripts/eval.sh", 4, "tools/test.py"),
    ]
    # After an option a word may be the option's value, and a redirection is no argument.
    assert _values(commands, positional_flag(1)) == [("work_dirs/latest.pth", "scripts/eval.sh", 2, "tools/test.py")]
    assert commands.passed([positional_flag(2)]) == []


def test_ignored_and_excluded_folders_are_not_read(tmp_path):
    commands = _project(tmp_path, {
        ".gitignore": "runs/\n",
        "runs/old/cmd.sh": "python train.py --workers 8\n",
        ".venv/lib/x.sh": "python train.py --workers 8\n",
        "node_modules/y.sh": "python train.py --workers 8\n",
    })
    assert commands.passed(["--workers"]) == []


def test_a_script_is_found_from_the_documenting_folder_or_the_root(tmp_path):
    files = [str(tmp_path / p) for p in ("examples/flux/train_flux.py", "tools/train.py", "pkg/cli/main.py", "other/train.py")]
    for path in files:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        Path(path).write_text("")
    commands = _project(tmp_path, {
        "examples/flux/README.md": "```\npython train_flux.py --workers 2\n```\n",
        "Makefile": "train:\n\tpython tools/train.py --workers 3\n\tpython -m pkg.cli.main --workers 4\n",
        "docs/usage.md": "```\npython train.py --workers 5\n```\n",
    })
    by_text = {p.text: script_paths(p, str(tmp_path), files) for p in commands.passed(["--workers"])}
    assert by_text["2"] == (files[0],)
    assert by_text["3"] == (files[1],)
    assert by_text["4"] == (files[2],)
    assert set(by_text["5"]) == {files[1], files[3]}  # a docs/ page naming train.py: either of them


def test_a_scripts_folder_readme_naming_a_script_it_does_not_hold_documents_no_other_folders_script(tmp_path):
    # examples/opts/README.md names textual_inversion.py, but its folder holds only the
    # renamed textual_inversion_bf16.py: the README says nothing about examples/ti/'s script.
    files = [str(tmp_path / p) for p in ("examples/ti/textual_inversion.py", "examples/opts/textual_inversion_bf16.py",
                                         "examples/sd/sub/train_sd.py")]
    for path in files:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        Path(path).write_text("")
    commands = _project(tmp_path, {
        "examples/opts/README.md": "```\npython textual_inversion.py --seed=7\n```\n",
        "examples/sd/README.md": "```\npython train_sd.py --seed=3\n```\n",
    })
    by_text = {p.text: script_paths(p, str(tmp_path), files) for p in commands.passed(["--seed"])}
    assert by_text["7"] == ()
    assert by_text["3"] == (files[2],)  # below the README's own folder
