"""What settings are called: the error that names a setting, its command-line spelling and
the keyword aliases (old or Flink-API spellings read as the one name)."""
from __future__ import annotations

#: keyword aliases: old or Flink-API spelling -> the one name
ALIASES = {
    "generator": "strategy",
    "watermark_strategy": "strategy",
    "parallelism": "source_parallelism",
    "idle_timeout": "idleness",
    "allowed_lateness": "lateness",
    "max_out_of_orderness": "delay",
    "lag": "delay",
    "assigner": "window",
    "auto_watermark_interval": "interval",
    "initial_delay": "delay",
}


class SettingError(ValueError):
    """A setting the user gave is wrong; ``setting`` is its name (``delay``, ``window`` ...).

    The message is written with the name as the user spelled it: the Python keyword, or the
    command-line option when the command line parsed it (``label``)."""

    def __init__(self, setting: str, message: str) -> None:
        super().__init__(message)
        self.setting = setting


def cli_option(name: str) -> str:
    """The command-line spelling of a setting (``second_lateness`` -> ``--second-lateness``)."""
    return "--" + name.replace("_", "-")



__all__ = ["ALIASES", "SettingError", "cli_option"]
