"""Reading a sweep: the Pareto frontier of latency against completeness, and a recommendation."""
from __future__ import annotations

import math
from typing import Any

import pandas as pd

from toolkit.durations import readable
from toolkit.semantics import get
from toolkit.settings import CONFIG_COLUMNS, Setting, SettingError
from toolkit.sweeps.variants import INCIDENT_COLUMN, RECORDED


def frontier(results: pd.DataFrame, *, latency: str = "latency_p99_ms", completeness: str = "completeness_first",
             incident: str = RECORDED) -> pd.DataFrame:
    """Configurations not dominated by another (lower or equal latency and higher or equal
    completeness, one of them strictly), sorted by latency. Rows without a latency are skipped.
    A sweep with incidents (an ``incident`` column) has one frontier per variant: ``incident``
    chooses it (default the recorded log; an incident's spelling for a bad day's)."""
    if latency not in results or completeness not in results:
        raise ValueError(f"results need columns {latency!r} and {completeness!r}")
    if INCIDENT_COLUMN in results:
        labels = list(dict.fromkeys(results[INCIDENT_COLUMN].astype(str)))
        if str(incident) not in labels:
            raise ValueError(f"incident={incident!r}: the results' incidents are {', '.join(map(repr, labels))}")
        results = results[(results[INCIDENT_COLUMN].astype(str) == str(incident)).to_numpy()]
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
    robust: float | None = None,
    log: Any = None,
    limits: dict | None = None,
) -> dict:
    """The cheapest setting (lowest ``metric``) whose ``completeness_column`` meets the target.

    Results of a sweep with incidents (an ``incident`` column, ``toolkit.sweep(...,
    incidents=[None, ...])``): the setting is chosen on the recorded log's rows (rows of one
    variant alone, e.g. ``per="incident"``, on theirs). ``robust`` (a
    share, e.g. 0.95) asks more: the cheapest setting that meets the target on the recorded log
    *and* on at least that share of the incident variants (:func:`robust_choice`); its reason
    names the incidents that break the runner-up.

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
    the best completeness reached).

    ``log`` (a local log, the one swept): the chosen setting is replayed (``limits``: its
    ``max_windows_per_record`` / ``max_memory``) and ``latency_tail`` holds what dominates its
    latency tail (``ReplayResult.latency_tail``); when that is a structural cause (silences,
    an idle or late partition, the end of input) the reason ends with it in words."""
    if log is not None:
        rec = recommend(results, completeness, metric, completeness_column=completeness_column, per=per, robust=robust)
        for one in (rec.values() if per is not None else [rec]):
            with_latency_tail(one, log, limits)
        return rec
    if not 0.0 <= completeness <= 1.0:
        raise ValueError(f"completeness target must be in [0, 1], got {completeness}")
    if per is not None:
        return _recommend_per(results, per, completeness, metric, completeness_column, robust)
    for col in (metric, completeness_column):
        if col not in results:
            raise ValueError(f"results have no column {col!r}")
    if not len(results):
        raise ValueError("no results to choose from")
    if robust is not None or INCIDENT_COLUMN in results:
        calm, variants = split_incidents(results, robust)
        if robust is not None:
            return robust_choice(calm, variants, completeness, metric, completeness_column, robust)
        results = calm
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


def _recommend_per(results: pd.DataFrame, per: str, completeness: float, metric: str, completeness_column: str,
                   robust: float | None) -> dict:
    """``recommend(..., per=per)``: one recommendation per value of column ``per``, its reason naming it."""
    if per not in results:
        raise ValueError(f"per={per!r}: the results have no column {per!r} (choose one of "
                         f"{', '.join(c for c in CONFIG_COLUMNS if c in results)})")
    out = {}
    for value, sub in results.groupby(per, sort=False):
        rec = recommend(sub, completeness, metric, completeness_column=completeness_column, robust=robust)
        who = engine_name(value) if per == "semantics" else f"{per} {value}"
        if not rec["reason"].startswith(who):  # "Kafka Streams with a 2 s grace ..." names itself
            rec["reason"] = f"{who}: {rec['reason'][:1].lower()}{rec['reason'][1:]}"
        rec[per] = value
        out[str(value)] = rec
    return out


def with_latency_tail(rec: dict, log: Any = None, limits: dict | None = None, replay: Any = None) -> dict:
    """Add ``latency_tail`` to a recommendation and its words to the reason: ``replay``'s when it
    replayed the recommended setting, else a replay of that setting on ``log``; a Spark-backed
    log, no log or no setting leave it without."""
    setting = rec.get("setting")
    if setting is None:
        return rec
    if replay is None or str(getattr(replay, "setting", None)) != str(setting):
        if log is None or getattr(log, "is_spark", False):
            return rec
        import toolkit

        replay = toolkit.replay(log, setting, **(limits or {}))
    tail = replay.latency_tail()
    rec["latency_tail"] = tail
    if str(tail):
        rec["reason"] = f"{rec['reason']} {tail}"
    return rec


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


# -------------------------------------------------------------------------------- robust to incidents
def split_incidents(results: pd.DataFrame, robust: float | None) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(the recorded log's rows, the incident variants' rows) of a sweep with incidents; errors
    naming ``robust`` when the results cannot answer it."""
    if robust is not None and not (isinstance(robust, (int, float)) and 0.0 <= float(robust) <= 1.0):
        raise ValueError(f"robust must be a share between 0 and 1 (e.g. 0.95), got {robust!r}")
    if INCIDENT_COLUMN not in results:
        raise ValueError(f"robust={robust}: the results have no {INCIDENT_COLUMN!r} column; sweep with incidents "
                         "(toolkit.sweep(log, ..., incidents=[None, stall(...), restart(...)]), --incident SPEC)")
    labels = results[INCIDENT_COLUMN].astype(str)
    recorded = (labels == RECORDED).to_numpy()
    calm, variants = results[recorded], results[~recorded]
    if not len(calm) and robust is None and labels.nunique() == 1:
        return results, results.iloc[:0]  # one variant alone (e.g. per="incident"): read as it is
    if not len(calm):
        raise ValueError("the results have no rows of the recorded log: put None (the recorded log) among the "
                         "incidents of the sweep")
    if robust is not None and not len(variants):
        raise ValueError(f"robust={robust}: the results have only the recorded log; sweep with incidents "
                         "(incidents=[None, stall(...), ...], --incident SPEC)")
    return calm, variants


def _keys(frame: pd.DataFrame, cols: list[str]) -> pd.Series:
    """One text per row naming its configuration (the configuration columns, joined)."""
    return frame[cols].astype(str).agg("\x1f".join, axis=1) if len(frame) else pd.Series([], dtype=object)


def robust_choice(calm: pd.DataFrame, variants: pd.DataFrame, target: float, metric: str, col: str,
                  robust: float) -> dict:
    """The cheapest setting (lowest ``metric`` on the recorded log) that reaches ``target`` on the
    recorded log and on at least ``robust`` of the incident variants; ties as in
    :func:`recommend`. The runner-up is the calm-day choice when it differs, else the plain
    runner-up; the reason names the incidents under which it falls below the target."""
    for c in (metric, col):
        if c not in calm:
            raise ValueError(f"results have no column {c!r}")
    cfg = [c for c in CONFIG_COLUMNS if c in calm]
    names = list(dict.fromkeys(variants[INCIDENT_COLUMN].astype(str)))
    var_key = _keys(variants, cfg)
    calm_key = _keys(calm, cfg)
    held = (variants[col] >= target).groupby(var_key.to_numpy()).sum()
    held_n = calm_key.map(held).fillna(0).astype(int)
    need = math.ceil(robust * len(names) - 1e-9)
    plain = recommend(calm, target, metric, completeness_column=col)
    ok = calm[((calm[col] >= target) & calm[metric].notna() & (held_n >= need)).to_numpy()]
    info = {"robust": robust, "variants": len(names), "calm": plain["setting"]}
    base = dict(target=target, metric=metric, candidates=len(ok), runner_up=None, deploy={}, broken_by=[], **info)
    if not len(ok):
        return _none_robust(calm, variants, calm_key, var_key, held_n, names, target, col, robust, base)
    tie = [t for t in ("dropped", "delay_ms", "lateness_ms") if t in ok]
    ranked = ok.sort_values([metric] + tie, kind="mergesort")
    row = ranked.iloc[0]
    k = int(held_n.loc[row.name])
    mine = variants[(var_key == calm_key.loc[row.name]).to_numpy()]
    words = (f"{_cap(setting_words(row, calm))} {_keeps(row, col, calm)} on the recorded log, and "
             f"{_holds(mine, k, len(names), col, target)}; {_metric_words(metric)} {_value(metric, row[metric])} (the "
             f"lowest of the {len(ok)} of {len(calm)} settings that reach the {percent(target)} target on the recorded "
             f"log and on at least {percent(robust)} of the {len(names)} incident variant{'s' if len(names) != 1 else ''}).")
    calm_row = plain["row"] if plain["config"] is not None else None
    if calm_row is not None and calm_key.loc[calm_row.name] != calm_key.loc[row.name]:
        runner, who = calm_row, "the calm-day choice"
    else:
        runner, who = _runner_up(calm, ranked, row, metric, col), "the runner-up"
        if calm_row is not None:
            words += " The calm-day choice holds up."
    broken: list[str] = []
    if runner is not None:
        theirs = variants[(var_key == calm_key.loc[runner.name]).to_numpy()]
        text, broken = _robust_compare(runner, row, theirs, metric, col, target, calm, who)
        words += " " + text
    criterion = (f"{_describe(row)} is the lowest {metric} ({_value(metric, row[metric])}) among the {len(ok)} of "
                 f"{len(calm)} settings with {col} >= {percent(target)} on the recorded log and on at least "
                 f"{percent(robust)} of the {len(names)} incident variants (it reaches {percent(row[col])} and holds on "
                 f"{k} of {len(names)})")
    setting = _setting(row)
    deploy_code = {}
    if setting is not None:
        from toolkit.deployment import deploy, engines

        deploy_code = {name: str(deploy(setting, engine=name)) for name in engines(setting)}
    table = mine[[INCIDENT_COLUMN] + [c for c in (col, "dropped", metric) if c in mine]].reset_index(drop=True)
    return dict(base, config={c: row[c] for c in cfg}, setting=setting, row=row, reason=words, criterion=criterion,
                runner_up=runner, deploy=deploy_code, broken_by=broken, held=k, incidents=table)


def _none_robust(calm: pd.DataFrame, variants: pd.DataFrame, calm_key: pd.Series, var_key: pd.Series, held_n: pd.Series,
                 names: list[str], target: float, col: str, robust: float, base: dict) -> dict:
    """No setting is robust enough: the reason names the one that holds on the most variants."""
    order = calm.assign(_held=held_n.to_numpy()).sort_values(["_held", col], ascending=False, kind="mergesort")
    best = order.iloc[0]
    k = int(best["_held"])
    mine = variants[(var_key == calm_key.loc[best.name]).to_numpy()]
    words = (f"No setting of the {len(calm)} swept reaches the {percent(target)} target on the recorded log and on "
             f"{percent(robust)} of the {len(names)} incident variants. The most robust, {setting_words(best, calm)}, "
             f"{_keeps(best, col, calm)} on the recorded log, and {_holds(mine, k, len(names), col, target)}.")
    criterion = (f"no setting reaches {col} >= {percent(target)} on the recorded log and on {percent(robust)} of the "
                 f"{len(names)} incident variants; the most robust is {_describe(best)} ({k} of {len(names)})")
    return dict(base, config=None, setting=None, row=best, reason=words, criterion=criterion, held=k)


def incident_words(label: Any) -> str:
    """An ``incident`` cell in words (``partition 2 stalled at 0:01:00 for 2 min, ...``)."""
    from toolkit.incidents import parse_incident

    try:
        return parse_incident(str(label)).words()
    except (SettingError, ValueError):  # a hand-made label: as written
        return str(label)


def _below(rows: pd.DataFrame, col: str, target: float, limit: int = 3) -> tuple[str, list[str]]:
    """``71 % when partition 2 stalled ... and 80 % when ...``: the variants of ``rows`` below the
    target, worst first (at most ``limit`` named), and their labels."""
    low = rows[(rows[col] < target).to_numpy() | rows[col].isna().to_numpy()].sort_values(col, kind="mergesort")
    labels = [str(x) for x in low[INCIDENT_COLUMN]]
    parts = [f"{percent(v) if not pd.isna(v) else 'no result'} when {incident_words(lab)}"
             for lab, v in zip(labels[:limit], low[col].to_numpy()[:limit])]
    if len(labels) > limit:
        parts.append(f"{len(labels) - limit} more incident variant{'s' if len(labels) - limit != 1 else ''} below it")
    return "; ".join(parts), labels


def _holds(rows: pd.DataFrame, k: int, n: int, col: str, target: float) -> str:
    """``reaches it on all 2 incident variants (at worst 99.18 % when ...)`` / ``on 1 of 2 (below it: ...)``."""
    if k == n:
        worst = rows.sort_values(col, kind="mergesort").iloc[0]
        every = "the incident variant" if n == 1 else "both incident variants" if n == 2 else f"all {n} incident variants"
        return (f"reaches the target on {every} too (at worst {percent(worst[col])} when "
                f"{incident_words(worst[INCIDENT_COLUMN])})")
    text, _ = _below(rows, col, target)
    return f"reaches the target on {k} of {n} incident variants (below it: {text})"


def _robust_compare(other: pd.Series, row: pd.Series, theirs: pd.DataFrame, metric: str, col: str, target: float,
                    calm: pd.DataFrame, who: str) -> tuple[str, list[str]]:
    """The runner-up (or calm-day choice) against the robust one, in words: what it saves, what it
    keeps on the recorded log ("today") and under which incidents it falls below the target."""
    diff = differences(other, row, calm)
    what = f"{who} ({diff})" if diff else who
    d = float(row[metric]) - float(other[metric])
    cost = (f"saves {_value(metric, d)} of {_metric_words(metric)}" if d > 0 else
            f"costs {_value(metric, -d)} more {_metric_words(metric)}" if d < 0 else f"has the same {_metric_words(metric)}")
    below, labels = _below(theirs, col, target)
    text = f"{_cap(what)} {cost}"
    if float(other[col]) < target:
        text += f" but keeps only {percent(other[col])} in the first result today"
        text += f", and {below}" if labels else ""
    else:
        text += f" and keeps {percent(other[col])} today"
        text += f" but {below}" if labels else ", and on every incident variant too"
    return text + ".", labels


def setting_words(row: Any, results: pd.DataFrame | None = None) -> str:
    """A setting (a results row or :class:`Setting`) in words: ``a 2 s bounded out-of-orderness
    delay with a 5 s allowed lateness and a 2 s idle timeout``. Settings at their default are left
    out unless ``results`` swept them."""
    if isinstance(row, Setting):
        row = pd.Series(row.row())
    return _engine_of(row).setting_words(row, results)


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
    for col in ("semantics", "grace_ms", "emit", "tasks", "repartition", "retention_ms", "cache_max_bytes",
                "commit_interval_ms", "emit_interval_ms", "aggregate_bytes", "suppress_time_limit_ms",
                "suppress_max_records", "suppress_max_bytes", "suppress_when_full"):  # the engine and Kafka Streams' own
        a, b = row.get(col, None), other.get(col, None)
        if a is not None and b is not None and not (pd.isna(a) and pd.isna(b)) and str(a) != str(b):
            if col == "grace_ms":
                out.append("no grace" if pd.isna(a) or int(a) == 0 else f"{readable(int(a))} grace")
            elif col == "retention_ms":
                out.append("the default window store retention" if pd.isna(a) else
                           f"{readable(int(a))} window store retention")
            elif col.endswith("_ms"):
                out.append(f"{col[:-3].replace('_', ' ')} {'none' if pd.isna(a) else readable(int(a))}")
            else:
                out.append(f"{col.replace('_', ' ')} {a}")
    for col in ("window", "stagger", "strategy", "source_parallelism", "partitions_as_sources", "trigger", "evictor",
                "accumulation", "function", "second_window", "stages", "split_discovery"):
        if col in row and col in other and str(row[col]) != str(other[col]):
            out.append(f"{col.replace('_', ' ')} {row[col]}")
    return ", ".join(out)


def _describe(row: pd.Series) -> str:
    """The setting of a result row in the settings' own spelling (``window=tumbling:1s delay=2s ...``)."""
    try:
        return str(Setting.from_row(row))
    except ValueError:  # a hand-made results table: name what it has
        return ", ".join(f"{c} {row[c]}" for c in CONFIG_COLUMNS if c in row)
