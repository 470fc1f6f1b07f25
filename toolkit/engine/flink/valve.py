"""Flink's ``StatusWatermarkValve``: how an operator combines its input channels' watermarks.

Rules (Flink 2.x, checked against the real class by the valve oracle):

- Each channel starts ACTIVE, aligned, at ``MIN_WATERMARK``; the valve starts ACTIVE with
  last output ``MIN_WATERMARK``.
- A watermark on an idle channel (or while the whole valve is idle) is dropped, not stored.
  A watermark ``<=`` the channel's current one is ignored. Otherwise it is stored; an
  unaligned channel becomes aligned once its watermark is ``>=`` the last output. Then the
  min over aligned channels is output if it is ``>`` the last output.
- ACTIVE -> IDLE on a channel: it is no longer aligned. If no channel is active any more:
  when this channel's watermark equals the last output, the max watermark over *all*
  channels is output (if higher), then IDLE is output. Otherwise, when this channel's
  watermark equals the last output, a new min over the aligned channels may be output.
- IDLE -> ACTIVE on a channel: aligned again if its watermark is ``>=`` the last output;
  if the valve was idle, ACTIVE is output.

:func:`min_combine` is the two-input (union/join) rule: the operator's watermark is the min
of its inputs' combined watermarks (each input having its own valve).
"""
from __future__ import annotations

from typing import Callable

from toolkit.engine.flink.watermarks import MIN_WATERMARK

# output callback: (kind, value) with kind "watermark" (value int) or "status" ("idle"|"active")
ValveOutput = Callable[[str, object], None]


class StatusWatermarkValve:
    """Combines ``channels`` inputs; calls ``output(kind, value)`` when it emits something."""

    __slots__ = ("n", "watermarks", "active", "aligned", "last_output", "idle", "output")

    def __init__(self, channels: int, output: ValveOutput | None = None) -> None:
        if channels < 1:
            raise ValueError(f"a valve needs at least one channel, got {channels}")
        self.n = channels
        self.watermarks = [MIN_WATERMARK] * channels
        self.active = [True] * channels
        self.aligned = [True] * channels
        self.last_output = MIN_WATERMARK
        self.idle = False
        self.output: ValveOutput = output or (lambda kind, value: None)

    def _emit_min_aligned(self) -> None:
        lowest = None
        for c in range(self.n):
            if self.aligned[c] and (lowest is None or self.watermarks[c] < lowest):
                lowest = self.watermarks[c]
        if lowest is not None and lowest > self.last_output:
            self.last_output = lowest
            self.output("watermark", lowest)

    def input_watermark(self, channel: int, watermark: int) -> None:
        if self.idle or not self.active[channel]:
            return
        if watermark <= self.watermarks[channel]:
            return
        self.watermarks[channel] = watermark
        if not self.aligned[channel] and watermark >= self.last_output:
            self.aligned[channel] = True
        self._emit_min_aligned()

    def input_status(self, channel: int, status: str) -> None:
        if status == "idle":
            if not self.active[channel]:
                return
            self.active[channel] = False
            self.aligned[channel] = False
            if not any(self.active):
                if self.watermarks[channel] == self.last_output:
                    highest = max(self.watermarks)
                    if highest > self.last_output:
                        self.last_output = highest
                        self.output("watermark", highest)
                self.idle = True
                self.output("status", "idle")
            elif self.watermarks[channel] == self.last_output:
                self._emit_min_aligned()
        elif status == "active":
            if self.active[channel]:
                return
            self.active[channel] = True
            if self.watermarks[channel] >= self.last_output:
                self.aligned[channel] = True
            if self.idle:
                self.idle = False
                self.output("status", "active")
        else:
            raise ValueError(f"status must be 'idle' or 'active', got {status!r}")

    def channel_input(self, channel: int) -> Callable[[str, object], None]:
        """A downstream callback (as sources use) feeding this channel."""

        def feed(kind: str, value: object) -> None:
            if kind == "watermark":
                self.input_watermark(channel, value)  # type: ignore[arg-type]
            else:
                self.input_status(channel, value)  # type: ignore[arg-type]

        return feed


def min_combine(*input_watermarks: int) -> int:
    """Two-input operators (union/join): the operator watermark is the min over its inputs."""
    return min(input_watermarks)


class TwoInputValves:
    """A two-input operator's watermark (Flink ``IndexedCombinedWatermarkStatus``): one valve per
    input; the operator watermark is the min over the inputs that are not idle, and only
    increases; when both inputs are idle it is the max over both (Flink 2.3's
    ``CombinedWatermarkStatus.updateCombinedWatermark``, as the source multiplexer; checked by
    the interval-join oracle, tests/fixtures/interval_join/ij07_both_idle)."""

    def __init__(self, channels1: int, channels2: int, output: ValveOutput | None = None) -> None:
        self.output: ValveOutput = output or (lambda kind, value: None)
        self.inputs = [MIN_WATERMARK, MIN_WATERMARK]
        self.input_idle = [False, False]
        self.current = MIN_WATERMARK
        self.valves = [
            StatusWatermarkValve(channels1, self._feed(0)),
            StatusWatermarkValve(channels2, self._feed(1)),
        ]

    def _update(self) -> None:
        live = [w for w, idle in zip(self.inputs, self.input_idle) if not idle]
        w = min_combine(*live) if live else max(self.inputs)
        if w > self.current:
            self.current = w
            self.output("watermark", w)

    def feed(self, i: int, kind: str, value: object) -> None:
        """What input ``i``'s valve output (0 first input, 1 second): ``("watermark", w)`` or
        ``("status", "idle" | "active")`` (when the inputs' valves are run elsewhere)."""
        self._feed(i)(kind, value)

    def _feed(self, i: int) -> ValveOutput:
        def f(kind: str, value: object) -> None:
            if kind == "watermark":
                self.inputs[i] = value  # type: ignore[assignment]
            else:
                self.input_idle[i] = value == "idle"
            self._update()

        return f
