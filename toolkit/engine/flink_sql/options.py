"""The Flink SQL table options the simulator reads, parsed and checked; a bad value is an
error naming the option."""
from __future__ import annotations

from dataclasses import dataclass

UNITS = {"ms": 1, "s": 1000, "min": 60_000}


def duration_ms(text: object, option: str) -> int:
    """A duration option written ``"<n> ms"``, ``"<n> s"`` or ``"<n> min"``, in integer ms."""
    parts = str(text).split()
    if len(parts) != 2 or not parts[0].isdigit() or parts[1] not in UNITS:
        raise ValueError(f"{option} must be written '<n> ms', '<n> s' or '<n> min', got {text!r}")
    return int(parts[0]) * UNITS[parts[1]]


def flag(options: dict, option: str) -> bool:
    """A boolean option (absent: false)."""
    value = str(options.get(option, "false")).lower()
    if value not in ("true", "false"):
        raise ValueError(f"{option} must be true or false, got {options[option]!r}")
    return value == "true"


@dataclass(frozen=True)
class EmitOptions:
    """``table.exec.emit.*`` of the legacy group window: early and late firing on every record
    (delay 0) and the allowed lateness."""

    early: bool = False
    late: bool = False
    lateness: int = 0

    @property
    def any(self) -> bool:
        return self.early or self.late or self.lateness > 0


def _every_record(options: dict, which: str) -> bool:
    enabled = flag(options, f"table.exec.emit.{which}-fire.enabled")
    delay_option = f"table.exec.emit.{which}-fire.delay"
    if not enabled:
        return False
    if delay_option not in options:
        raise ValueError(f"table.exec.emit.{which}-fire.enabled needs {delay_option}")
    if duration_ms(options[delay_option], delay_option) != 0:
        raise ValueError(f"{delay_option} above 0 fires on processing time, which is not simulated; use 0 ms")
    return True


def emit_options(options: dict) -> EmitOptions:
    """The emit options of a scenario's table options."""
    lateness = options.get("table.exec.emit.allow-lateness")
    return EmitOptions(
        early=_every_record(options, "early"),
        late=_every_record(options, "late"),
        lateness=0 if lateness is None else duration_ms(lateness, "table.exec.emit.allow-lateness"),
    )
