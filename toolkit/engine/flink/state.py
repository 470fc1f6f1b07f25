"""Keyed state a ``ProcessWindowFunction`` reaches through its context (Flink's
``KeyedStateStore``): ``window_state()`` (one namespace per key and window) and
``global_state()`` (one per key, across its windows).

Rules (Flink's ``WindowOperator``, checked by the contract tests re-expressed in
``tests/engine/test_process_context.py``):

- Per-window state is *not* cleared by the operator: at the window's cleanup time Flink
  calls the function's ``clear(context)``, where the function clears what it set (else the
  state stays, as in Flink; ``num_keyed_state_entries`` shows it).
- With a merging assigner (sessions), ``window_state()`` exists but every getter raises
  :class:`UnsupportedOperationError` ("Per-window state is not allowed when using merging
  windows."); ``global_state()`` works.
- The window and the global store hand out the same state classes.

State kinds (Flink names): :class:`ValueState`, :class:`ListState`, :class:`MapState`,
:class:`ReducingState`, :class:`AggregatingState`. A state is addressed by its name within its namespace; a cleared or
never-set state holds nothing (``value()`` is ``None``, ``get()`` of a list is empty).
"""
from __future__ import annotations

from typing import Any, Callable

_GLOBAL = object()  # the namespace of global (per-key) state


class UnsupportedOperationError(RuntimeError):
    """Flink's ``UnsupportedOperationException``."""


class _State:
    __slots__ = ("_table", "_ns", "_name")

    def __init__(self, table: dict, ns: tuple, name: str):
        self._table = table
        self._ns = ns
        self._name = name

    def _get(self, default=None):
        d = self._table.get(self._ns)
        return default if d is None else d.get(self._name, default)

    def _set(self, value) -> None:
        d = self._table.get(self._ns)
        if d is None:
            d = self._table[self._ns] = {}
        d[self._name] = value

    def clear(self) -> None:
        """Remove the state (the namespace disappears with its last state)."""
        d = self._table.get(self._ns)
        if d is not None:
            d.pop(self._name, None)
            if not d:
                del self._table[self._ns]


class ValueState(_State):
    """One value: ``value()`` (``None`` when unset), ``update(v)`` (``None`` clears)."""

    __slots__ = ()

    def value(self):
        return self._get()

    def update(self, value) -> None:
        if value is None:
            self.clear()
        else:
            self._set(value)


class ListState(_State):
    """A list: ``get()`` (a copy, empty when unset), ``add(v)``, ``add_all(vs)``, ``update(vs)``."""

    __slots__ = ()

    def get(self) -> list:
        return list(self._get(()))

    def add(self, value) -> None:
        if value is None:
            raise ValueError("ListState.add: the value must not be None (Flink refuses null)")
        cur = self._get()
        if cur is None:
            self._set([value])
        else:
            cur.append(value)

    def add_all(self, values) -> None:
        for v in values:
            self.add(v)

    def update(self, values) -> None:
        values = list(values)
        if not values:
            self.clear()
        else:
            if any(v is None for v in values):
                raise ValueError("ListState.update: the values must not be None (Flink refuses null)")
            self._set(values)


class MapState(_State):
    """A map: ``get(k)``, ``put(k, v)``, ``contains(k)``, ``remove(k)``, ``keys()``,
    ``values()``, ``items()``, ``is_empty()``."""

    __slots__ = ()

    def _map(self) -> dict:
        return self._get({})

    def get(self, key):
        return self._map().get(key)

    def put(self, key, value) -> None:
        cur = self._get()
        if cur is None:
            self._set({key: value})
        else:
            cur[key] = value

    def contains(self, key) -> bool:
        return key in self._map()

    def remove(self, key) -> None:
        cur = self._get()
        if cur is not None:
            cur.pop(key, None)
            if not cur:
                self.clear()

    def keys(self) -> list:
        return list(self._map())

    def values(self) -> list:
        return list(self._map().values())

    def items(self) -> list:
        return list(self._map().items())

    def is_empty(self) -> bool:
        return not self._map()


class ReducingState(_State):
    """``add(v)`` folds ``v`` into the value with ``fn(current, v)``; ``add(None)`` clears, as
    Flink's heap state does; ``get()`` (``None`` when unset)."""

    __slots__ = ("_fn",)

    def __init__(self, table, ns, name, fn: Callable[[Any, Any], Any]):
        super().__init__(table, ns, name)
        if not callable(fn):
            raise ValueError(f"ReducingState {name!r}: the reduce function must be callable, got {fn!r}")
        self._fn = fn

    def get(self):
        return self._get()

    def add(self, value) -> None:
        if value is None:
            self.clear()
            return
        cur = self._get()
        self._set(value if cur is None else self._fn(cur, value))


class AggregatingState(_State):
    """Flink's ``AggregatingState`` (``AggregatingStateDescriptor``): the state holds the
    accumulator of an ``AggregateFunction``. ``add(v)`` folds ``v`` in with ``fn.add(v, acc)``,
    starting from ``fn.create_accumulator()`` when empty; ``add(None)`` clears, as Flink's heap
    state does; ``get()`` is ``fn.get_result(acc)``, ``None`` when empty; ``clear()`` empties it.
    (Flink merges such state with ``fn.merge`` only inside merging windows, where per-window
    state is refused: see :class:`MergingWindowStateStore`.)"""

    __slots__ = ("_fn",)

    def __init__(self, table, ns, name, fn):
        super().__init__(table, ns, name)
        missing = [m for m in ("create_accumulator", "add", "get_result", "merge")
                   if not callable(getattr(fn, m, None))]
        if missing:
            raise ValueError(f"AggregatingState {name!r}: the function must be an AggregateFunction "
                             f"(create_accumulator, add, get_result, merge), got {fn!r}")
        self._fn = fn

    def get(self):
        d = self._table.get(self._ns)
        if d is None or self._name not in d:
            return None
        acc = d[self._name]
        return None if acc is None else self._fn.get_result(acc)

    def add(self, value) -> None:
        if value is None:
            self.clear()
            return
        d = self._table.get(self._ns)
        acc = None if d is None else d.get(self._name)
        if acc is None:
            acc = self._fn.create_accumulator()
        self._set(self._fn.add(value, acc))


def _check_name(name) -> str:
    if not isinstance(name, str) or not name:
        raise ValueError(f"a state name must be a non-empty string, got {name!r}")
    return name


class KeyedStateStore:
    """The states of one namespace (a key and window, or a key): Flink's ``KeyedStateStore``."""

    __slots__ = ("_table", "_ns")

    def __init__(self, table: dict, ns: tuple):
        self._table = table
        self._ns = ns

    def get_state(self, name: str) -> ValueState:
        return ValueState(self._table, self._ns, _check_name(name))

    def get_list_state(self, name: str) -> ListState:
        return ListState(self._table, self._ns, _check_name(name))

    def get_map_state(self, name: str) -> MapState:
        return MapState(self._table, self._ns, _check_name(name))

    def get_reducing_state(self, name: str, fn: Callable[[Any, Any], Any]) -> ReducingState:
        return ReducingState(self._table, self._ns, _check_name(name), fn)

    def get_aggregating_state(self, name: str, fn) -> AggregatingState:
        """``fn``: an ``AggregateFunction`` (``toolkit.engine.flink.AggregateFunction``)."""
        return AggregatingState(self._table, self._ns, _check_name(name), fn)


class MergingWindowStateStore(KeyedStateStore):
    """``window_state()`` under a merging assigner: Flink refuses every state."""

    __slots__ = ()

    def _refuse(self, *args, **kwargs):
        raise UnsupportedOperationError("Per-window state is not allowed when using merging windows.")

    get_state = get_list_state = get_map_state = get_reducing_state = get_aggregating_state = _refuse


def window_namespace(key, window) -> tuple:
    return (key, window)


def global_namespace(key) -> tuple:
    return (key, _GLOBAL)


def count_entries(table: dict) -> int:
    """States held, one per (namespace, name), as Flink's harness counts keyed state."""
    return sum(len(d) for d in table.values())


