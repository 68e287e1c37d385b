"""How the value flow treats library callables it must see through.

Each table maps a library callable's qualified name to what calling it does to the values
passed: returns one of its arguments, builds a ``functools.partial``, a dict, a module...
Anything not listed returns a new ``ExternalInstance``.
"""

from typing import Dict, Optional

KNOWN_LIBRARIES = frozenset({
    "torch", "torchvision", "torchaudio", "numpy", "lightning", "pytorch_lightning", "lightning_fabric", "lightning_lite",
    "imgaug", "monai", "albumentations", "albucore", "kornia", "timm", "transformers", "accelerate",
    "scipy", "sklearn", "cv2", "PIL", "tqdm", "webdataset", "audiomentations", "nlpaug", "mmcv", "mmengine",
    "random", "os", "sys", "math", "functools", "itertools", "collections", "typing", "argparse", "copy",
    "importlib", "multiprocessing", "json", "re", "time", "pathlib", "logging", "warnings", "abc", "dataclasses",
})
"""Packages whose names are the library's, even when the checkout holds their sources (a
check of pytorch-lightning's tests): their behaviour is what seedlint's tables describe,
and following their internals would cost as much as analysing them. Inside the package
itself (a check of timm's own modules) its names are project code."""


def owns(package: str, near_module: str) -> bool:
    """Whether a name under ``package`` stands for the library's object, seen from the
    module ``near_module`` (its dotted name)."""
    return package in KNOWN_LIBRARIES and near_module.split(".")[0] != package

PASS_THROUGH = {
    "copy.copy": 0, "copy.deepcopy": 0, "list": 0, "tuple": 0, "typing.cast": 1, "weakref.proxy": 0,
    "torch.utils.data.Subset": 0, "torch.utils.data.dataset.Subset": 0,
}
"""Calls whose result is (a view of) the argument at that position."""

CONVERSIONS = {"builtins.int": int, "builtins.float": float, "builtins.str": str, "int": int, "float": float, "str": str}
"""Builtins that convert a constant (``int(args.workers)``): the converted constant, and a
command-line option's value stays one (its default and documented values converted)."""

DATASET_COMBINERS = {
    "torch.utils.data.ConcatDataset": 0, "torch.utils.data.dataset.ConcatDataset": 0,
    "torch.utils.data.ChainDataset": 0, "torch.utils.data.dataset.ChainDataset": 0,
}
"""Datasets made of the datasets in the sequence passed at that position."""

SPLITTERS = frozenset({"torch.utils.data.random_split", "torch.utils.data.dataset.random_split"})
"""Return a sequence of views of their first argument."""

PARTIAL = frozenset({"functools.partial"})
DICT = frozenset({"dict", "collections.OrderedDict"})
GETATTR = frozenset({"getattr"})
IMPORT_MODULE = frozenset({"importlib.import_module", "__import__"})
TYPE = frozenset({"type"})
SUPER = frozenset({"super"})
NAMESPACE_LOOKUPS = frozenset({"eval", "globals", "locals", "vars"})
"""``eval(name)`` and ``globals()[name]``: any class or function the module can name."""

CONFIG_NODES = frozenset({"yacs.config.CfgNode", "fvcore.common.config.CfgNode"})
"""yacs configuration nodes (fvcore's subclasses yacs'): attribute dictionaries whose
``merge_from_file(path)`` overrides the keys a YAML file sets, and whose ``clone()`` copies
the node (yacs ``config.py``: ``CfgNode.merge_from_file``, ``CfgNode.clone``)."""

ATTRIBUTE_NAMESPACES = CONFIG_NODES | frozenset({
    "types.SimpleNamespace", "argparse.Namespace", "easydict.EasyDict", "easydict.easydict.EasyDict", "addict.Dict",
    "addict.addict.Dict", "munch.Munch", "ml_collections.ConfigDict", "ml_collections.config_dict.ConfigDict",
    "ml_collections.config_dict.config_dict.ConfigDict", "attrdict.AttrDict", "dotmap.DotMap",
})
"""Objects whose attributes are whatever the program sets on them (``ns.train = ...``), and
the keywords they are built with (``EasyDict(train=...)``)."""

CONFIG_DICTS = ATTRIBUTE_NAMESPACES - {"types.SimpleNamespace", "argparse.Namespace"}
"""Attribute dictionaries programs fill from configuration files as well (``cfg_from_file``
merging a YAML file's keys into an ``EasyDict``, ``ConfigDict.update``): an attribute the
code sets on one built empty (``__C = edict()``) may also hold what a file sets, so it is
never only the code's value."""

LIBRARY_ATTRIBUTES = {
    "torch.utils.data.DataLoader": {"dataset": ("dataset", 0), "sampler": ("sampler", 3), "batch_sampler": ("batch_sampler", 4)},
    "torch.utils.data.dataloader.DataLoader": {"dataset": ("dataset", 0), "sampler": ("sampler", 3), "batch_sampler": ("batch_sampler", 4)},
    "torch.utils.data.Subset": {"dataset": ("dataset", 0)},
    "torch.utils.data.dataset.Subset": {"dataset": ("dataset", 0)},
    "torch.utils.data.BatchSampler": {"sampler": ("sampler", 0)},
    "torch.utils.data.sampler.BatchSampler": {"sampler": ("sampler", 0)},
}
"""Attributes of library objects that hold a constructor argument: ``loader.dataset``."""

def _vision_dataset(transform: int, target_transform: int, transforms: Optional[int] = None) -> Dict[str, tuple]:
    """Where a torchvision dataset's ``__init__`` takes ``transform`` and ``target_transform``
    (positions, ``self`` not counted), and ``transforms`` where it takes one too."""
    kept = {
        "transform": (("transform", transform),),
        "target_transform": (("target_transform", target_transform),),
        "transforms": (("transform", transform), ("target_transform", target_transform)),
    }
    if transforms is not None:
        kept["transforms"] = (("transforms", transforms),) + kept["transforms"]
    return kept


_VISION_DATASETS = {
    "VisionDataset": _vision_dataset(2, 3, 1),
    "vision.VisionDataset": _vision_dataset(2, 3, 1),
    "ImageFolder": _vision_dataset(1, 2),
    "folder.ImageFolder": _vision_dataset(1, 2),
    "DatasetFolder": _vision_dataset(3, 4),
    "folder.DatasetFolder": _vision_dataset(3, 4),
    "CIFAR10": _vision_dataset(2, 3),
    "CIFAR100": _vision_dataset(2, 3),
    "cifar.CIFAR10": _vision_dataset(2, 3),
    "cifar.CIFAR100": _vision_dataset(2, 3),
    "MNIST": _vision_dataset(2, 3),
    "FashionMNIST": _vision_dataset(2, 3),
    "mnist.MNIST": _vision_dataset(2, 3),
    "mnist.FashionMNIST": _vision_dataset(2, 3),
    "SVHN": _vision_dataset(2, 3),
    "svhn.SVHN": _vision_dataset(2, 3),
    "STL10": _vision_dataset(3, 4),
    "stl10.STL10": _vision_dataset(3, 4),
    "CocoDetection": _vision_dataset(2, 3, 4),
    "coco.CocoDetection": _vision_dataset(2, 3, 4),
}
BASE_ATTRIBUTES = {f"torchvision.datasets.{name}": kept for name, kept in _VISION_DATASETS.items()}
"""Attributes a library base class's ``__init__`` stores from its arguments, read from the
subclass's ``super().__init__(...)`` call: parameter name and position (``self`` not
counted), several when the attribute wraps them. Source: torchvision 0.21,
``torchvision/datasets/vision.py``: ``VisionDataset.__init__(root, transforms=None,
transform=None, target_transform=None)`` keeps ``transform`` and ``target_transform`` and,
when ``transforms`` is None, a ``StandardTransform`` that calls both; the subclasses pass
their own ``transform``/``target_transform`` on to it: ``folder.py`` ``ImageFolder(root,
transform, target_transform, ...)``, ``DatasetFolder(root, loader, extensions, transform,
target_transform, ...)``; ``cifar.py``, ``mnist.py``, ``svhn.py`` ``(root, train or split,
transform, target_transform, ...)``; ``stl10.py`` ``(root, split, folds, transform,
target_transform, ...)``; ``coco.py`` ``CocoDetection(root, annFile, transform,
target_transform, transforms)``."""

HPARAMS_SAVERS = frozenset({"save_hyperparameters"})
"""Lightning's ``HyperparametersMixin.save_hyperparameters(*names, ignore=...)``: called in
``__init__`` with no positional argument (or with parameter names) it stores those
``__init__`` arguments in ``self.hparams`` (source: lightning/pytorch/core/mixins/hparams_mixin.py)."""
HPARAMS_ROOTS = ("pytorch_lightning", "lightning")

REGISTRY_LOOKUPS = frozenset({"get", "__getitem__", "get_module", "_get_module"})
REGISTRY_BUILDS = frozenset({"build", "build_from_cfg", "instantiate"})
REGISTRY_BUILDERS = frozenset({"mmcv.utils.build_from_cfg", "mmcv.utils.registry.build_from_cfg", "mmengine.registry.build_from_cfg"})
"""Library functions ``f(cfg, registry, ...)`` that build a member of the registry."""
REGISTERING_METHODS = ("register", "_register", "register_module", "_register_module", "add")
"""Methods (or their prefixes) that put a class into a registry object."""
PATH_JOINS = frozenset({"os.path.join", "posixpath.join", "ntpath.join"})
"""``os.path.join(...)``: a path made of its parts."""
RETURNS_RECEIVER = frozenset({"manual_seed"})
"""Methods of library objects that return the object itself (``torch.Generator().manual_seed(0)``)."""
COPIES_OF_CONFIG_NODES = frozenset({"clone"})
"""Methods of a yacs node that return a copy holding the same keys (``_C.clone()``)."""
ARGUMENT_PARSERS = frozenset({"argparse.ArgumentParser"})
"""Whose ``parse_args()`` result the flow reads the option defaults of."""
DATACLASS_ARGUMENT_PARSERS = frozenset({"transformers.HfArgumentParser", "transformers.hf_argparser.HfArgumentParser"})
"""Parsers given dataclasses, whose ``parse_args_into_dataclasses()`` fills one object of
each from the command line, a ``--field`` option per field (transformers ``hf_argparser.py``)."""
