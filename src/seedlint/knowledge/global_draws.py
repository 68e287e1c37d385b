"""Library calls that draw from a process-wide RNG, which torch reseeds in each DataLoader
worker (``random`` and torch always, NumPy's legacy global RNG from torch 1.9 on).

Sources (the versions checked): audiomentations 0.43.1 draws with ``random`` and legacy
``np.random`` (``augmentations/add_gaussian_noise.py``, ``core/transforms_interface.py``);
nlpaug 1.1.11 likewise (``base_augmenter.py``, ``model/base_model.py``); scipy 1.17
``rvs()`` without ``random_state`` uses ``np.random.mtrand._rand``
(``scipy/_lib/_util.py: check_random_state``); scikit-learn 1.9 ``check_random_state(None)``
too (``sklearn/utils/validation.py``); albumentations up to 1.4.20 draws with ``random``
(``core/transforms_interface.py``), except the transforms in ``VERSIONED_CALLED_OBJECTS``,
which before 1.2.0 draw with legacy ``np.random`` (the ``get_params`` of each at the tags
0.4.0, 0.4.6, 0.5.0-0.5.2, 1.0.0-1.1.0 of its repository: ``Downscale`` draws
``np.random.uniform(self.scale_min, self.scale_max)``, both 0.25 by default, so one number;
1.2.0 draws every NumPy number from
``random_utils``, seeded from ``random``, after the change "Fix usage np.random for
multiprocessing case", albumentations pull request 1070); torchvision v1/v2 and kornia with torch's generator
(torchvision 0.21 ``transforms/transforms.py``: every ``Random*`` transform, ``ColorJitter`` and
``GaussianBlur`` draw their parameters with ``torch.rand``/``torch.randint``/``uniform_`` in
``get_params`` each time they are called; ``autoaugment.py`` likewise; the ``v2`` transforms
in ``make_params``); timm's ``RandAugment`` picks its operations with ``np.random.choice`` and
``AugMixAugment`` mixes with ``np.random.dirichlet``/``beta`` in ``__call__``, which
``rand_augment_transform`` and ``augment_and_mix_transform`` return (``timm/data/auto_augment.py``
of timm 0.4.12, 1.0.15 and 1.0.31; its ``AutoAugment`` and each operation draw with ``random``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import FrozenSet, Optional, Tuple

NUMPY, PYTHON_RANDOM, TORCH = "numpy", "random", "torch"

CALLED_OBJECTS: Tuple[Tuple[str, str], ...] = (
    ("audiomentations.", NUMPY),
    ("torch_audiomentations.", TORCH),
    ("kornia.augmentation.", TORCH),
) + tuple(
    (f"{module}.{name}", NUMPY)
    for module in ("timm.data", "timm.data.auto_augment")
    for name in ("RandAugment", "rand_augment_transform", "AugMixAugment", "augment_and_mix_transform")
) + tuple(
    (f"{module}.{name}", TORCH)
    for module in ("torchvision.transforms", "torchvision.transforms.transforms", "torchvision.transforms.v2",
                   "torchvision.transforms.autoaugment", "torchvision.transforms.v2._auto_augment")
    for name in ("Random", "ColorJitter", "GaussianBlur", "AutoAugment", "RandAugment", "TrivialAugmentWide", "AugMix",
                 "ScaleJitter")
)
"""Library objects (by qualified-name prefix) that draw from that global RNG when called."""

@dataclass(frozen=True)
class VersionedDraw:
    """Library objects that draw from a global RNG only in some of the library's releases."""

    package: str
    names: FrozenSet[str]
    """Class names anywhere under the package (``albumentations.MultiplicativeNoise``,
    ``albumentations.augmentations.transforms.MultiplicativeNoise``)."""
    versions: str
    """PEP 440 specifiers of the releases in which they draw so."""
    stream: str
    constant_when_equal: Tuple[Tuple[str, int, float], ...] = ()
    """For a draw ``uniform(low, high)`` over two constructor parameters (keyword, position,
    default): equal bounds give the same number every call, so nothing random to repeat."""


VERSIONED_CALLED_OBJECTS: Tuple[VersionedDraw, ...] = (
    VersionedDraw("albumentations", frozenset({
        "GlassBlur", "MultiplicativeNoise", "CropAndPad", "Perspective", "RandomToneCurve", "Superpixels",
    }), "<1.2", NUMPY),
    VersionedDraw("albumentations", frozenset({"Downscale"}), "<1.2", NUMPY,
                  constant_when_equal=(("scale_min", 0, 0.25), ("scale_max", 1, 0.25))),
    VersionedDraw("albumentations", frozenset({"GaussianBlur"}), ">=0.5,<1.2", NUMPY),
)
"""Library objects that draw from a global RNG when called, in the releases named: an
object draws there only when the project declares (or its code implies) such a release."""


@dataclass(frozen=True)
class ConfiguredDraw:
    """A library factory whose result draws from a global RNG only when built with some
    arguments: ``create_transform(..., is_training=True, auto_augment="rand-m9-mstd0.5")``."""

    names: FrozenSet[str]
    """Qualified names of the factory."""
    keyword: str
    """The argument (by keyword only: its position moves between releases) naming the choice."""
    prefixes: Tuple[str, ...]
    """Values of that argument that make the result draw (string prefixes)."""
    required_true: Tuple[Tuple[str, int], ...]
    """Parameters (keyword, position) that must be passed as true (False by default)."""
    required_false: Tuple[str, ...]
    """Keyword parameters that must not be passed as true."""
    stream: str


CONFIGURED_CALLED_OBJECTS: Tuple[ConfiguredDraw, ...] = (
    ConfiguredDraw(frozenset({"timm.data.create_transform", "timm.data.transforms_factory.create_transform"}),
                   "auto_augment", ("rand", "augmix"), (("is_training", 1),), ("no_aug", "tf_preprocessing"), NUMPY),
    ConfiguredDraw(frozenset({"timm.data.transforms_factory.transforms_imagenet_train"}),
                   "auto_augment", ("rand", "augmix"), (), (), NUMPY),
)
"""timm's ``transforms_factory.py`` (0.4.12, 1.0.31): ``create_transform`` builds the training
pipeline of ``transforms_imagenet_train`` when ``is_training`` (and neither ``no_aug`` nor TF
preprocessing), which adds ``rand_augment_transform`` for an ``auto_augment`` string starting
with "rand" and ``augment_and_mix_transform`` for one starting with "augmix"."""


def configured_draw(qualified: str) -> Optional[ConfiguredDraw]:
    return next((entry for entry in CONFIGURED_CALLED_OBJECTS if qualified in entry.names), None)


METHODS: Tuple[Tuple[str, Tuple[str, ...], str], ...] = (
    ("audiomentations.", ("apply", "randomize_parameters"), NUMPY),
    ("nlpaug.", ("augment",), NUMPY),
    ("scipy.stats.", ("rvs",), NUMPY),
)
"""Methods of library objects that draw from that global RNG: ``aug.augment(text)``,
``scipy.stats.norm(0, 1).rvs(size=3)``."""

FUNCTIONS: Tuple[Tuple[str, str], ...] = (
    ("sklearn.utils.shuffle", NUMPY),
    ("sklearn.utils.resample", NUMPY),
    ("diffusers.utils.torch_utils.randn_tensor", TORCH),
    ("diffusers.utils.randn_tensor", TORCH),
)
"""Library functions that draw from that global RNG (without a ``random_state``, or a
``generator`` for diffusers' ``randn_tensor``, which calls ``torch.randn(shape,
generator=generator, ...)``: ``diffusers/utils/torch_utils.py``, exported from
``diffusers.utils`` before 0.22)."""

TENSOR_DRAW_METHODS = frozenset({
    "bernoulli_", "cauchy_", "exponential_", "geometric_", "log_normal_", "normal_", "random_", "uniform_",
})
"""The in-place sampling methods of ``torch.Tensor`` (the torch documentation's "In-place
random sampling" list), which draw from torch's global generator unless given ``generator=``.
Their names end in an underscore and belong to no other common library, so a call of one on
an object seedlint cannot resolve (``image.clone().bernoulli_()``) is such a draw."""


GLOBAL_RNG_GETTERS: Tuple[Tuple[str, str], ...] = (
    ("sklearn.utils.check_random_state", NUMPY),
    ("sklearn.utils.validation.check_random_state", NUMPY),
)
"""Functions that return the global RNG object itself when given no seed or None
(``check_random_state(None)`` is ``np.random.mtrand._rand``): its draws are global draws."""

SEEDED_BY = ("random_state", "seed", "rng", "generator")
"""Keywords that hand these calls their own RNG instead."""


def called_object_stream(qualified: str) -> str:
    return next((stream for prefix, stream in CALLED_OBJECTS if qualified.startswith(prefix)), "")


def versioned_draw(qualified: str) -> Optional[VersionedDraw]:
    """The entry of ``VERSIONED_CALLED_OBJECTS`` the object ``qualified`` falls under."""
    package, _, rest = qualified.partition(".")
    name = rest.rpartition(".")[2]
    return next((entry for entry in VERSIONED_CALLED_OBJECTS if entry.package == package and name in entry.names), None)


def may_draw_when_called(qualified: str) -> bool:
    """The library object draws from a global RNG when called, in some release or when built
    with some arguments."""
    return bool(called_object_stream(qualified)) or versioned_draw(qualified) is not None or configured_draw(qualified) is not None


def method_stream(receiver: str, method: str) -> str:
    """The global RNG ``receiver.method(...)`` draws from: ``scipy.stats.norm.rvs`` as a
    function, or the method of an object built by a call of ``receiver``."""
    for prefix, methods, stream in METHODS:
        if receiver.startswith(prefix) and method in methods:
            return stream
    return ""


def function_stream(qualified: str) -> str:
    for name, stream in FUNCTIONS:
        if qualified == name:
            return stream
    receiver, _, method = qualified.rpartition(".")
    return method_stream(receiver, method) if receiver else ""


def seeded(keywords: Tuple[str, ...]) -> Optional[str]:
    """The keyword through which a call gets its own RNG, if it passes one."""
    return next((k for k in keywords if k in SEEDED_BY), None)


def getter_stream(qualified: str) -> str:
    """The global RNG a getter returns when called without a seed."""
    return next((stream for name, stream in GLOBAL_RNG_GETTERS if qualified == name), "")


UNIT_INTERVAL_DRAWS = frozenset({
    "random.random", "numpy.random.rand", "numpy.random.random", "numpy.random.random_sample", "numpy.random.sample",
    "numpy.random.ranf",
})
"""Calls that, without arguments, return one float in [0, 1): the random module's
documentation ("Return the next random floating-point number in the range 0.0 <= X < 1.0")
and NumPy's legacy ``rand``/``random_sample`` ("Results are from the uniform distribution
over [0, 1)"). ``random.random() < p`` is never true for ``p <= 0`` and always for ``p >= 1``."""
