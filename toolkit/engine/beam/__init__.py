"""Apache Beam's event-time semantics (windows, triggers, panes, allowed lateness,
accumulation modes, timestamp combiners), as Beam's Python SDK runs them on its
DirectRunner; checked against real Beam (tests/fixtures/beam, oracles/beam)."""
from .driver import ACCUMULATING, DISCARDING, Windowing
from .failures import FRACTIONAL_DELAY, NO_WINDOW, BeamFailure, PipelineFailure
from .pane import EARLY, LATE, ON_TIME, Pane, PaneInfo
from .runner import GroupByKeyStep
from .scenario import BeamScenario, run_scenario
from .timestamp_combiners import TimestampCombiner
from .triggers import trigger_from_spec
from .windows import FixedWindows, IntervalWindow, Sessions, SlidingWindows

__all__ = ["ACCUMULATING", "DISCARDING", "EARLY", "FRACTIONAL_DELAY", "NO_WINDOW", "BeamFailure", "PipelineFailure", "LATE", "ON_TIME", "BeamScenario", "FixedWindows",
           "GroupByKeyStep", "IntervalWindow", "Pane", "PaneInfo", "Sessions", "SlidingWindows",
           "TimestampCombiner", "Windowing", "run_scenario", "trigger_from_spec"]
