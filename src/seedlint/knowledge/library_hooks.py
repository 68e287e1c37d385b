"""Methods a library base class's ``__call__`` runs on a project subclass: calling an object
of the subclass runs these (when the project defines them), not a ``__call__`` of its own.

Sources: torch/nn/modules/module.py (``Module.__call__`` is ``_call_impl``, which runs
``forward``); torchvision/transforms/v2/_transform.py (``Transform.forward`` runs
``make_params`` then ``transform`` from torchvision 0.21, ``_get_params`` and ``_transform``
from 0.15 to 0.20; ``Transform`` is an ``nn.Module``);
albumentations/core/transforms_interface.py (``BasicTransform.__call__`` runs ``get_params``,
then ``get_params_dependent_on_targets`` (0.4 to 1.3) or ``get_params_dependent_on_data`` (from
1.4) and ``update_params``, then ``apply_with_params``, which runs ``apply`` on the image and
``apply_to_mask``, ``apply_to_bbox``/``apply_to_bboxes``, ``apply_to_keypoint``/
``apply_to_keypoints`` on the other targets; ``DualTransform`` and ``ImageOnlyTransform``
subclass it).
"""

from __future__ import annotations

from typing import Iterable, Tuple

_MODULE = ("forward",)
_V2_TRANSFORM = ("forward", "make_params", "_get_params", "transform", "_transform")
_ALBUMENTATIONS = (
    "get_params", "get_params_dependent_on_targets", "get_params_dependent_on_data", "update_params", "apply_with_params",
    "apply", "apply_to_mask", "apply_to_masks", "apply_to_bbox", "apply_to_bboxes", "apply_to_keypoint", "apply_to_keypoints",
)

CALL_HOOKS: Tuple[Tuple[str, Tuple[str, ...]], ...] = (
    ("torchvision.transforms.v2.Transform", _V2_TRANSFORM),
    ("torchvision.transforms.v2._transform.Transform", _V2_TRANSFORM),
    ("torch.nn.Module", _MODULE),
    ("torch.nn.modules.module.Module", _MODULE),
) + tuple(
    (f"{module}.{base}", _ALBUMENTATIONS)
    for module in ("albumentations", "albumentations.core.transforms_interface")
    for base in ("BasicTransform", "DualTransform", "ImageOnlyTransform")
)
"""Library base class -> the methods its ``__call__`` runs, in order."""


def called_hooks(bases: Iterable[str]) -> Tuple[str, ...]:
    """The methods calling an object runs, given its class's library bases."""
    found: list = []
    for base in bases:
        for library_class, hooks in CALL_HOOKS:
            if base == library_class:
                found.extend(h for h in hooks if h not in found)
    return tuple(found)
