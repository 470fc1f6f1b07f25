"""What a window operator emits: ``WindowResult`` (a firing or a retraction), ``LateRecord``
(a record sent to the late side output) and ``SideOutput`` (a value a process function sent
to a side output with ``context.output(tag, value)``); :func:`side_outputs` collects those
per tag.

Both are slotted dataclasses; two results are equal when they are of the same class and all
their fields are equal. ``repr`` leaves out ``record_ids`` when it is ``None``.
"""
from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any, ClassVar


@dataclass(slots=True, repr=False)
class WindowResult:
    """One emitted firing (``kind="fire"``) or retraction (``kind="retract"``)."""

    kind: str
    key: Any
    window: Any
    timestamp: int
    value: Any
    pane: int
    timing: str
    watermark: int
    processing_time: int
    record_ids: list | None = None

    @property
    def start(self):
        return self.window.start

    @property
    def end(self):
        return self.window.end

    @property
    def max_timestamp(self) -> int:
        return self.timestamp

    def as_dict(self) -> dict:
        return {f: getattr(self, f) for f in _RESULT_FIELDS}

    def __repr__(self) -> str:
        return ("WindowResult(kind=%r, key=%r, window=%r, timestamp=%r, value=%r, pane=%r, timing=%r, "
                "watermark=%r, processing_time=%r%s)" % (
                    self.kind, self.key, self.window, self.timestamp, self.value, self.pane, self.timing,
                    self.watermark, self.processing_time,
                    "" if self.record_ids is None else ", record_ids=%r" % (self.record_ids,)))


@dataclass(slots=True)
class LateRecord:
    """A record sent to the late side output."""

    kind: ClassVar[str] = "late"

    key: Any
    timestamp: int
    value: Any
    record_id: Any
    watermark: int
    processing_time: int

    def as_dict(self) -> dict:
        d = {f: getattr(self, f) for f in _LATE_FIELDS}
        d["kind"] = "late"
        return d


@dataclass(slots=True)
class SideOutput:
    """A value sent to the side output ``tag`` by a process function; ``timestamp`` is the
    window's max timestamp (Flink's ``Context.output``)."""

    kind: ClassVar[str] = "side"

    tag: str
    key: Any
    window: Any
    timestamp: int
    value: Any
    watermark: int
    processing_time: int

    def as_dict(self) -> dict:
        d = {f.name: getattr(self, f.name) for f in fields(self)}
        d["kind"] = "side"
        return d


def side_outputs(outputs, tag=None) -> dict | list:
    """The side-output values in ``outputs`` (an operator's emissions), per tag id in
    emission order; with ``tag`` (an id or an ``OutputTag``) only that tag's list."""
    per: dict = {}
    for o in outputs:
        if isinstance(o, SideOutput):
            per.setdefault(o.tag, []).append(o.value)
    if tag is None:
        return per
    return per.get(getattr(tag, "id", tag), [])


_RESULT_FIELDS = tuple(f.name for f in fields(WindowResult))
_LATE_FIELDS = tuple(f.name for f in fields(LateRecord))
