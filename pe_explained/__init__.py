"""pe_explained: every positional encoding the book discusses, in numpy.

The functions follow the published formulas and the conventions of real model
code; the book's figures and tables are computed from them at build time.
"""

from .alibi import alibi_bias, alibi_slopes
from .sinusoidal import LAYOUTS, sinusoidal, sinusoidal_frequencies, sinusoidal_wavelengths

__all__ = [
    "alibi_bias",
    "alibi_slopes",
    "LAYOUTS",
    "sinusoidal",
    "sinusoidal_frequencies",
    "sinusoidal_wavelengths",
]

__version__ = "0.1.0"
