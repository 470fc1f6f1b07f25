"""The Spark sweep folds state deltas per range of positions (``KIND_STATE_RANGE``) before the
per-configuration merge: the peak and the final state must be exactly those of the running sum
over every delta, however the positions are cut into ranges (hypothesis)."""
from __future__ import annotations

import numpy as np
import pandas as pd
from hypothesis import given, settings
from hypothesis import strategies as st

from toolkit.metrics.summary import KIND_STATE, merge_config, state_range_row

ROW = st.tuples(st.integers(0, 40), st.integers(-5, 5), st.integers(0, 3), st.integers(-3, 3), st.integers(-50, 50))


def _rows(items) -> pd.DataFrame:
    pos, arr, row, dw, dr = (np.array(x, dtype=np.int64) for x in zip(*items))
    n = len(pos)
    return pd.DataFrame({"config": np.zeros(n, np.int64), "kind": np.full(n, KIND_STATE, np.int64), "a": pos,
                         "b": arr, "c": row, "d": dw, "e": dr})


@settings(max_examples=200, deadline=None)
@given(st.lists(ROW, min_size=1, max_size=60), st.integers(1, 45))
def test_range_folds_give_the_running_sums_peak(items, span):
    rows = _rows(items)
    whole = merge_config(rows, start_time=0, end_time=0)
    ranges = rows["a"] // span
    folded = pd.DataFrame([{"config": 0, **state_range_row(rows[ranges == r], int(r))} for r in sorted(set(ranges))])
    parts = merge_config(folded.sample(frac=1.0, random_state=0), start_time=0, end_time=0)
    for col in ("peak_state_windows", "peak_state_records", "mean_state_windows", "mean_state_records"):
        assert parts[col] == whole[col], col


def test_rows_per_position_and_per_range_are_not_mixed():
    rows = _rows([(0, 0, 0, 1, 1)])
    folded = pd.DataFrame([{"config": 0, **state_range_row(rows, 0)}])
    try:
        merge_config(pd.concat([rows, folded]), start_time=0, end_time=0)
    except ValueError as exc:
        assert "per position and per range" in str(exc)
    else:
        raise AssertionError("mixed state rows were merged")
