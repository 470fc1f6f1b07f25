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


# ---------------------------------------------------------------- quirks real Flink decides
# (fixtures reader_30 .. reader_42, written by tests/fixtures/window/gen_reader_quirks.py and
# run through the oracle; the conformance test replays all of them line for line)

MIN = -(2**63)


@pytest.mark.parametrize("assigner", [
    '{"type":"tumbling","size":10,"offset":%d}' % MIN,
    '{"type":"sliding","size":10,"slide":5,"offset":%d}' % MIN])
def test_an_offset_of_long_min_is_accepted_as_java_math_abs_lets_it_pass(assigner) -> None:
    """Math.abs(Long.MIN_VALUE) is negative, so abs(offset) < size holds (reader_30, reader_31);
    one more (Long.MIN + 1) is refused with Flink's reason (reader_34)."""
    from toolkit.engine.flink.assigners import java_abs

    assert java_abs(MIN) == MIN and java_abs(MIN + 1) == 2**63 - 1
    out = _run('{"assigner":%s}' % assigner, '{"record":{"key":"a","ts":1,"value":1}}')
    assert out and out[0]["kind"] == "fire"
    with pytest.raises(ValueError, match=r"abs\(offset\) < size"):
        _run('{"assigner":{"type":"tumbling","size":10,"offset":%d}}' % (MIN + 1), *RECS)


@pytest.mark.parametrize("line, value", [
    ('{"assigner":{"type":"tumbling","size":10},"allowed_lateness":false}', False),
    ('{"assigner":{"type":"tumbling","size":10},"allowed_lateness":true}', True)])
def test_a_boolean_lateness_is_refused_as_the_oracle_refuses_it(line, value) -> None:
    """Jackson: a boolean cannot convert to a long, "field 'allowed_lateness' must be an
    integer" (reader_36, reader_37); null is the default 0 (reader_35)."""
    with pytest.raises(ValueError) as err:
        _run(line, *RECS)
    # the oracle: "field 'allowed_lateness' must be an integer: <the config line>"
    assert str(err.value) == f"field 'allowed_lateness' must be an integer: {line} (expected an integer, got {value})"
    assert _run('{"assigner":{"type":"tumbling","size":10},"allowed_lateness":null}', *RECS)[-1]["kind"] == "late"
    with pytest.raises(ValueError, match="'gap'.*expected an integer"):
        _run('{"assigner":{"type":"dynamic_session","gap_field":"gap"}}',
             '{"record":{"key":"a","ts":1,"value":1,"gap":false}}')


@pytest.mark.parametrize("text, key", [
    ("1e20", "1.0E20"), ("1E20", "1.0E20"), ("1e-4", "1.0E-4"), ("1234.5", "1234.5"), ("1e7", "1.0E7"),
    ("9999999.0", "9999999.0"), ("0.001", "0.001"), ("-0.0", "-0.0"), ("4.9e-324", "4.9E-324"),
    # Java 17 writes more digits than needed here (not the shortest round trip)
    ("1e23", "9.999999999999999E22"), ("2e23", "1.9999999999999998E23"), ("8.41e21", "8.409999999999999E21"),
    ("2.82879384806159e17", "2.82879384806159008E17"),
    ("100000000000000000000", "100000000000000000000"), ("true", "true")])
def test_number_keys_are_written_as_the_oracle_writes_them(text, key) -> None:
    """The job keys by Jackson's asText: a float as Java 17's Double.toString (reader_40 to 42)."""
    out = _run('{"assigner":{"type":"tumbling","size":10}}', '{"record":{"key":%s,"ts":1,"value":1}}' % text)
    assert out[0]["key"] == key
