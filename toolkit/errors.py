"""Errors that reach the user as one clear line (the CLI prints them and exits 2)."""
from __future__ import annotations


class UserError(ValueError):
    """Bad input or settings given by the user."""


class SetupError(RuntimeError):
    """The machine lacks something Watermark Lab needs (e.g. Java for Spark)."""


class MissingExtraError(SetupError, ImportError):
    """A feature's optional libraries are not installed: one line naming the extra to install
    (``pip install watermark-lab`` leaves the extras out)."""

    def __init__(self, feature: str, extra: str, missing: str | None):
        super().__init__(f"{feature} needs the {extra} extra: pip install \"watermark-lab[{extra}]\" (missing: {missing})")
        self.extra = extra
