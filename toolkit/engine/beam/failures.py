"""Where real Beam fails instead of producing panes (apache-beam 2.77.0, Python SDK, streaming
BundleBasedDirectRunner), as the oracle recorded it (tests/fixtures/beam/corpus/fail_*.json).

- **No window.** ``SlidingWindows`` with a size shorter than its period leave gaps: an element
  whose timestamp falls in one is assigned no window, and the DirectRunner's executor reads
  ``input_bundle._elements[0].windows[0]`` of the bundle holding it (IndexError: the job dies).
- **Fractional processing-time delay.** ``AfterProcessingTime(1.5)`` is accepted, but turning the
  trigger into its proto (``to_runner_api``, before the pipeline runs) needs an integer delay
  (TypeError, surfacing as "RuntimeError: Unable to translate WindowInto"): nothing runs.
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class BeamFailure:
    """Real Beam's failure: the root exception's type, its message, and where it is raised
    (path inside ``apache_beam``:function), as the oracle's ``failed`` field records them."""

    error: str
    message: str
    where: str

    def as_record(self) -> dict:
        return {"error": self.error, "message": self.message, "where": self.where}

    def __str__(self) -> str:
        return f"{self.error}: {self.message} ({self.where})"


NO_WINDOW = BeamFailure("IndexError", "list index out of range", "runners/direct/executor.py:__init__")
FRACTIONAL_DELAY = BeamFailure("TypeError", "'float' object cannot be interpreted as an integer",
                               "transforms/trigger.py:to_runner_api")


class PipelineFailure(Exception):
    """The pipeline fails in real Beam (``failure`` says how); ``why`` says what caused it."""

    def __init__(self, failure: BeamFailure, why: str) -> None:
        super().__init__(f"{why}; real Beam fails: {failure}")
        self.failure = failure
        self.why = why
