"""How many processes ``accelerate launch`` starts for a project, when its files say.

``accelerate launch`` reads its settings from a configuration file (``--config_file``, or the
user's default one, which the project does not ship) and from its command line. A project
that ships configuration files, all of them for one process (``num_processes: 1``, or
``distributed_type: 'NO'``), and whose documents and scripts never ask for more on the
command line (``--multi_gpu``, ``--num_processes`` above 1, ``torchrun``), runs its
``Accelerator`` programs as one process (SegFormer3D's ``gpu_accelerate.yaml``). Without such
a file nothing is known, and several processes are possible.
"""

from __future__ import annotations

import re
from typing import List, Optional

from seedlint.analysis import inputs

CONFIG_SUFFIXES = (".yaml", ".yml", ".json")
COMMAND_SUFFIXES = (".sh", ".bash", ".md", ".rst", ".txt", ".slurm", ".yaml", ".yml")
MAX_FILE_BYTES = 256 * 1024
SETTING = re.compile(r"^\s*\"?(distributed_type|num_processes)\"?\s*:\s*['\"]?([A-Za-z0-9_]+)", re.M)
MANY_PROCESSES = re.compile(r"--multi_gpu|--num_processes[ =]+(?:[2-9]|\d\d|\$)|--nproc_per_node|\btorchrun\b|torch\.distributed\.(?:launch|run)")


def single_process_config(tree) -> Optional[str]:
    """The configuration file that makes the project's ``accelerate launch`` one process,
    when every accelerate configuration it ships does and nothing asks for more; else None."""
    if tree is None:
        return None
    configs: List[str] = []
    for path in tree.files(lambda name: name.endswith(CONFIG_SUFFIXES)):
        settings = dict((key, value) for key, value in SETTING.findall(_text(path)))
        if "distributed_type" not in settings:
            continue
        processes = settings.get("num_processes", "1")
        if settings["distributed_type"].upper() != "NO" and processes != "1":
            return None
        configs.append(path)
    if not configs:
        return None
    for path in tree.files(lambda name: name.endswith(COMMAND_SUFFIXES)):
        if MANY_PROCESSES.search(_text(path)):
            return None
    return configs[0]


def _text(path: str) -> str:
    try:
        with open(path, "rb") as handle:
            raw = handle.read(MAX_FILE_BYTES)
    except OSError:
        return ""
    inputs.read(path)
    return raw.decode("utf-8", "replace")
