"""What seedlint knows about libraries' random number generators, as data.

``library_rngs`` lists the RNGs that augmentation and data libraries keep for the user
(imgaug's global RNG, MONAI's ``Randomizable.R``, albumentations' per-object generators):
which objects draw from them, whether torch's per-worker seeding covers them, and how a
worker reseeds them. ``global_draws`` lists library calls that draw from a process-wide
RNG (NumPy's legacy global RNG, Python's ``random``, torch's). Rules read both; adding a
library is one entry here plus fixtures.
"""
