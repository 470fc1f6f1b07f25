"""Metrics: ground truth, record fates, per-window and per-configuration figures."""
from toolkit.metrics.summary import SUMMARY_COLUMNS, check_summary, merge_config, nearest_rank, partial_rows
from toolkit.metrics.truth import ground_truth, sessionize

__all__ = [
    "SUMMARY_COLUMNS",
    "check_summary",
    "ground_truth",
    "merge_config",
    "nearest_rank",
    "partial_rows",
    "sessionize",
]


def window_figures(log, *, path: str = "auto", **settings):
    """Per-window figures of one configuration (true count, count in first firing, final
    count, firings, first-emission and settle latency). Settings as in ``toolkit.sweep``."""
    from toolkit.sweep.single import evaluate

    return evaluate(log, path=path, **settings)[0]


def record_fates(log, *, path: str = "auto", **settings):
    """A fate per input row (``on_time``, ``late_accepted``, ``dropped``, ``invalid``)."""
    from toolkit.sweep.single import evaluate

    return evaluate(log, path=path, **settings)[1]


__all__ += ["record_fates", "window_figures"]
