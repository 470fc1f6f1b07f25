"""Splits registered and removed at runtime in the source model (``SourceSubtask``).

The multiplexer's own register/unregister rules are checked against real Flink by the
multiplexer fixtures (``tests/fixtures/multiplexer``, scenarios with ``register`` and
``unregister`` steps); here: when the source model registers and removes splits."""
from __future__ import annotations

import numpy as np
import pytest

from toolkit.engine.flink.sources import SourceSubtask
from toolkit.engine.flink.watermarks import MIN_WATERMARK, BoundedOutOfOrderness


def _subtask(discovery, partitions=(0, 1)):
    out = []
    st = SourceSubtask(0, list(partitions), BoundedOutOfOrderness(0), lambda k, v: out.append((k, v)),
                       discovery=discovery)
    return st, out


def test_at_start_a_partition_without_records_holds_the_watermark_back():
    st, out = _subtask("at_start")
    st.on_event(0, 100, 1)
    st.on_periodic_emit(2)
    assert out == [] and st.combined == MIN_WATERMARK    # partition 1 is registered, at MIN
    st.on_event(1, 50, 3)
    st.on_periodic_emit(4)
    assert out == [("watermark", 49)]


def test_at_first_record_a_late_partition_holds_nothing_back_until_it_appears():
    st, out = _subtask("at_first_record")
    assert st.mux.states == {}
    st.on_event(0, 100, 1)
    st.on_periodic_emit(2)
    assert out == [("watermark", 99)]
    st.on_event(1, 50, 3)             # registered now, at MIN: the combined watermark waits
    st.on_periodic_emit(4)
    assert out == [("watermark", 99)] and sorted(st.mux.states) == [0, 1]
    st.on_event(1, 150, 5)
    st.on_event(0, 200, 5)
    st.on_periodic_emit(6)
    assert out[-1] == ("watermark", 149)


def test_at_first_record_with_batched_events():
    st, out = _subtask("at_first_record")
    st.on_events(1, np.array([10, 30]), np.array([1, 1]))
    st.on_periodic_emit(2)
    assert out == [("watermark", 29)]


def test_removing_a_finished_split_releases_the_others():
    """As multiplexer fixture m03: unregistering the split that holds the minimum lets the
    next combining call emit the others' minimum."""
    st, out = _subtask("at_start")
    st.on_event(0, 100, 1)
    st.on_event(1, 10, 1)
    st.on_periodic_emit(2)
    assert out == [("watermark", 9)]
    assert st.remove_split(1) is True
    assert out == [("watermark", 9)]         # nothing emitted by the removal itself
    st.on_periodic_emit(3)
    assert out[-1] == ("watermark", 99)
    assert st.remove_split(1) is False


def test_a_record_of_an_unknown_partition_is_an_error_when_splits_are_fixed_at_start():
    st, _ = _subtask("at_start")
    with pytest.raises(ValueError, match="partition 7 is not a split"):
        st.on_event(7, 1, 1)


def test_bad_discovery_names_the_choices():
    with pytest.raises(ValueError, match="at_start.*at_first_record"):
        _subtask("lazy")
