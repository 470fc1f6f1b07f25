"""What a Spark setting and a log become before the engine runs: the engine's configuration
(:func:`microbatch_config`), a ``dynamic_session:COLUMN`` gap column read Spark's way
(:func:`spark_gap_array`, :func:`spark_gap_column`) and the batch answer of per-record session
gaps (:func:`sessions_of_batch`). Shared by the replay, the figures and the sweep."""
from __future__ import annotations

from typing import Sequence

import numpy as np
import pandas as pd

from toolkit.engine.microbatch import MicroBatchConfig, MicroBatchConfigError
from toolkit.settings import Session, Setting, SettingError, Sliding, Tumbling


def sessions_of_batch(keys: np.ndarray, ts: np.ndarray, gap) -> tuple[pd.DataFrame, int]:
    """The batch answer with per-record gaps: (sessions of every row that has one, merged as one
    batch would merge them; number of such rows)."""
    from toolkit.engine.microbatch.batches import Batches
    from toolkit.engine.microbatch.run import _codes
    from toolkit.engine.microbatch.sessions import aggregate_sessions

    n = len(ts)
    uniq, kc = _codes(np.asarray(keys))
    one = Batches(np.zeros(1, np.int64), np.zeros(1, np.int64), np.zeros(1, np.int64), np.ones(1, bool),
                  np.zeros(1, np.int64))
    _, _, _, table, _, has = aggregate_sessions(kc, ts, gap, np.ones(n, np.int64), np.zeros(n, np.int64), one)
    truth = pd.DataFrame({"key": uniq[table["key"]], "window_start": table["start"], "window_end": table["end"],
                          "true_count": table["count"]})
    return truth, int(has.sum())


def spark_gap_array(values, column: str, rows=None, *, option: str = "window") -> np.ndarray:
    """A ``dynamic_session:COLUMN`` gap column as Spark's ``session_window(ts, gap_column)`` reads
    it, as int64 ms: null (None/NaN) becomes 0, and 0 or a negative gap stays as it is; all three
    put the row in no session (rule 11 of docs/spark_semantics.md: Spark filters such a row out,
    it is not late). A gap that is not a whole number of milliseconds (text, a fraction, a bool,
    beyond int64) is a ``SettingError`` naming ``option``, the column, how many rows and the
    first one (``rows``: the log's row numbers)."""
    v = pd.Series(values)
    n = len(v)
    null = v.isna().to_numpy()
    if pd.api.types.is_bool_dtype(v.dtype):
        num = pd.Series(np.full(n, np.nan))
    elif pd.api.types.is_numeric_dtype(v.dtype):
        num = v
    else:
        num = pd.to_numeric(v, errors="coerce")
    if pd.api.types.is_integer_dtype(num.dtype):
        ints = num.to_numpy(dtype=np.int64, na_value=0)
        bad = np.zeros(n, dtype=bool)
    else:
        f = num.to_numpy(dtype=np.float64, na_value=np.nan)
        with np.errstate(invalid="ignore"):
            bad = ~null & (~np.isfinite(f) | (np.floor(f) != f) | (np.abs(f) >= 2.0**63))
        ints = np.where(null | bad, 0, np.nan_to_num(f)).astype(np.int64)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        row = int(rows[i]) if rows is not None else i
        raw = v.iat[i]
        raw = raw.item() if isinstance(raw, np.generic) else raw
        raise SettingError(option, f"{option} dynamic_session:{column}: {int(bad.sum()):,} of {n:,} records have a gap "
                           f"that is not a whole number of milliseconds (first: row {row}, {column} = {raw!r}); "
                           "semantics='spark' reads it as session_window(ts, concat(gap, ' milliseconds')): give "
                           "integers (null, 0 or a negative gap puts the row in no session, as in Spark)")
    return ints


def spark_gap_column(table: pd.DataFrame, column: str, *, option: str = "window") -> np.ndarray:
    """``table[column]`` as :func:`spark_gap_array` reads it; a missing column is a
    ``SettingError`` that says how to keep it at loading."""
    if column not in table.columns:
        raise SettingError(option, f"{option} dynamic_session:{column}: the log has no column {column!r}; load it with "
                           f"toolkit.load_log(..., keep=[{column!r}]) (the command line keeps it by itself)")
    return spark_gap_array(table[column].to_numpy(), column, table["row"].to_numpy() if "row" in table else None,
                           option=option)


def microbatch_config(s: Setting, sources: Sequence[int] | None = None) -> MicroBatchConfig:
    """The engine's ``MicroBatchConfig`` of a ``semantics="spark"`` setting.

    ``sources``: with ``partitions_as_sources``, the partitions that are Spark inputs, including
    any that never deliver a valid row (Spark: such an input proposes 0, so the ``min`` policy
    holds the watermark at 1970 for the whole run; ``corner_never_speaks_*`` fixtures); ``None``:
    the partitions that have valid rows."""
    w = s.window
    kind = "tumbling" if isinstance(w, Tumbling) else "sliding" if isinstance(w, Sliding) else "session"
    try:
        return MicroBatchConfig(
            window_kind=kind, size=getattr(w, "size", 0), slide=getattr(w, "slide", getattr(w, "size", 0)),
            gap=w.gap if isinstance(w, Session) else 0,  # dynamic_session: run_microbatch(gap=per record)
            offset=getattr(w, "offset", 0), delay=s.delay, trigger_interval=s.trigger_interval,
            output_mode=s.output_mode, partitions_as_sources=s.partitions_as_sources,
            multiple_watermark_policy=s.multiple_watermark_policy,
            sources=tuple(int(p) for p in sources) if (sources is not None and s.partitions_as_sources) else None)
    except MicroBatchConfigError as exc:
        name, _, msg = str(exc).partition(":")
        raise SettingError(name.strip(), str(exc)) from None
