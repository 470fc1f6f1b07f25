"""Beam rows of a sweep in key shards.

**Sharding by key.** Keys share one thing in Beam's GroupByKey: the step's *output* watermark,
``min(input watermark, every key's earliest hold - 1 tick)``, which decides whether an
element-fired pane is EARLY and which elements set holds. With fixed or sliding windows,
``timestamp_combiner=end_of_window`` and a trigger that fires every window at the watermark
(``default`` or ``after_watermark(...)`` without processing-time parts) no hold is ever below
the input watermark (a window's hold is its end - 1 µs, released by its watermark pane; late
data sets none), so the output watermark equals the input watermark and keys are independent
(:func:`shardable` says why sessions and processing-time triggers are not): :data:`SHARDABLE` configurations are evaluated in
key shards (:func:`drive` checks the rule on every step and raises if it ever fails). The others
are evaluated with every key in one step (``toolkit.sweeps.whole``: in-process, or for a
Spark-backed log in one Spark task holding the whole log).
"""
from __future__ import annotations

import numpy as np

from toolkit.semantics.beam.figures import drive, figures


def shardable(setting) -> bool:
    """Keys are independent (see the module doc): fixed or sliding windows, end-of-window output
    timestamps and a trigger that fires every window at the watermark, with no processing-time
    part, and late firings (if any) for every late element. (Sessions are not: a merged session
    keeps the holds of the windows it merged; nor is an ``after_processing_time`` part: its
    firing at a clock past the window end counts as the watermark's, and the next element sets a
    hold that no watermark pane releases; nor a late trigger that waits, e.g. ``late=after_count:2``:
    a late element sets a hold at its window's end that stays until the late pane fires.)"""
    from toolkit.semantics.beam.fast import fires_every_element
    from toolkit.settings import Session

    t = setting.beam_trigger
    late_ok = t.late is None or fires_every_element(t.late)
    return (setting.timestamp_combiner == "end_of_window" and t.watermark_rooted and not t.uses_processing_time
            and late_ok and not isinstance(setting.window, Session))


def beam_partial(shard, setting, path: str, timeline) -> dict:
    """The sweep's partial of one key shard (``toolkit.sweeps.semantics`` registry entry): the
    closed form on ``path="fast"`` (``toolkit.semantics.beam.fast``), else the replay's step."""
    if path == "fast":
        from toolkit.semantics.beam.fast import partial

        return partial(shard, setting, timeline)
    keys = shard.keys[shard.key_code] if shard.n else np.zeros(0, dtype=object)
    d = drive(keys, shard.ts, shard.arrival, shard.row, setting, timeline, check_independent=shardable(setting))
    return figures(shard, setting, d)[0]
