"""Flink's ``MergingWindowSet``: per key, the mapping from each (merged) window to the
*state window* whose namespace holds its contents.

``add_window(new, merge_fn)`` merges ``new`` with the windows it intersects (via the
assigner's ``merge_windows``); for a merge it keeps the state window of the first merged
window in Java ``HashSet`` iteration order and calls
``merge_fn(merge_result, merged_windows, state_window_result, merged_state_windows)``
(the operator then runs the trigger's ``on_merge``, clears the merged windows' triggers and
cleanup timers and folds their state into the kept state window). It returns the window the
element belongs to (the merge result, or ``new`` itself).
"""
from __future__ import annotations

from typing import Callable

from .assigners import MergingWindowAssigner
from .windows import java_hash_set_order


def uses_builtin_merge(assigner) -> bool:
    """True when the assigner merges windows exactly as Flink's ``TimeWindow.mergeWindows``."""
    return type(assigner).merge_windows is MergingWindowAssigner.merge_windows


class MergingWindowSet:
    """Per key: window -> state window; ``add_window`` merges, ``retire_window`` forgets."""

    __slots__ = ("mapping", "_assigner", "_builtin")

    def __init__(self, assigner, builtin: bool | None = None, mapping: dict | None = None):
        """``builtin``: the assigner merges with ``TimeWindow.mergeWindows`` unchanged (then
        ``add_window`` takes a shortcut); ``None`` finds out with :func:`uses_builtin_merge`.
        ``mapping``: the initial window -> state window mapping (taken, not copied)."""
        self._assigner = assigner
        self.mapping: dict = {} if mapping is None else mapping
        self._builtin = uses_builtin_merge(assigner) if builtin is None else builtin

    def get_state_window(self, window):
        return self.mapping.get(window)

    def retire_window(self, window) -> None:
        if self.mapping.pop(window, None) is None:
            raise RuntimeError(f"Window {window} is not in in-flight window set.")

    def __len__(self) -> int:
        return len(self.mapping)

    def add_window(self, new_window, merge_fn: Callable) -> object:
        mapping = self.mapping
        if self._builtin:
            # The windows in the set never intersect each other (every addWindow merges all
            # intersecting ones), so TimeWindow.mergeWindows' sweep can only produce one group:
            # the new window and the windows intersecting it, in start order (stable).
            if not mapping:
                mapping[new_window] = new_window
                return new_window
            ns, ne = new_window
            hits = [w for w in mapping if w[0] <= ne and w[1] >= ns]
            if not hits:
                mapping[new_window] = new_window
                return new_window
            if len(hits) == 1:
                h = hits[0]
                members = [h, new_window] if h[0] <= ns else [new_window, h]
            else:
                members = sorted(hits, key=_start)
                members.insert(_insert_pos(members, ns), new_window)
            if len(set(members)) == 1:
                groups = []
            else:
                s0 = min(w[0] for w in members)
                e0 = max(w[1] for w in members)
                groups = [(list(dict.fromkeys(members)), type(new_window)(s0, e0))]
        else:
            windows = list(mapping)
            windows.append(new_window)
            groups = self._assigner.merge_windows(windows)
        result_window = new_window
        merged_new_window = False
        for members, merge_result in groups:
            ordered = java_hash_set_order(members)
            if new_window in ordered:
                ordered.remove(new_window)
                merged_new_window = True
                result_window = merge_result
            merged_state_window = mapping.get(ordered[0])
            merged_state_windows = []
            for w in ordered:
                res = mapping.pop(w, None)
                if res is not None:
                    merged_state_windows.append(res)
            mapping[merge_result] = merged_state_window
            if merged_state_window in merged_state_windows:
                merged_state_windows.remove(merged_state_window)
            if not (len(ordered) == 1 and ordered[0] == merge_result):
                merge_fn(merge_result, ordered, mapping.get(merge_result), merged_state_windows)
        if not groups or (result_window == new_window and not merged_new_window):
            mapping[result_window] = result_window
        return result_window


def _start(w):
    return w[0]


def _insert_pos(members: list, start: int) -> int:
    """Where a stable sort by start puts a window appended last."""
    i = 0
    for w in members:
        if w[0] > start:
            break
        i += 1
    return i
