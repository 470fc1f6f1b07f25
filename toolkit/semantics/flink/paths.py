"""Which path serves each Flink row of a sweep: the closed form or compiled sessions
(``fast``, :func:`toolkit.semantics.flink.window_operator.fast_applies`) where they apply and
Flink's long arithmetic cannot wrap, else the engine (``engine``)."""
from __future__ import annotations

from toolkit.fast.sessions import in_range as fast_sessions_in_range
from toolkit.semantics.flink.window_operator import fast_applies
from toolkit.settings import SESSION_WINDOWS, DynamicSession, Setting, SettingError


def _fast_in_range(config: Setting, event_range: tuple[int, int] | None, gap_max: dict[str, int] | None = None) -> bool:
    """Session windows on the fast path only where Flink's long arithmetic cannot wrap
    (``toolkit.fast.sessions.in_range``); the engine models the wrap at the int64 edges."""
    if event_range is None or not isinstance(config.window, SESSION_WINDOWS):
        return True
    if isinstance(config.window, DynamicSession):
        if gap_max is None or config.window.column not in gap_max:
            return False  # the gaps are not known: the engine path checks each record
        gap = gap_max[config.window.column]
    else:
        gap = config.window.gap
    return fast_sessions_in_range(event_range[0], event_range[1], gap, config.lateness)


def choose_paths(configs: list[Setting], path: str, *, event_range: tuple[int, int] | None = None,
                 gap_max: dict[str, int] | None = None) -> list[str]:
    """``fast`` where the fast path applies (and is allowed), ``engine`` otherwise.
    ``event_range``: the log's (min, max) event time; ``gap_max``: each dynamic-session gap
    column's largest gap; sessions near the int64 edges go to the engine."""
    out = []
    for c in configs:
        ok = fast_applies(c) and _fast_in_range(c, event_range, gap_max)
        if path == "fast" and not ok:
            raise SettingError("path", f"the fast path does not apply to {c}: it needs tumbling, sliding or session "
                               "windows, the event-time trigger, no evictor, accumulating or retracting mode and one stage")
        out.append("fast" if (path != "engine" and ok) else "engine")
    return out
