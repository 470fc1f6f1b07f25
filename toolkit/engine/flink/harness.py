"""A test harness in the spirit of Flink's ``KeyedOneInputStreamOperatorTestHarness``.

    h = WindowOperatorTestHarness(WindowOperator(TumblingEventTimeWindows(3)))
    h.process_element("a", 14, 1)
    h.process_watermark(13)
    h.end_input()
    h.output          # every WindowResult / LateRecord so far, in emission order
    h.num_event_time_timers(), h.num_processing_time_timers(), h.num_keyed_state_entries()

Works with every operator class (``config.build_operator`` picks one).
"""
from __future__ import annotations

from .operator import WindowOperator
from .results import LateRecord, WindowResult


class WindowOperatorTestHarness:
    """Feeds one operator and collects everything it emits in ``output``."""

    def __init__(self, operator: WindowOperator):
        self.operator = operator
        self.output: list = []

    def _collect(self) -> None:
        self.output.extend(self.operator.drain())

    def process_element(self, key, timestamp: int | None, value=1, record_id=None) -> None:
        """One record; ``timestamp=None`` is a record without a timestamp (general operator)."""
        self.operator.process_element(key, timestamp, value, record_id)
        self._collect()

    def process_watermark(self, watermark: int) -> None:
        self.operator.process_watermark(watermark)
        self._collect()

    def set_processing_time(self, t: int) -> None:
        self.operator.set_processing_time(t)
        self._collect()

    def end_input(self) -> None:
        self.operator.end_input()
        self._collect()

    def results(self) -> list[WindowResult]:
        return [o for o in self.output if isinstance(o, WindowResult)]

    def fired(self) -> list[WindowResult]:
        return [o for o in self.output if isinstance(o, WindowResult) and o.kind == "fire"]

    def late_records(self) -> list[LateRecord]:
        return [o for o in self.output if isinstance(o, LateRecord)]

    def clear_output(self) -> None:
        self.output.clear()

    @property
    def num_late_records_dropped(self) -> int:
        return self.operator.num_late_records_dropped

    def state_size(self) -> tuple[int, int]:
        return self.operator.state_size()

    def num_event_time_timers(self) -> int:
        """Registered event-time timers (Flink's ``numEventTimeTimers``)."""
        return self.operator.num_event_time_timers()

    def num_processing_time_timers(self) -> int:
        """Registered processing-time timers (Flink's ``numProcessingTimeTimers``)."""
        return self.operator.num_processing_time_timers()

    def num_keyed_state_entries(self) -> int:
        """Keyed state entries (Flink's ``numKeyedStateEntries``; see ``WindowOperator``)."""
        return self.operator.num_keyed_state_entries()
