"""Errors that reach the user as one clear line (the CLI prints them and exits 2)."""
from __future__ import annotations


class UserError(ValueError):
    """Bad input or settings given by the user."""


class SetupError(RuntimeError):
    """The machine lacks something Watermark Lab needs (e.g. Java for Spark)."""
