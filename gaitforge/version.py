"""The package version (its own module, so that modules needing it import no API)."""

__version__ = "0.1.0"
