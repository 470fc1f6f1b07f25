"""Flink's QuickSort/HeapSort port (the sorted input of end-of-stream global windows)."""
from __future__ import annotations

from hypothesis import given, settings, strategies as st

from toolkit.engine.flink.sorting import flink_heap_sort, flink_sort, java_string_bytes, key_sort_key


def _cmp(x, y):
    return (x[0] > y[0]) - (x[0] < y[0])


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(0, 15), max_size=80))
def test_flink_sort_sorts_and_is_not_stable(xs):
    a = [(x, i) for i, x in enumerate(xs)]
    flink_sort(a, _cmp)
    assert [x for x, _ in a] == sorted(xs)
    b = [(x, i) for i, x in enumerate(xs)]
    flink_heap_sort(b, _cmp, 0, len(b))
    assert [x for x, _ in b] == sorted(xs)


def test_equal_timestamps_come_in_flinks_order():
    """The oracle's gen45 (one key, 47 records, several equal timestamps): real Flink delivered
    the values in the order stored in its output; a stable sort by timestamp would not."""
    import json
    from pathlib import Path

    fx = Path(__file__).resolve().parent.parent / "fixtures" / "window"
    lines = [json.loads(l) for l in (fx / "gen45_global_end_of_stream.jsonl").read_text().splitlines()]
    recs = [(l["record"]["ts"], l["record"]["value"]) for l in lines if "record" in l]
    flink_values = json.loads((fx / "gen45_global_end_of_stream.out.jsonl").read_text().splitlines()[0])["values"]
    a = list(recs)
    flink_sort(a, _cmp)
    assert [v for _, v in a] == flink_values
    assert [v for _, v in sorted(recs, key=lambda r: r[0])] != flink_values


def test_key_order_is_serialized_string_order():
    assert java_string_bytes("a") == bytes([2, ord("a")])
    assert java_string_bytes("") == bytes([1])
    assert java_string_bytes("é") == bytes([2, 0xE9, 0x01])      # 7-bit groups, low first
    # the length comes first: "b" (1 char) sorts before "ab" (2 chars)
    assert key_sort_key("b") < key_sort_key("ab")


def test_non_ascii_keys_sort_by_signed_bytes():
    """Java compares the serialized key bytes as signed ``byte``s: a char >= U+0080 (first
    byte >= 0x80) sorts before an ASCII char at the same position (fixtures nak*_globeos)."""
    assert key_sort_key("é") < key_sort_key("a")          # 0xE9 is negative in Java
    assert key_sort_key("aé") < key_sort_key("aa")
    assert key_sort_key("z") < key_sort_key("aé")         # length first
    assert key_sort_key("\U0001F600") > key_sort_key("é")  # two UTF-16 units: longer
