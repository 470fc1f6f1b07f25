"""Metrics: ground truth, the closed-form record fates, per-configuration figures.

Per-window figures and a fate per record of one configuration over a whole log are
``toolkit.sweeps.window_figures`` / ``toolkit.sweeps.record_fates`` (they run a sweep of one).
"""
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
