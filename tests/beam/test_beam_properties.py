"""Invariants of Beam's panes on random streams (hypothesis), for the non-merging window fns:
pane indices count 0, 1, 2, ... per window in emission order and ``is_first`` is index 0;
nothing follows a final pane; accumulating panes only grow, discarding panes never repeat an
element; an element is never emitted in a window it was dropped from."""
from __future__ import annotations

from hypothesis import given, settings, strategies as st

from toolkit.engine.beam import run_scenario

count = st.builds(lambda n: {"type": "after_count", "n": n}, st.integers(1, 3))
ptime = st.builds(lambda s: {"type": "after_processing_time", "delay_ms": s * 1000}, st.integers(0, 3))
leaf = st.one_of(count, ptime, st.just({"type": "after_watermark"}), st.just({"type": "default"}))
triggers = st.recursive(leaf, lambda t: st.one_of(
    st.builds(lambda e, l: {"type": "after_watermark", "early": e, "late": l}, st.none() | t, st.none() | t),
    st.builds(lambda c: {"type": "repeatedly", "trigger": c}, t),
    st.builds(lambda cs: {"type": "after_any", "triggers": cs}, st.lists(t, min_size=1, max_size=3)),
    st.builds(lambda cs: {"type": "after_all", "triggers": cs}, st.lists(t, min_size=1, max_size=3)),
    st.builds(lambda cs: {"type": "after_each", "triggers": cs}, st.lists(t, min_size=1, max_size=3)),
    st.builds(lambda m, f: {"type": "orfinally", "main": m, "finally": f}, t, t)), max_leaves=4)
windows = st.one_of(
    st.builds(lambda s, o: {"type": "fixed", "size": s, "offset": o}, st.integers(1, 20), st.integers(0, 5)),
    st.builds(lambda p, k: {"type": "sliding", "size": p * k, "period": p}, st.integers(1, 6), st.integers(1, 3)))
event = st.one_of(
    st.builds(lambda k, ts: ("element", k, ts), st.sampled_from("ab"), st.integers(0, 60)),
    st.builds(lambda d: ("watermark", d), st.integers(1, 15)),
    st.builds(lambda d: ("pt", d), st.integers(1, 4)))


def _case(window, trigger, lateness, acc, combiner, evs):
    out, wm, value = [], -1, 0
    for e in evs:
        if e[0] == "element":
            value += 1
            out.append({"element": {"key": e[1], "value": value, "ts": e[2]}})
        elif e[0] == "watermark":
            wm += e[1]
            out.append({"watermark": wm})
        else:
            out.append({"processing_time_advance": e[1] * 1000})
    return {"window": window, "trigger": trigger, "allowed_lateness_ms": lateness, "accumulation": acc,
            "timestamp_combiner": combiner, "events": out}


@settings(max_examples=60, deadline=None)
@given(windows, triggers, st.sampled_from([0, 5, 30]), st.sampled_from(["accumulating", "discarding"]),
       st.sampled_from(["end_of_window", "earliest", "latest"]), st.lists(event, max_size=30))
def test_beam_pane_invariants(window, trigger, lateness, acc, combiner, evs):
    case = _case(window, trigger, lateness, acc, combiner, evs)
    panes, _, step = run_scenario(case)
    by_window: dict = {}
    for p in panes:
        by_window.setdefault((p["key"], tuple(p["window"])), []).append(p)
    dropped = {(d.key, (d.window_start // 1000, d.window_end // 1000), d.value) for d in step.drops}
    for (key, w), ps in by_window.items():
        assert [p["index"] for p in ps] == list(range(len(ps)))
        assert [p["is_first"] for p in ps] == [i == 0 for i in range(len(ps))]
        assert not any(p["is_last"] for p in ps[:-1])
        if acc == "accumulating":
            for a, b in zip(ps, ps[1:]):
                assert set(a["values"]) <= set(b["values"])
        else:
            seen = [v for p in ps for v in p["values"]]
            assert len(seen) == len(set(seen))
        for p in ps:
            assert p["count"] == len(p["values"]) and p["sum"] == sum(p["values"])
            assert not any((key, w, v) in dropped for v in p["values"])
            assert p["timing"] in ("EARLY", "ON_TIME", "LATE")


sessions = st.builds(lambda g: {"type": "sessions", "gap": g}, st.integers(1, 12))


@settings(max_examples=80, deadline=None)
@given(sessions, triggers, st.sampled_from([0, 5, 30]), st.sampled_from(["accumulating", "discarding"]),
       st.sampled_from(["end_of_window", "earliest", "latest"]), st.lists(event, max_size=40))
def test_a_new_session_merges_with_the_overlapping_known_windows_only(window, trigger, lateness, acc, combiner, evs):
    """The merge pass given only the known windows that overlap a new one (found by bisection)
    gives what the pass over every known window of the key gives (Beam's MergeOverlappingIntervalWindows
    over all of them): same panes, drops, stall verdict, and the known windows never overlap."""
    import pytest

    from toolkit.engine.beam.state import KeyedState

    case = _case(window, trigger, lateness, acc, combiner, evs)
    panes, stalled, step = run_scenario(case)
    for state in step.states.values():
        order = state.in_order
        assert order == sorted(state.window_ids) and all(a.end <= b.start for a, b in zip(order, order[1:]))
        # the state size and earliest hold kept as the cells change are those a scan gives
        assert state.held() == (len({state.owner[i] for i in state.live}), sum(state.live.values()))
        holds = [min(c["watermark"]) for c in state.cells.values() if c.get("watermark")]
        assert state.earliest_hold("watermark") == (min(holds) - 1 if holds else None)
    with pytest.MonkeyPatch.context() as m:  # the reference: every known window goes through the merge pass
        m.setattr(KeyedState, "known_overlapping", lambda self, windows: sorted(self.window_ids))
        want, want_stalled, ref = run_scenario(case)
    assert panes == want and stalled == want_stalled
    assert [(d.key, d.value, d.window_start, d.window_end, d.reason) for d in step.drops] == [
        (d.key, d.value, d.window_start, d.window_end, d.reason) for d in ref.drops]
