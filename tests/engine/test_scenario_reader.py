"""The scenario reader is exactly as strict and as loose as the oracle's (Jackson) reader and
Flink's factories; each rule below is also a ``reader_*`` window fixture with real Flink's
output. One deliberate difference: a float where an integer belongs (``"size": 10.7``) is an
error here, where Jackson would truncate it to 10."""
from __future__ import annotations

import pytest

from toolkit.engine.flink.evictors import CountEvictor, TimeEvictor, TimestampedValue
from toolkit.engine.flink.scenarios import jsonl
from toolkit.engine.flink.scenarios.window import run


def _run(cfg: str, *lines: str) -> list[dict]:
    return run(jsonl.read_lines([cfg, *lines]))


RECS = ('{"record":{"key":"a","ts":1,"value":1}}', '{"record":{"key":"a","ts":2,"value":2}}',
        '{"watermark":100}', '{"record":{"key":"a","ts":3,"value":3}}')


@pytest.mark.parametrize("text, expect", [
    ('"false"', False), ('" true "', True), ('"yes"', False), ("0", False), ("2", True),
    ("true", True), ("false", False), ("null", True), ("[]", False)])
def test_flags_read_as_jackson_as_boolean(text, expect) -> None:
    out = _run('{"assigner":{"type":"tumbling","size":10},"side_output_late":%s}' % text, *RECS)
    assert any(o["kind"] == "late" for o in out) is expect


@pytest.mark.parametrize("where, text", [
    ("assigner.size", '{"assigner":{"type":"tumbling","size":9223372036854775808}}'),
    ("assigner.gap", '{"assigner":{"type":"session","gap":"5"}}'),
    ("allowed", '{"assigner":{"type":"tumbling","size":10},"allowed_lateness":-9223372036854775809}'),
])
def test_integers_beyond_int64_and_strings_are_refused(where, text) -> None:
    with pytest.raises(ValueError, match="Java long|expected an integer"):
        _run(text, *RECS)
    with pytest.raises(ValueError, match="does not fit in a Java long"):
        _run('{"assigner":{"type":"tumbling","size":10}}', '{"record":{"key":"a","ts":-9223372036854775809,"value":1}}')
    assert jsonl.as_int(2**63 - 1, "x") == 2**63 - 1 and jsonl.as_int(-(2**63), "x") == -(2**63)


@pytest.mark.parametrize("count", [0, -1])
def test_a_count_trigger_of_zero_or_less_fires_on_every_element(count) -> None:
    out = _run('{"assigner":{"type":"tumbling","size":10},"trigger":{"type":"count","count":%d}}' % count, *RECS)
    # the third record comes after the window is closed: a late record
    assert [o.get("values") for o in out] == [[1], [1, 2], None] and out[2]["kind"] == "late"


def test_a_negative_count_evictor_and_a_negative_time_evictor_evict_everything() -> None:
    els = [TimestampedValue(v, v) for v in (1, 2, 3)]
    CountEvictor(-1).evict(els, None, None)
    assert els == []
    els = [TimestampedValue(v, v) for v in (1, 2, 3)]
    TimeEvictor(-5).evict(els, None, None)
    assert els == []
    out = _run('{"assigner":{"type":"tumbling","size":10},"evictor":{"type":"count","max":-1,"after":false}}', *RECS)
    assert out[0]["values"] == [] and out[0]["count"] == 0


def test_a_float_is_refused_not_truncated() -> None:
    with pytest.raises(ValueError, match="expected an integer, got 10.7"):
        _run('{"assigner":{"type":"tumbling","size":10.7}}', *RECS)
