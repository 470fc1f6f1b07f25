"""A sweep's progress bar: configurations done out of the sweep's, with the time left.

One bar serves a whole sweep (every incident variant, every batch, the sharded and the
one-piece rows, in-process or on Spark). Rule: it counts configurations (a row of the result),
never shards or Spark tasks; work inside a configuration (its shards in-process, the share of a
Spark job's tasks) moves it by fractions that are shown rounded down, so the count never claims
a configuration before it is done; a resumed sweep starts at the configurations already
written (``done``), and tqdm's time left counts only the work of this run.
"""
from __future__ import annotations

from typing import Any

#: a sweep shows its bar by default when it replays at least this many (record, configuration) pairs
LONG_SWEEP_WORK = 2_000_000


class Progress:
    """Configurations done of ``total`` (``done`` of them before this run)."""

    def __init__(self, total: int, *, done: int = 0, show: bool = False, desc: str = "sweep") -> None:
        from tqdm.auto import tqdm

        self.done = float(done)
        self.initial, self.shown, self.total = done, done, total
        self.evaluated = 0  # configurations evaluated in this run (a resumable sweep counts its batches)
        self.bar: Any = tqdm(total=total, initial=done, disable=not show, desc=desc, unit="config",
                             dynamic_ncols=True)

    def add(self, configs: float) -> None:
        """``configs`` more configurations done (a fraction: a shard of one)."""
        self.done += configs
        self._show()

    def within(self, size: int) -> "Share":
        """The part of the bar of a step that evaluates ``size`` configurations at once (a Spark
        job): moved by the share of the step done, then completed by :meth:`Share.finish`."""
        return Share(self, size)

    def _show(self) -> None:
        shown = min(int(self.done + 1e-9), self.total)
        if shown > self.shown:
            self.bar.update(shown - self.shown)
            self.shown = shown

    def close(self) -> None:
        self.bar.close()

    def __enter__(self) -> "Progress":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


class Share:
    """A step of ``size`` configurations of a :class:`Progress`, reported as a share done (0..1, never back)."""

    def __init__(self, progress: Progress, size: int) -> None:
        self.progress, self.size, self.base, self.share = progress, size, progress.done, 0.0

    def update(self, share: float) -> None:
        """The step is ``share`` done (a Spark job's tasks)."""
        self.share = max(self.share, min(1.0, share))
        self.progress.done = self.base + self.size * self.share
        self.progress._show()

    def finish(self) -> None:
        self.update(1.0)


def shown_by_default(records: int | None, configs: int) -> bool:
    """``progress=None``: a bar for a long sweep (``LONG_SWEEP_WORK`` record-configurations, or 20
    configurations of a log whose size is not known here)."""
    if records is None:
        return configs >= 20
    return records * configs > LONG_SWEEP_WORK
