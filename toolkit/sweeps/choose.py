"""Reading a sweep: the Pareto frontier of latency against completeness, and a recommendation."""
from __future__ import annotations

import pandas as pd

from toolkit.settings import CONFIG_COLUMNS, Setting


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


def recommend(
    results: pd.DataFrame,
    completeness: float = 0.99,
    metric: str = "latency_p99_ms",
    *,
    completeness_column: str = "completeness_first",
) -> dict:
    """The cheapest setting (lowest ``metric``) whose ``completeness_column`` meets the target.

    Returns ``{"config": {...}, "setting": Setting, "row": Series, "reason": str}`` (``setting``
    replays with ``toolkit.replay(log, **setting_kwargs)`` or ``toolkit.replay(log, setting)``); ``config`` is None when no
    setting meets the target (the reason then names the best completeness reached)."""
    if not 0.0 <= completeness <= 1.0:
        raise ValueError(f"completeness target must be in [0, 1], got {completeness}")
    for col in (metric, completeness_column):
        if col not in results:
            raise ValueError(f"results have no column {col!r}")
    if not len(results):
        raise ValueError("no results to choose from")
    ok = results[(results[completeness_column] >= completeness) & results[metric].notna()]
    cfg_cols = [c for c in CONFIG_COLUMNS if c in results]
    if not len(ok):
        best = results.sort_values(completeness_column, ascending=False, kind="mergesort").iloc[0]
        return {
            "config": None,
            "setting": None,
            "row": best,
            "reason": (
                f"no setting reaches {completeness_column} >= {completeness:.4g}; the best is "
                f"{best[completeness_column]:.4g} with {_describe(best)}: raise the delay or the allowed lateness"
            ),
        }
    tie = ["dropped", "delay_ms", "lateness_ms"]
    tie = [t for t in tie if t in ok]
    row = ok.sort_values([metric] + tie, kind="mergesort").iloc[0]
    reason = (
        f"{_describe(row)} is the lowest {metric} ({row[metric]:.6g}) among the {len(ok)} of {len(results)} "
        f"settings with {completeness_column} >= {completeness:.4g} (it reaches {row[completeness_column]:.4g}"
        + (f", drops {int(row['dropped'])} record{'s' if int(row['dropped']) != 1 else ''}" if "dropped" in row else "")
        + ")"
    )
    return {"config": {c: row[c] for c in cfg_cols}, "setting": Setting.from_row(row), "row": row, "reason": reason}


def _describe(row: pd.Series) -> str:
    """The setting of a result row in the settings' own spelling (``window=tumbling:1s delay=2s ...``)."""
    try:
        return str(Setting.from_row(row))
    except ValueError:  # a hand-made results table: name what it has
        return ", ".join(f"{c} {row[c]}" for c in CONFIG_COLUMNS if c in row)
