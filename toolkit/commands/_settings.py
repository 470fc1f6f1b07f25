"""The setting options shared by ``replay``, ``sweep`` and ``report`` (one vocabulary:
``toolkit.settings``), and how their values become settings.

``replay`` takes one value per option; ``sweep`` and ``report`` take lists: comma-separated
(``--delay 0,250ms,1s``), except ``--window``, ``--second-window`` and ``--evictor`` whose own
spelling has commas (``tumbling:1s,250ms``, ``count:3,after``) and ``--beam-trigger``: repeat those for several.
Values are validated before any work starts, and errors name the option as typed.
"""
from __future__ import annotations

import argparse
from typing import Any

from toolkit.settings import SettingError, cli_option, format_duration

#: the common settings' options: (name, metavar, help, repeatable) in the order --help shows them;
#: ``--semantics`` and each engine's own options follow, generated from the engines' declarations
COMMON_SETTING_OPTIONS: list[tuple[str, str, str, bool]] = [
    ("window", "WINDOW", "tumbling:SIZE[,OFFSET] | sliding:SIZE/SLIDE[,OFFSET] | session:GAP | dynamic_session:COLUMN "
     "(each record's gap in ms from that log column) | global | global_eos | kafka_sliding:DIFF (Kafka Streams' "
     "SlidingWindows) (default tumbling:1s)", True),
    ("stagger", "STAGGER", "tumbling windows: aligned | natural | random[:SEED], Flink's WindowStagger (default aligned)",
     False),
    ("trigger", "TRIGGER", "default | event_time | processing_time | count:N | continuous:5s | continuous_processing:5s | "
     "purging:<trigger> | never | end_of_stream (default: the window's own)", False),
    ("evictor", "EVICTOR", "none | count:N | time:5s, append ,after to evict after the function (default none)", True),
    ("lateness", "DURATION", "allowed lateness, e.g. 2s (default 0)", False),
    ("function", "FUNCTION", "count_sum | values (default count_sum)", False),
    ("accumulation", "MODE", "accumulating | discarding | retracting (default accumulating)", False),
    ("strategy", "STRATEGY", "watermark strategy: bounded (max - delay - 1) | legacy (max - delay) | monotonous | "
     "time_lag | punctuated | idle_advance | adaptive (default bounded)", False),
    ("delay", "DURATION", "watermark delay (max out-of-orderness; time_lag's lag; adaptive's initial delay), e.g. 500ms "
     "(default 0)", False),
    ("interval", "DURATION", "periodic watermark interval, Flink's auto-watermark-interval (default 200ms; 0 = after "
     "every record)", False),
    ("idleness", "DURATION", "idle timeout (withIdleness), e.g. 5s (default none; 0 or none = off)", False),
    ("source_parallelism", "N", "source subtasks; partition p is read by subtask p mod N (default 1)", False),
    ("split_discovery", "WHEN", "when a partition's source split is registered: at_start (every partition when the job "
     "starts, default) | at_first_record (just before its first record: Flink's dynamic split assignment, a partition "
     "holds nothing back before it appears)", False),
    ("step", "DURATION", "idle_advance: how far the watermark moves on a stalled stream", False),
    ("marker", "COLUMN", "punctuated: the boolean column that marks watermark records (default 'marker')", False),
    ("quantile", "Q", "adaptive: lateness quantile the delay follows (default 0.99)", False),
    ("quantile_window", "N", "adaptive: records the quantile looks back over (default 1000)", False),
    ("min_delay", "DURATION", "adaptive: lower bound of the delay", False),
    ("max_delay", "DURATION", "adaptive: upper bound of the delay", False),
    ("second_window", "WINDOW", "a second windowed stage fed by the first stage's results (count/sum)", True),
    ("second_lateness", "DURATION", "allowed lateness of the second stage (default 0)", False),
]


def setting_options() -> list[tuple[str, str, str, bool]]:
    """Every setting option: the common ones, ``--semantics`` (the registered engines), then each
    engine's own (``Option``: its help, prefixed by the engine's name; a duration's metavar is
    DURATION, a choice's its values; ``commas`` options are repeated, not comma-separated)."""
    from toolkit.semantics import all_semantics

    engines = all_semantics()
    names = " | ".join(e.name if e.title.lower() == e.name else f"{e.name} ({e.title})" for e in engines)
    out = list(COMMON_SETTING_OPTIONS)
    out.append(("semantics", "ENGINE", f"whose event-time semantics to replay: {names} (default {engines[0].name})",
                False))
    for e in engines:
        for o in e.options:
            out.append((o.name, _metavar(o), f"{e.name}: {o.help}{_default_text(o)}", o.commas))
    return out


def _metavar(o) -> str:
    if o.unit == "ms":
        return "DURATION"
    if o.choices:
        return "|".join(map(str, o.choices))
    return {"int": "N", "bool": "true|false"}.get(o.control, o.name.rsplit("_", 1)[-1].upper())


def _default_text(o) -> str:
    """`` (default X)`` in the command line's spelling; nothing when there is none to state."""
    if o.default is None or str(o.default) == "default":
        return ""
    if isinstance(o.default, bool):
        return f" (default {str(o.default).lower()})"
    return f" (default {format_duration(o.default).replace('0ms', '0') if o.unit == 'ms' else o.default})"


def add_setting_arguments(p: argparse.ArgumentParser, *, lists: bool) -> None:
    """Add the setting options; with ``lists`` each takes several values (a sweep)."""
    g = p.add_argument_group(
        "settings (Flink's names; each a comma-separated list, repeat --window/--evictor/--second-window for several)"
        if lists else "settings (Flink's names)")
    for name, metavar, text, repeatable in setting_options():
        flag = cli_option(name)
        if lists and repeatable:
            g.add_argument(flag, dest=name, action="append", default=None, metavar=metavar, help=text)
        else:
            g.add_argument(flag, dest=name, default=None, metavar=metavar if not lists else metavar + ",...", help=text)
    g.add_argument("--partitions-as-sources", dest="partitions_as_sources", nargs="?", const="true", default=None,
                   metavar="true,false" if lists else "true|false",
                   help="each log partition is a source split with its own watermark generator, as Flink's per-split "
                   "watermarks (default true)")
    g.add_argument("--no-partitions-as-sources", dest="partitions_as_sources", action="store_const", const="false",
                   help="one watermark generator for the whole stream")
    lim = p.add_argument_group("limits (checked before any work starts)")
    lim.add_argument("--max-windows-per-record", dest="max_windows_per_record", default=None, metavar="N",
                     help="refuse a window that assigns a record to more windows than this (default 10000)")
    lim.add_argument("--max-memory", dest="max_memory", default=None, metavar="SIZE",
                     help="refuse a run whose estimated memory exceeds this, e.g. 8GB (default: this machine's memory)")
    # old spellings, accepted but not shown
    for old, new in (("--generator", "strategy"), ("--parallelism", "source_parallelism")):
        g.add_argument(old, dest=f"_alias_{new}", default=None, help=argparse.SUPPRESS)


def given_settings(args: argparse.Namespace, *, lists: bool) -> dict[str, Any]:
    """The settings the user typed (user spellings; lists for a sweep), aliases folded in."""
    out: dict[str, Any] = {}
    options = setting_options()
    names = [n for n, *_ in options] + ["partitions_as_sources"]
    for name in names:
        v = getattr(args, name, None)
        alias = getattr(args, f"_alias_{name}", None)
        if alias is not None:
            if v is not None:
                raise SettingError(name, f"give either {cli_option(name)} or its old spelling, not both")
            v = alias
        if v is None:
            continue
        repeatable = any(n == name and r for n, _, _, r in options)
        if lists:
            items = list(v) if repeatable else [t.strip() for t in str(v).split(",")]
            if any(t == "" for t in items):
                raise SettingError(name, f"{cli_option(name)} {v!r}: an empty item in the list")
            out[name] = items if len(items) > 1 else items[0]
        else:
            out[name] = v
    return out


def columns_to_keep(settings) -> dict[str, str]:
    """Log columns the settings read beyond the canonical ones (a dynamic session's gaps, a
    punctuated strategy's marker), each with the option that names it (for errors)."""
    out: dict[str, str] = {}
    for s in settings:
        if s.gap_column is not None:
            out.setdefault(s.gap_column, f"--window {s.window}")
        marker = s.marker_source
        if isinstance(marker, str):
            out.setdefault(marker, f"--marker {marker}" if s.marker is not None else
                           f"--strategy punctuated (its marker column, default {marker!r}; name another with --marker)")
    return out


def given_limits(args: argparse.Namespace) -> dict[str, Any]:
    """The limit options the user typed, as keywords of ``replay``/``sweep`` (validated)."""
    from toolkit.settings import Limits

    out = {k: getattr(args, k, None) for k in ("max_windows_per_record", "max_memory")}
    out = {k: v for k, v in out.items() if v is not None}
    Limits.of(**out)
    return out


def cli_message(exc: SettingError) -> str:
    """The error with the setting named as its command-line option."""
    import re

    msg = str(exc)
    name = getattr(exc, "setting", None)
    if not name:
        return msg
    opt = cli_option(name)
    if opt in msg:
        return msg
    new, n = re.subn(rf"(?<![\w-]){re.escape(name)}(?![\w-])", opt, msg, count=1)
    return new if n else f"{opt}: {msg}"
