"""What seedlint knows about random number generators: which calls draw from a global
RNG, which seed one, and which build an RNG object."""

NUMPY_LEGACY_DRAWS = frozenset(
    f"numpy.random.{name}"
    for name in (
        "beta binomial bytes chisquare choice dirichlet exponential f gamma geometric gumbel "
        "hypergeometric laplace logistic lognormal logseries multinomial multivariate_normal "
        "negative_binomial noncentral_chisquare noncentral_f normal pareto permutation poisson power "
        "rand randint randn random random_integers random_sample ranf rayleigh sample shuffle "
        "standard_cauchy standard_exponential standard_gamma standard_normal standard_t triangular "
        "uniform vonmises wald weibull zipf"
    ).split()
)
"""Module-level functions of ``numpy.random`` that draw from its global RandomState."""

NUMPY_GLOBAL_SEEDERS = frozenset({"numpy.random.seed", "numpy.random.set_state"})
STDLIB_GLOBAL_SEEDERS = frozenset({"random.seed", "random.setstate"})
TORCH_GLOBAL_SEEDERS = frozenset({"torch.manual_seed", "torch.random.manual_seed", "torch.seed"})

RNG_OBJECT_CONSTRUCTORS = {
    "numpy.random.default_rng": "numpy-generator",
    "numpy.random.Generator": "numpy-generator",
    "numpy.random._generator.Generator": "numpy-generator",
    "numpy.random.RandomState": "numpy-randomstate",
    "numpy.random.mtrand.RandomState": "numpy-randomstate",
    "random.Random": "stdlib-random",
    "torch.Generator": "torch-generator",
    "torch._C.Generator": "torch-generator",
}
"""Calls that build an RNG object with its own state, by the kind of object they build."""

_NUMPY_DISTRIBUTIONS = (
    "beta binomial bytes chisquare choice dirichlet exponential f gamma geometric gumbel hypergeometric laplace "
    "logistic lognormal logseries multinomial multivariate_normal negative_binomial noncentral_chisquare "
    "noncentral_f normal pareto permutation poisson power rayleigh shuffle standard_cauchy standard_exponential "
    "standard_gamma standard_normal standard_t triangular uniform vonmises wald weibull zipf"
).split()
RNG_OBJECT_DRAW_METHODS = {
    "numpy-generator": frozenset(_NUMPY_DISTRIBUTIONS + "integers random permuted multivariate_hypergeometric spawn".split()),
    "numpy-randomstate": frozenset(
        _NUMPY_DISTRIBUTIONS + "rand randn randint random random_integers random_sample ranf sample tomaxint".split()
    ),
    "stdlib-random": frozenset(
        "random uniform randint randrange choice choices sample shuffle gauss normalvariate lognormvariate "
        "expovariate vonmisesvariate gammavariate betavariate paretovariate weibullvariate triangular getrandbits "
        "randbytes binomialvariate".split()
    ),
    "torch-generator": frozenset(),
}
"""Methods that draw from an RNG object, by kind (a ``torch.Generator`` is drawn from by the
calls it is passed to, never by its own methods)."""

RNG_OBJECT_RESEEDING_METHODS = frozenset({"seed", "manual_seed", "set_state", "setstate", "__setstate__"})
"""Methods that replace an RNG object's state in place."""

WORKER_INFO = frozenset({"torch.utils.data.get_worker_info", "torch.utils.data._utils.worker.get_worker_info"})
WORKER_SHARDING_HELPERS = frozenset({"split_by_worker", "sharding_filter", "split_dataset_by_node"})
"""Last components of known helpers that split an iterable's items among workers
(webdataset, torchdata, Hugging Face datasets)."""

LIGHTNING_SEED_EVERYTHING = frozenset({
    "lightning.seed_everything", "lightning.pytorch.seed_everything",
    "lightning.pytorch.utilities.seed.seed_everything", "lightning.fabric.seed_everything",
    "lightning.fabric.utilities.seed.seed_everything", "lightning_fabric.seed_everything",
    "lightning_fabric.utilities.seed.seed_everything", "pytorch_lightning.seed_everything",
    "pytorch_lightning.utilities.seed.seed_everything",
})
"""Lightning's ``seed_everything``: seeds torch, NumPy and random in the calling process;
DataLoader workers get rank-aware seeds only with ``workers=True``."""
LIBRARY_SEED_HELPERS = frozenset({
    "transformers.set_seed", "transformers.trainer_utils.set_seed",
    "accelerate.utils.set_seed", "accelerate.utils.random.set_seed",
    "monai.utils.set_determinism", "monai.utils.misc.set_determinism",
})
"""Library helpers that seed torch, NumPy and random together from one value."""
LIBRARY_SEED_DEFAULTS = {
    "monai.utils.set_determinism": 2**32 - 1,
    "monai.utils.misc.set_determinism": 2**32 - 1,
}
"""The seed a helper uses when the call passes none (``set_determinism()`` seeds with
``np.iinfo(np.uint32).max``); helpers not listed need a seed."""

WORKER_SEED_SOURCES = frozenset({"torch.initial_seed", "torch.random.initial_seed"})
"""Calls that return, inside a DataLoader worker, torch's per-worker per-epoch seed (up to 2**63)."""
NUMPY_STATE_GETTERS = frozenset({"numpy.random.get_state"})
WORKER_RESEEDERS = {
    "numpy.random.seed": "seed",
    "random.seed": "a",
    "torch.manual_seed": "seed",
    "torch.random.manual_seed": "seed",
}
"""Global-RNG seeding calls a worker_init_fn makes, with the keyword of the seed argument."""
NUMPY_SEED_BELOW_2_32 = {
    "numpy.random.seed": "seed",
    "numpy.random.RandomState": "seed",
    "numpy.random.mtrand.RandomState": "seed",
}
"""Calls whose seed must be in [0, 2**32 - 1] (NumPy's legacy seeding), with the keyword."""

PYTHON_RANDOM_DRAWS = frozenset(
    f"random.{name}"
    for name in (
        "random uniform randint randrange choice choices sample shuffle gauss normalvariate lognormvariate "
        "expovariate vonmisesvariate gammavariate betavariate paretovariate weibullvariate triangular getrandbits "
        "randbytes binomialvariate"
    ).split()
)
"""Module-level functions of ``random`` that draw from its global generator."""

TORCH_GLOBAL_DRAWS = frozenset(
    f"torch.{name}"
    for name in "rand rand_like randn randn_like randint randint_like randperm normal bernoulli multinomial poisson".split()
)
"""torch functions that draw from torch's global generator when no ``generator=`` is passed."""

TORCH_RANDOM_TRANSFORM_PREFIXES = ("torchvision.transforms.Random", "torchvision.transforms.v2.Random")
"""torchvision's random transforms, which draw from torch's global generator."""

NUMPY, PYTHON_RANDOM, TORCH, RNG_OBJECT = "numpy", "random", "torch", "object"
STREAM_NAMES = {NUMPY: "NumPy's global RNG", PYTHON_RANDOM: "Python's `random`", TORCH: "torch's global RNG"}


def global_stream(qualified: str) -> str:
    """The process-wide RNG a library call draws from, or ""."""
    if qualified in NUMPY_LEGACY_DRAWS:
        return NUMPY
    if qualified in PYTHON_RANDOM_DRAWS:
        return PYTHON_RANDOM
    if qualified in TORCH_GLOBAL_DRAWS or qualified.startswith(TORCH_RANDOM_TRANSFORM_PREFIXES):
        return TORCH
    return ""
