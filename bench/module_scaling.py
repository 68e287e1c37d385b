"""How seedlint's time grows with the size of one module and with the depth of a class
hierarchy: generated modules of 1k to 16k small functions (one DataLoader over a dataset
that draws from NumPy) and hierarchies of 50 to 800 classes, each checked with
``--no-cache --jobs 1`` under ``SEEDLINT_TIMINGS``.

Usage:
    python bench/module_scaling.py [--sizes 1000 2000 4000 8000 16000] [--depths 50 100 200 400 800]
                                   [--python PYTHON] [--output FILE]

Prints a markdown table: seconds per phase, rules time per thousand functions (flat when
the rules grow linearly), and the finding each run must give (SDL001 once).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

DATASET = '''
import numpy as np
from torch.utils.data import DataLoader, Dataset


class Noisy(Dataset):
    def __len__(self):
        return 100

    def __getitem__(self, index):
        return np.random.rand()
'''


def flat_module(functions: int) -> str:
    parts = [DATASET]
    for i in range(functions):
        parts.append(f"\n\ndef helper_{i}(x, y={i}):\n    z = x + y\n    return helper_{max(i - 1, 0)}(z, {i}) if z < 0 else z\n")
    parts.append("\n\nloader = DataLoader(Noisy(), num_workers=4)\nfor epoch in range(3):\n    for batch in loader:\n        pass\n")
    return "".join(parts)


def deep_hierarchy(depth: int) -> str:
    parts = [DATASET, "\n\nclass Level0(Noisy):\n    pass\n"]
    for i in range(1, depth):
        parts.append(f"\n\nclass Level{i}(Level{i - 1}):\n    def describe_{i}(self):\n        return {i}\n")
    parts.append(f"\n\nloader = DataLoader(Level{depth - 1}(), num_workers=4)\nfor epoch in range(3):\n    for batch in loader:\n        pass\n")
    return "".join(parts)


def measure(python: str, source: str) -> dict:
    with tempfile.TemporaryDirectory() as directory:
        project = Path(directory)
        (project / "requirements.txt").write_text("torch==1.8.1\n")
        (project / "train.py").write_text(source)
        timings = project / "timings.json"
        env = {**os.environ, "SEEDLINT_TIMINGS": str(timings)}
        started = time.perf_counter()
        completed = subprocess.run(
            [python, "-m", "seedlint", "--no-cache", "--jobs", "1", "--select", "SDL", "."],
            cwd=project, env=env, capture_output=True, text=True,
        )
        row = json.loads(timings.read_text()) if timings.exists() else {}
        row["total"] = time.perf_counter() - started
        row["findings"] = completed.stdout.count(" SDL001 ")
        return row


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 2000, 4000, 8000, 16000])
    parser.add_argument("--depths", type=int, nargs="+", default=[50, 100, 200, 400, 800])
    parser.add_argument("--python", default=sys.executable)
    parser.add_argument("--output", type=Path)
    args = parser.parse_args(argv)
    lines = [
        "| module | parse s | facts s | rules s | rules s per 1k units | total s | SDL001 findings |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for label, make, counts in (("functions", flat_module, args.sizes), ("classes deep", deep_hierarchy, args.depths)):
        for count in counts:
            row = measure(args.python, make(count))
            per = row.get("rules", 0) / (count / 1000)
            lines.append(
                f"| {count} {label} | {row.get('parse', 0):.2f} | {row.get('facts', 0):.2f} | {row.get('rules', 0):.2f} "
                f"| {per:.3f} | {row['total']:.2f} | {row['findings']} |"
            )
            print(lines[-1], flush=True)
    text = "\n".join(lines) + "\n"
    if args.output:
        args.output.write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
