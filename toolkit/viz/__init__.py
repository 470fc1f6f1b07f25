"""Altair charts of logs, replays and sweeps (``toolkit.viz``); each function returns an Altair chart.

Record-level charts never embed more than ``max_points`` rows (default 5000): larger logs
are sampled (stratified by fate, seeded) or binned with numpy, and the chart's subtitle
says so. See :mod:`toolkit.viz._common` for the rule.

In a Jupyter kernel, importing this package makes Altair draw charts offline with its
JupyterChart widget (see :mod:`toolkit.viz.rendering`).
"""
from toolkit.viz._common import FATE_COLORS, FATES, MAX_POINTS, lateness_of, stratified_sample
from toolkit.viz.drops import drops_over_time
from toolkit.viz.engines import disagreements, engine_fates, engines_by_delay
from toolkit.viz.incidents import robustness
from toolkit.viz.records import (
    drops_by_key,
    drops_by_partition,
    event_time_scatter,
    fate_counts_by,
    lateness_histogram,
)
from toolkit.viz.rendering import enable_offline_charts
from toolkit.viz.sweep import (
    METRICS,
    config_columns,
    latency_completeness,
    metric_columns,
    pareto,
    recommended_row,
    sweep_heatmap,
    sweep_scatter,
    sweep_sliders,
)
from toolkit.viz.tables import readable, summary_table
from toolkit.viz.timeline import firing_timeline, state_over_time, watermark_lag

enable_offline_charts()

__all__ = [
    "FATES", "FATE_COLORS", "MAX_POINTS", "METRICS",
    "event_time_scatter", "lateness_histogram", "drops_by_partition", "drops_by_key", "fate_counts_by",
    "drops_over_time", "engines_by_delay", "engine_fates", "disagreements",
    "watermark_lag", "firing_timeline", "state_over_time", "readable", "summary_table",
    "sweep_heatmap", "sweep_scatter", "robustness", "latency_completeness", "sweep_sliders", "pareto", "recommended_row",
    "config_columns", "metric_columns", "lateness_of", "stratified_sample",
]
