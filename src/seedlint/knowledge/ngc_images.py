"""NVIDIA's NGC PyTorch containers (``nvcr.io/nvidia/pytorch:YY.MM-py3``): the torch each
monthly release ships. A Dockerfile built on one runs that torch, and the tag says which.

Sources: NVIDIA's PyTorch container release notes
(``docs.nvidia.com/deeplearning/frameworks/pytorch-release-notes/rel_YY-MM.html``, "Contents of
the PyTorch container") and the banner each container prints at start-up ("NVIDIA Release
YY.MM ... PyTorch Version X"), cross-checked against NVIDIA's versions table (19.08-20.12) and
the support matrix of NVIDIA's Triton Model Navigator (21.05-24.02). Where a release's own
notes and its banner disagree (20.02: the notes say 1.4.0a0, the container prints 1.5.0a0),
the banner holds. Releases no two sources agree on (19.01-19.04, 19.07, 19.11, 21.06, 23.02, 23.06)
are left out: their tag says nothing here.

The versions are pre-releases (``1.9.0a0+df837d0``): a snapshot of the main branch taken before
that release, which sorts below it (PEP 440). 21.03's ``1.9.0a0`` may predate a change that
torch 1.9.0 has, so it counts as below 1.9.
"""

from __future__ import annotations

from typing import Dict, Optional

NGC_IMAGE = "nvcr.io/nvidia/pytorch"

NGC_TORCH: Dict[str, str] = {
    "19.05": "1.1.0a0", "19.06": "1.1.0", "19.08": "1.2.0a0", "19.09": "1.2.0a0", "19.10": "1.3.0a0",
    "19.12": "1.4.0a0", "20.01": "1.4.0a0", "20.02": "1.5.0a0", "20.03": "1.5.0a0", "20.06": "1.6.0a0",
    "20.07": "1.6.0a0", "20.08": "1.7.0a0", "20.09": "1.7.0a0", "20.10": "1.7.0a0", "20.11": "1.8.0a0",
    "20.12": "1.8.0a0", "21.02": "1.8.0a0", "21.03": "1.9.0a0", "21.04": "1.9.0a0", "21.05": "1.9.0a0",
    "21.07": "1.10.0a0", "21.08": "1.10.0a0", "21.09": "1.10.0a0", "21.10": "1.10.0a0", "21.11": "1.11.0a0",
    "21.12": "1.11.0a0", "22.01": "1.11.0a0", "22.02": "1.11.0a0", "22.03": "1.12.0a0", "22.04": "1.12.0a0",
    "22.05": "1.12.0a0", "22.06": "1.13.0a0", "22.07": "1.13.0a0", "22.08": "1.13.0a0", "22.09": "1.13.0a0",
    "22.10": "1.13.0a0", "22.11": "1.13.0a0", "22.12": "1.14.0a0", "23.01": "1.14.0a0", "23.03": "2.0.0a0",
    "23.04": "2.1.0a0", "23.05": "2.0.0", "23.07": "2.1.0a0", "23.08": "2.1.0a0", "23.09": "2.1.0a0",
    "23.10": "2.1.0a0", "23.11": "2.2.0a0", "23.12": "2.2.0a0", "24.01": "2.2.0a0", "24.02": "2.3.0a0",
    "24.03": "2.3.0a0", "24.04": "2.3.0a0", "24.05": "2.4.0a0", "24.06": "2.4.0a0", "24.07": "2.4.0a0",
    "24.08": "2.5.0a0", "24.09": "2.5.0a0", "24.10": "2.5.0a0", "24.11": "2.6.0a0", "24.12": "2.6.0a0",
    "25.01": "2.6.0a0", "25.02": "2.7.0a0", "25.03": "2.7.0a0", "25.04": "2.7.0a0", "25.05": "2.8.0a0",
    "25.06": "2.8.0a0", "25.08": "2.8.0a0", "25.09": "2.9.0a0", "25.10": "2.9.0a0", "25.12": "2.10.0a0",
}
"""Release (``21.11``) -> the public part of the torch version it ships."""


def ngc_torch(tag: str) -> Optional[str]:
    """The torch version of an NGC PyTorch image tag (``21.11-py3`` -> ``1.11.0a0``)."""
    return NGC_TORCH.get(tag.split("-", 1)[0])
