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
