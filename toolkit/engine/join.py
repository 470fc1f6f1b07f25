"""A windowed join of two inputs by key, Flink's ``a.join(b).where(k).equalTo(k).window(W)``.

Flink builds it (``CoGroupedStreams.WithWindow.apply``, checked on Flink 2.3.0's classes) as
``a.map(Input1Tagger).union(b.map(Input2Tagger)).keyBy(key).window(W).apply(CoGroupWindowFunction)``:
one window operator over the union of both inputs, so its watermark comes through **one**
``StatusWatermarkValve`` whose channels are the upstream subtasks of both inputs, and the
window keeps every element (a full-state window function). A join emits one result per pair
(one element of each input) of a key and window; :class:`JoinCount` emits, per firing, the
counts behind those pairs. Elements are ``(side, value)`` with side 0 (first input) or 1.
"""
from __future__ import annotations

from typing import Any, NamedTuple

from toolkit.engine.functions import ProcessWindowFunction


class JoinCountResult(NamedTuple):
    """One firing of a windowed join: ``pairs`` = ``left * right`` (what ``join`` emits, one
    row per pair), ``count``/``sum`` over the elements of both inputs."""

    count: int
    sum: Any
    left: int
    right: int
    pairs: int


class JoinCount(ProcessWindowFunction):
    """Per key and window: elements of each input and the number of joined pairs."""

    def process(self, key: Any, context: Any, elements: list) -> JoinCountResult:
        left = right = 0
        total: Any = 0
        for side, value in elements:
            if side == 0:
                left += 1
            else:
                right += 1
            total += value
        return JoinCountResult(left + right, total, left, right, left * right)


__all__ = ["JoinCount", "JoinCountResult"]
