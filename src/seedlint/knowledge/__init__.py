"""What seedlint knows about libraries' random number generators, as data.

``library_rngs`` lists the RNGs that augmentation and data libraries keep for the user
(imgaug's global RNG, MONAI's ``Randomizable.R``, albumentations' per-object generators):
which objects draw from them, whether torch's per-worker seeding covers them, and how a
worker reseeds them. ``global_draws`` lists library calls that draw from a process-wide
RNG (NumPy's legacy global RNG, Python's ``random``, torch's). Rules read both; adding a
library is one entry here plus fixtures.
"""

import dataclasses
import functools
import importlib
import pkgutil
import re
from typing import FrozenSet

_QUALIFIED = re.compile(r"^[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+$")


@functools.lru_cache(maxsize=1)
def catalogued_names() -> FrozenSet[str]:
    """Every qualified library name an entry of this catalogue names (``monai.data.DataLoader``,
    ``imgaug.augmenters.Fliplr``): which library module a star-imported name comes from, when
    a module star-imports several (``from monai.data import *`` and ``from monai.transforms
    import *``)."""
    found = set()

    def collect(value, depth: int = 0) -> None:
        if depth > 6:
            return
        if isinstance(value, str):
            if _QUALIFIED.match(value):
                found.add(value)
        elif isinstance(value, dict):
            for key, item in value.items():
                collect(key, depth + 1)
                collect(item, depth + 1)
        elif isinstance(value, (list, tuple, set, frozenset)):
            for item in value:
                collect(item, depth + 1)
        elif dataclasses.is_dataclass(value) and not isinstance(value, type):
            for field in dataclasses.fields(value):
                collect(getattr(value, field.name), depth + 1)

    for info in pkgutil.iter_modules(__path__):
        module = importlib.import_module(f"{__name__}.{info.name}")
        for name, value in vars(module).items():
            if not name.startswith("__"):
                collect(value)
    return frozenset(found)
