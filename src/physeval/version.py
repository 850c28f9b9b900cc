"""The package version, importable without importing anything else of physeval."""

__version__ = "0.1.0"
