"""Subcommands of ``python -m toolkit``: one module each, with ``register(subparsers)``."""
