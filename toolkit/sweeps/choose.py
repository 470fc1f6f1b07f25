"""Reading a sweep: the Pareto frontier of latency against completeness, and a recommendation."""
from __future__ import annotations

from typing import Any

import pandas as pd

from toolkit.durations import readable
from toolkit.semantics import get
from toolkit.settings import CONFIG_COLUMNS, Setting, SettingError, parse_window


def frontier(results: pd.DataFrame, *, latency: str = "latency_p99_ms", completeness: str = "completeness_first") -> pd.DataFrame:
    """Configurations not dominated by another (lower or equal latency and higher or equal
    completeness, one of them strictly), sorted by latency. Rows without a latency are skipped."""
    if latency not in results or completeness not in results:
        raise ValueError(f"results need columns {latency!r} and {completeness!r}")
    r = results[results[latency].notna()].copy()
    r = r.sort_values([latency, completeness], ascending=[True, False], kind="mergesort")
    keep = []
    best = -1.0
    for idx, c in zip(r.index, r[completeness].to_numpy()):
        if c > best:
            keep.append(idx)
            best = c
    return r.loc[keep]


METRIC_WORDS = {
    "latency_p50_ms": "median result latency", "latency_p95_ms": "p95 result latency",
    "latency_p99_ms": "p99 result latency", "latency_max_ms": "maximum result latency",
    "peak_state_records": "peak buffered records", "peak_state_windows": "peak open windows",
    "mean_state_records": "mean buffered records", "mean_state_windows": "mean open windows",
    "dropped": "dropped records", "firings": "firings", "late_firings": "late firings",
}
"""How a recommendation names the figure it minimizes."""


#: the engine of a results row without a ``semantics`` column (a setting's default)
DEFAULT_SEMANTICS = Setting.__dataclass_fields__["semantics"].default


def engine_name(semantics: Any) -> str:
    """How words name an engine (its registered ``title``; the key itself when unknown)."""
    try:
        return get(str(semantics)).title
    except SettingError:
        return str(semantics)


def _engine_of(row: Any) -> Any:
    """The registered engine of a results row (a row without one, or with a missing value: the default)."""
    name = row.get("semantics", DEFAULT_SEMANTICS)
    if name is None or (isinstance(name, float) and pd.isna(name)) or str(name) in ("nan", "none"):
        name = DEFAULT_SEMANTICS
    return get(str(name))


def recommend(
    results: pd.DataFrame,
    completeness: float = 0.99,
    metric: str = "latency_p99_ms",
    *,
    completeness_column: str = "completeness_first",
    per: str | None = None,
) -> dict:
    """The cheapest setting (lowest ``metric``) whose ``completeness_column`` meets the target.

    ``per="semantics"`` (or any configuration column) answers once for each of its values: a
    dict ``{value: recommendation}`` in the order the results first show them, each chosen
    among that value's rows only, its ``reason`` starting with the engine's name and its
    ``deploy`` holding that engine's code (a multi-engine sweep gets one answer per engine).

    Ties go to fewer drops, then the smaller delay and lateness. Returns a dict:

    - ``reason``: the answer in words and units ("a 2 s bounded out-of-orderness delay with a
      5 s allowed lateness ... keeps 99.07 % of records in the first result; p99 result latency
      4.1 s; the runner-up ..."); ``criterion``: the rule that chose it, in column names with readable values;
    - ``setting`` (a :class:`Setting`: ``toolkit.replay(log, setting)``, ``toolkit.deploy(setting)``),
      ``config`` (its configuration columns), ``row`` (its results row);
    - ``runner_up``: the row the text compares with (the frontier setting just cheaper than the
      chosen one, else the next cheapest that meets the target; None when there is none);
    - ``target``, ``metric``, ``candidates`` (rows meeting the target), ``deploy`` (engine -> code).

    ``config`` and ``setting`` are None when no setting meets the target (the reason then names
    the best completeness reached)."""
    if not 0.0 <= completeness <= 1.0:
        raise ValueError(f"completeness target must be in [0, 1], got {completeness}")
    if per is not None:
        if per not in results:
            raise ValueError(f"per={per!r}: the results have no column {per!r} (choose one of "
                             f"{', '.join(c for c in CONFIG_COLUMNS if c in results)})")
        out = {}
        for value, sub in results.groupby(per, sort=False):
            rec = recommend(sub, completeness, metric, completeness_column=completeness_column)
            who = engine_name(value) if per == "semantics" else f"{per} {value}"
            if not rec["reason"].startswith(who):  # "Kafka Streams with a 2 s grace ..." names itself
                rec["reason"] = f"{who}: {rec['reason'][:1].lower()}{rec['reason'][1:]}"
            rec[per] = value
            out[str(value)] = rec
        return out
    for col in (metric, completeness_column):
        if col not in results:
            raise ValueError(f"results have no column {col!r}")
    if not len(results):
        raise ValueError("no results to choose from")
    ok = results[(results[completeness_column] >= completeness) & results[metric].notna()]
    cfg_cols = [c for c in CONFIG_COLUMNS if c in results]
    base = {"target": completeness, "metric": metric, "candidates": len(ok), "runner_up": None, "deploy": {}}
    if not len(ok):
        best = results.sort_values(completeness_column, ascending=False, kind="mergesort").iloc[0]
        criterion = (f"no setting reaches {completeness_column} >= {percent(completeness)}; the best is "
                     f"{percent(best[completeness_column])} with {_describe(best)}")
        words = (f"No setting of the {len(results)} swept reaches the {percent(completeness)} target. The best, "
                 f"{setting_words(best, results)}, {_keeps(best, completeness_column, results)}: raise the "
                 f"{_engine_of(best).delay_setting}"
                 + (" or the allowed lateness." if "lateness" in _engine_of(best).shared else "."))
        return dict(base, config=None, setting=None, row=best, reason=words, criterion=criterion)
    tie = ["dropped", "delay_ms", "lateness_ms"]
    tie = [t for t in tie if t in ok]
    ranked = ok.sort_values([metric] + tie, kind="mergesort")
    row = ranked.iloc[0]
    criterion = (
        f"{_describe(row)} is the lowest {metric} ({_value(metric, row[metric])}) among the {len(ok)} of "
        f"{len(results)} settings with {completeness_column} >= {percent(completeness)} (it reaches "
        f"{percent(row[completeness_column])}"
        + (f", drops {int(row['dropped'])} record{'s' if int(row['dropped']) != 1 else ''}" if "dropped" in row else "")
        + ")"
    )
    runner = _runner_up(results, ranked, row, metric, completeness_column)
    setting = _setting(row)
    words = (f"{_cap(setting_words(row, results))} {_keeps(row, completeness_column, results)}; "
             f"{_metric_words(metric)} {_value(metric, row[metric])} (the lowest of the {len(ok)} of "
             f"{len(results)} settings that reach the {percent(completeness)} target).")
    if runner is not None:
        words += " " + _compare(runner, row, metric, completeness_column, completeness, results)
    deploy_code = {}
    if setting is not None:
        from toolkit.deployment import deploy, engines

        deploy_code = {name: str(deploy(setting, engine=name)) for name in engines(setting)}
    return dict(base, config={c: row[c] for c in cfg_cols}, setting=setting, row=row, reason=words,
                criterion=criterion, runner_up=runner, deploy=deploy_code)


def _setting(row: pd.Series) -> Setting | None:
    try:
        return Setting.from_row(row)
    except ValueError:  # a hand-made results table without every column
        return None


def _runner_up(results: pd.DataFrame, ranked: pd.DataFrame, row: pd.Series, metric: str,
               completeness_column: str) -> pd.Series | None:
    """The frontier setting just cheaper than ``row`` (what the target costs), else the next
    cheapest setting that meets the target."""
    cheaper = results[results[metric].notna() & (results[metric] < row[metric])]
    if len(cheaper):
        best = cheaper.sort_values([completeness_column, metric], ascending=[False, True], kind="mergesort")
        return best.iloc[0]
    others = ranked[ranked.index != row.name]
    return others.iloc[0] if len(others) else None


def percent(x: float) -> str:
    """A share as a percentage, 2 decimals (trailing zeros dropped), more digits when needed so
    that it is read neither as 100 % nor as 0 % when it is not: ``99.07 %``, ``99.997 %``, ``0.0033 %``."""
    x = float(x) * 100
    text = f"{x:.2f}"
    if x != 0 and float(text) == 0:
        text = f"{x:.2g}" if x >= 1e-4 else f"{x:.2e}"
    for digits in range(3, 9):
        if float(text) != 100.0 or x == 100.0:
            break
        text = f"{x:.{digits}f}"
    if "." in text and "e" not in text:
        text = text.rstrip("0").rstrip(".")
    return f"{text} %"


def _value(name: str, v: float) -> str:
    return readable(v) if name.endswith("_ms") else f"{v:,.4g}" if isinstance(v, float) else f"{int(v):,}"


def _metric_words(metric: str) -> str:
    return METRIC_WORDS.get(metric, metric)


def _cap(text: str) -> str:
    return text[:1].upper() + text[1:]


def _unit(results: pd.DataFrame | None, row: pd.Series) -> str:
    """What completeness counts: records (tumbling, session) or record-window pairs (sliding)."""
    window = str(row.get("window", ""))
    return "record-window pairs" if window.startswith("sliding") else "records"


def _keeps(row: pd.Series, col: str, results: pd.DataFrame | None) -> str:
    """``keeps 99.07 % of records in the first result (99.997 % in the final one) and drops 1 record (0.003 %)``."""
    unit = _unit(results, row)
    if col == "completeness_first":
        text = f"keeps {percent(row[col])} of {unit} in the first result"
        if "completeness_final" in row and not pd.isna(row["completeness_final"]):
            text += f" ({percent(row['completeness_final'])} in the final one)"
    else:
        text = f"reaches {col.replace('_', ' ')} {percent(row[col])}"
    if "dropped" in row and not pd.isna(row["dropped"]):
        n = int(row["dropped"])
        total = int(row["records"]) if "records" in row and not pd.isna(row["records"]) else 0
        share = f" ({percent(n / total)})" if total and n else ""
        text += f" and drops {'no' if n == 0 else f'{n:,}'} record{'s' if n != 1 else ''}{share}"
    return text


def _compare(other: pd.Series, row: pd.Series, metric: str, col: str, target: float, results: pd.DataFrame) -> str:
    """The runner-up against the recommendation, in words."""
    diff = differences(other, row, results)
    what = f"the runner-up ({diff})" if diff else "the runner-up"
    d = float(row[metric]) - float(other[metric])
    if d > 0:
        cost = f"saves {_value(metric, d)} of {_metric_words(metric)}"
    elif d < 0:
        cost = f"costs {_value(metric, -d)} more {_metric_words(metric)}"
    else:
        cost = f"has the same {_metric_words(metric)}"
    text = f"{_cap(what)} {cost}"
    if float(other[col]) < target:
        text += f" but keeps only {percent(other[col])} in the first result"
    else:
        text += f" and keeps {percent(other[col])} in the first result"
    if "dropped" in other and "records" in other and int(other["records"]):
        text += f" and drops {percent(int(other['dropped']) / int(other['records']))}"
    return text + "."


# -------------------------------------------------------------------------------- settings in words
_STRATEGY_WORDS = {
    "bounded": "bounded out-of-orderness delay", "legacy": "out-of-orderness delay (legacy max - delay)",
    "time_lag": "processing-time lag", "punctuated": "punctuated watermark delay",
    "idle_advance": "idle-advance delay", "adaptive": "adaptive initial delay",
}


def _varying(results: pd.DataFrame | None, col: str) -> bool:
    return results is not None and col in results and results[col].astype(str).nunique() > 1


def setting_words(row: Any, results: pd.DataFrame | None = None) -> str:
    """A setting (a results row or :class:`Setting`) in words: ``a 2 s bounded out-of-orderness
    delay with a 5 s allowed lateness and a 2 s idle timeout``. Settings at their default are left
    out unless ``results`` swept them."""
    if isinstance(row, Setting):
        row = pd.Series(row.row())
    return _engine_of(row).setting_words(row, results)


def flink_words(row: Any, results: pd.DataFrame | None = None) -> str:
    """A Flink setting in words: the watermark strategy and delay, the allowed lateness, the idle
    timeout and interval, then the window operator's settings off their default."""
    strategy = str(row.get("strategy", "bounded"))
    name = strategy.partition("(")[0]
    delay = row.get("delay_ms", 0)
    parts = []
    if name == "monotonous":
        head = "monotonous timestamps (no out-of-orderness delay)"
    elif name in _STRATEGY_WORDS:
        head = (f"a {readable(delay)} {_STRATEGY_WORDS[name]}" if delay else f"no {_STRATEGY_WORDS[name]}")
        if strategy != name:
            head += f" ({strategy})"
    else:
        head = f"the {strategy} watermark strategy"
    lateness = row.get("lateness_ms", 0)
    parts.append(f"a {readable(lateness)} allowed lateness" if lateness else "no allowed lateness")
    idle = row.get("idleness_ms", None)
    has_idle = idle is not None and not pd.isna(idle) and int(idle) > 0
    if has_idle:
        parts.append(f"a {readable(int(idle))} idle timeout")
    elif _varying(results, "idleness_ms"):
        parts.append("no idle timeout")
    interval = row.get("interval_ms", 200)
    if (interval is not None and not pd.isna(interval) and int(interval) != 200) or _varying(results, "interval_ms"):
        parts.append("watermarks after every record" if int(interval) == 0
                     else f"watermarks every {readable(int(interval))}")
    text = head + " with " + _join(parts)
    extra = []
    window = row.get("window", None)
    try:
        window = str(parse_window(window)) if window is not None else None
    except ValueError:  # a hand-made table: show it as written
        pass
    if window is not None and (_varying(results, "window") or str(window) != "tumbling:1s"):
        extra.append(f"{window} windows")
    for col, default in (("stagger", "aligned"), ("source_parallelism", 1), ("partitions_as_sources", True), ("trigger", "event_time"),
                         ("evictor", "none"), ("accumulation", "accumulating"), ("function", "count_sum"),
                         ("second_window", "none"), ("stages", "none"), ("split_discovery", "at_start")):
        v = row.get(col, default)
        if (v is not None and not pd.isna(v) and str(v) != str(default)) or _varying(results, col):
            extra.append(f"{col.replace('_', ' ')} {v}")
    return text + (f" ({', '.join(extra)})" if extra else "")


def engine_setting_words(row: Any, results: pd.DataFrame | None, words: list[tuple[str, str]],
                         extra: list[str] | tuple = ()) -> str:
    """A setting of an engine with a watermark delay and settings of its own: the delay, then
    each of ``words`` (column, template) that the row has, then ``extra`` phrases."""
    delay = row.get("delay_ms", 0)
    head = f"a {readable(delay)} watermark delay" if delay else "no watermark delay"
    parts = []
    for col, template in words:
        v = row.get(col, None)
        if v is None or (not isinstance(v, str) and pd.isna(v)) or str(v) == "none":
            continue
        if col == "lateness_ms" and int(v) == 0:
            parts.append("no allowed lateness")
            continue
        parts.append(template.format(readable(int(v)) if col.endswith("_ms") else v))
    parts.extend(extra)
    text = head + (" with " + _join(parts) if parts else "")
    window = row.get("window", None)
    if window is not None and (_varying(results, "window") or str(window) != "tumbling:1s"):
        text += f" ({window} windows)"
    return text


_KAFKA_EMIT_WORDS = {"update": "results on every update", "final": "final results on window close (onWindowClose)",
                     "suppress": "final results through suppress(untilWindowCloses)"}


def kafka_words(row: Any, results: pd.DataFrame | None) -> str:
    """A Kafka Streams setting in words: ``Kafka Streams with a 2 s grace, final results through
    suppress(untilWindowCloses) and 4 tasks (tumbling:10s windows)``."""
    grace = row.get("grace_ms", 0)
    grace = 0 if grace is None or pd.isna(grace) else int(grace)
    parts = [f"a {readable(grace)} grace" if grace else "no grace"]
    emit = str(row.get("emit", "update"))
    parts.append(_KAFKA_EMIT_WORDS.get(emit, f"emit {emit}"))
    tasks = row.get("tasks", None)
    if tasks is not None and not pd.isna(tasks):
        parts.append(f"{int(tasks)} task{'s' if int(tasks) != 1 else ''}")
    if str(row.get("repartition", "true")) == "false":
        parts.append("co-partitioned input (task = partition)")
    retention = row.get("retention_ms", None)
    if retention is not None and not pd.isna(retention):
        parts.append(f"a {readable(int(retention))} window store retention")
    window = row.get("window", None)
    extra = f" ({window} windows)" if window is not None and (_varying(results, "window") or str(window) != "tumbling:1s") else ""
    return "Kafka Streams with " + _join(parts) + extra


def differences(row: Any, other: Any, results: pd.DataFrame | None = None) -> str:
    """``row``'s settings that differ from ``other``'s, in words: ``1 s delay, no allowed lateness``."""
    out = []
    for col, word in (("delay_ms", "delay"), ("lateness_ms", "allowed lateness"), ("idleness_ms", "idle timeout"),
                      ("interval_ms", "watermark interval")):
        a, b = row.get(col, None), other.get(col, None)
        na, nb = a is None or pd.isna(a), b is None or pd.isna(b)
        if na and nb or (not na and not nb and int(a) == int(b)):
            continue
        out.append(f"no {word}" if na or int(a) == 0 else f"{readable(int(a))} {word}")
    for col in ("semantics", "grace_ms", "emit", "tasks", "repartition", "retention_ms"):  # the engine and Kafka Streams' own
        a, b = row.get(col, None), other.get(col, None)
        if a is not None and b is not None and not (pd.isna(a) and pd.isna(b)) and str(a) != str(b):
            if col == "grace_ms":
                out.append("no grace" if pd.isna(a) or int(a) == 0 else f"{readable(int(a))} grace")
            elif col == "retention_ms":
                out.append("the default window store retention" if pd.isna(a) else
                           f"{readable(int(a))} window store retention")
            else:
                out.append(f"{col} {a}")
    for col in ("window", "stagger", "strategy", "source_parallelism", "partitions_as_sources", "trigger", "evictor",
                "accumulation", "function", "second_window", "stages", "split_discovery"):
        if col in row and col in other and str(row[col]) != str(other[col]):
            out.append(f"{col.replace('_', ' ')} {row[col]}")
    return ", ".join(out)


def _join(parts: list[str]) -> str:
    if len(parts) <= 1:
        return "".join(parts)
    return ", ".join(parts[:-1]) + " and " + parts[-1]


def _describe(row: pd.Series) -> str:
    """The setting of a result row in the settings' own spelling (``window=tumbling:1s delay=2s ...``)."""
    try:
        return str(Setting.from_row(row))
    except ValueError:  # a hand-made results table: name what it has
        return ", ".join(f"{c} {row[c]}" for c in CONFIG_COLUMNS if c in row)
