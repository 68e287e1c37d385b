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
