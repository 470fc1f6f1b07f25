"""``MicroBatchConfig``: what a Spark Structured Streaming windowed aggregation is configured with.

The query it stands for::

    inputs (one stream, or one per partition, each .withWatermark("ts", delay), unioned)
      .groupBy(window(ts, size, slide) | session_window(ts, gap), key).agg(count, sum)
      .writeStream.outputMode(output_mode).trigger(processingTime=trigger_interval)

with ``spark.sql.streaming.multipleWatermarkPolicy = multiple_watermark_policy``. All times are
integer milliseconds. Validation happens here, once; the runtime modules trust the config.
"""
from __future__ import annotations

from dataclasses import dataclass

from toolkit.errors import UserError

WINDOW_KINDS = ("tumbling", "sliding", "session")
OUTPUT_MODES = ("append", "update", "complete")
POLICIES = ("min", "max")


class MicroBatchConfigError(UserError):
    """A micro-batch setting Spark would refuse (the message names the option)."""


@dataclass(frozen=True)
class MicroBatchConfig:
    """A validated Spark windowed-aggregation setting (times in ms).

    ``window_kind`` tumbling (``size``), sliding (``size``, ``slide``) or session (``gap``; a
    per-record gap array given to ``run_microbatch`` replaces it; ``gap=0`` then). ``offset`` is ``window()``'s
    ``startTime``: windows start at ``offset + k * slide``; Spark requires ``|offset| < slide``
    and treats a negative offset as ``offset + slide``. ``output_mode`` append, update or
    complete (complete: no late filter for ``window()``, no eviction, every window re-emitted by
    every batch; see ``aggregation``). ``sources`` lists the inputs when
    ``partitions_as_sources`` (an input that never delivers a row still holds a min-policy
    watermark at 0); ``None`` means the partitions seen in the log.
    """

    window_kind: str
    size: int = 0
    slide: int = 0
    gap: int = 0
    offset: int = 0
    delay: int = 0
    trigger_interval: int = 1000
    output_mode: str = "append"
    partitions_as_sources: bool = False
    multiple_watermark_policy: str = "min"
    sources: tuple[int, ...] | None = None

    def __post_init__(self) -> None:
        if self.window_kind not in WINDOW_KINDS:
            raise MicroBatchConfigError(f"window: unknown kind {self.window_kind!r}; Spark has {', '.join(WINDOW_KINDS)}")
        if self.window_kind == "tumbling" and self.slide in (0, None):
            object.__setattr__(self, "slide", self.size)
        if self.window_kind in ("tumbling", "sliding"):
            if self.size <= 0:
                raise MicroBatchConfigError(f"window: the size must be positive, got {self.size} ms")
            if self.slide <= 0:
                raise MicroBatchConfigError(f"window: the slide must be positive, got {self.slide} ms")
            if self.slide > self.size:
                raise MicroBatchConfigError(
                    f"window: the slide ({self.slide} ms) must not exceed the size ({self.size} ms); Spark refuses it")
            if abs(self.offset) >= self.slide:
                raise MicroBatchConfigError(
                    f"window: the window offset (Spark's startTime, {self.offset} ms) must satisfy |offset| < slide "
                    f"({self.slide} ms); Spark refuses it (DATATYPE_MISMATCH.PARAMETER_CONSTRAINT_VIOLATION)")
        elif self.offset:
            raise MicroBatchConfigError("window: session windows have no offset (session_window() has no startTime)")
        if self.window_kind == "session" and self.gap < 0:
            raise MicroBatchConfigError(f"window: the session gap must be positive, got {self.gap} ms")
        if self.delay < 0:
            raise MicroBatchConfigError(f"delay: the watermark delay must not be negative, got {self.delay} ms")
        if self.trigger_interval <= 0:
            raise MicroBatchConfigError(
                f"trigger_interval: the processing-time trigger interval must be positive, got {self.trigger_interval} ms")
        if self.output_mode not in OUTPUT_MODES:
            raise MicroBatchConfigError(
                f"output_mode: unknown output mode {self.output_mode!r}; use one of {', '.join(OUTPUT_MODES)}")
        if self.window_kind == "session" and self.output_mode == "update":
            raise MicroBatchConfigError(
                "output_mode: Spark refuses update mode for session windows "
                "(STREAMING_OUTPUT_MODE.UNSUPPORTED_OPERATION); use output_mode='append' or 'complete'")
        if self.multiple_watermark_policy not in POLICIES:
            raise MicroBatchConfigError(
                f"multiple_watermark_policy: unknown policy {self.multiple_watermark_policy!r}; use min or max")
