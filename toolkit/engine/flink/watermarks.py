"""Watermark generators: configuration objects and their per-source runtime.

A *strategy* (config object, validated at construction) creates one *generator* (runtime)
per source partition, as Flink's ``WatermarkStrategy.createWatermarkGenerator`` does per split.
A generator sees every record (``on_event``) and is asked for a watermark on every periodic
tick (``on_periodic_emit``); it writes to a :class:`WatermarkOutput` (``emit_watermark``,
``mark_idle``, ``mark_active``). Processing time is passed explicitly (``pt``, ms): the engine
has no wall clock.

Strategies (Flink names; the rule each follows):

- :class:`BoundedOutOfOrderness` (Flink ``BoundedOutOfOrdernessWatermarks``, the default):
  ``on_periodic_emit`` emits ``max_ts - delay - 1`` (``MIN_WATERMARK`` before any event).
  ``legacy=True`` is the old ``BoundedOutOfOrdernessTimestampExtractor``: ``max_ts - delay``.
- :class:`Monotonous` (``AscendingTimestampsWatermarks``): bounded with delay 0, ``max_ts - 1``.
- :class:`TimeLag` (Flink docs' ``TimeLagWatermarkGenerator``): ``pt - lag`` on every tick.
- :class:`Punctuated`: a record flagged as a marker emits ``ts - delay`` at once, in
  ``on_event``; nothing periodic.
- :class:`IdleAdvance` (from the Flink articles on idle sources): bounded out-of-orderness,
  but when the periodic watermark would not move, the running max is advanced by ``step``,
  never past the current processing time.
- :class:`Adaptive` (**Watermark Lab extension**, not in Flink): bounded out-of-orderness
  whose delay is the running ``quantile`` of observed lateness (``max seen before - ts``,
  clipped at 0) over the last ``window`` records, clamped to ``[min_delay, max_delay]``.
- ``strategy.with_idleness(timeout)`` (``WatermarksWithIdleness``): idleness is evaluated
  only in ``on_periodic_emit``; the countdown starts at the first periodic call that saw no
  event since the previous call; IDLE once ``now - start > timeout`` (strict). The clock
  reads ``pt * 1e6 + clock_offset_nanos`` ns and a reading of exactly 0 means "no countdown"
  (Flink's sentinel), reproduced on purpose.

Every generator also offers ``on_events(ts, pt, output)`` taking numpy arrays of a batch of
records with nothing periodic in between; generators whose ``on_event`` never emits
(``emits_on_event = False``) implement it vectorized, which the replay pipeline uses.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Protocol

import numpy as np

MIN_WATERMARK = -(2**63)
MAX_WATERMARK = 2**63 - 1


class WatermarkOutput(Protocol):
    """Where a generator writes (Flink ``WatermarkOutput``)."""

    def emit_watermark(self, ts: int) -> None: ...

    def mark_idle(self) -> None: ...

    def mark_active(self) -> None: ...


def _check_ms(value: Any, name: str, *, positive: bool = False) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise ValueError(f"{name} must be an integer number of milliseconds, got {value!r}")
    value = int(value)
    if positive and value <= 0:
        raise ValueError(f"{name} must be > 0, got {value}")
    if value < 0:
        raise ValueError(f"{name} must not be negative, got {value}")
    return value


# ----------------------------------------------------------------------------------------
# configuration objects
# ----------------------------------------------------------------------------------------


class WatermarkStrategy:
    """Base of the generator configurations: ``create()`` makes one runtime generator."""

    name: str = "strategy"

    def create(self) -> "WatermarkGenerator":  # pragma: no cover - abstract
        raise NotImplementedError

    def with_idleness(self, timeout: int, clock_offset_nanos: int = 0) -> "WithIdleness":
        """Wrap in Flink's ``WatermarksWithIdleness(timeout)``."""
        return WithIdleness(self, timeout, clock_offset_nanos)

    @property
    def needs_processing_time(self) -> bool:
        """True if the generator's output depends on processing time itself."""
        return False

    def describe(self) -> dict[str, Any]:
        return {"generator": self.name}


@dataclass(frozen=True)
class BoundedOutOfOrderness(WatermarkStrategy):
    """``max_ts - delay - 1`` on each periodic call (``legacy``: ``max_ts - delay``)."""

    delay: int
    legacy: bool = False

    def __post_init__(self) -> None:
        object.__setattr__(self, "delay", _check_ms(self.delay, "delay"))

    @property
    def name(self) -> str:  # type: ignore[override]
        return "legacy_bounded_out_of_orderness" if self.legacy else "bounded_out_of_orderness"

    @property
    def subtract(self) -> int:
        """What is subtracted from the running max."""
        return self.delay if self.legacy else self.delay + 1

    def create(self) -> "BoundedOutOfOrdernessGenerator":
        return BoundedOutOfOrdernessGenerator(self.subtract)

    def describe(self) -> dict[str, Any]:
        return {"generator": self.name, "delay": self.delay}


def LegacyBoundedOutOfOrderness(delay: int) -> BoundedOutOfOrderness:
    """The pre-1.11 ``BoundedOutOfOrdernessTimestampExtractor``: ``max_ts - delay``."""
    return BoundedOutOfOrderness(delay, legacy=True)


@dataclass(frozen=True)
class Monotonous(WatermarkStrategy):
    """``AscendingTimestampsWatermarks``: ``max_ts - 1``."""

    name = "monotonous"

    def create(self) -> "BoundedOutOfOrdernessGenerator":
        return BoundedOutOfOrdernessGenerator(1)


@dataclass(frozen=True)
class TimeLag(WatermarkStrategy):
    """Processing-time based: ``pt - lag`` on each periodic call."""

    lag: int
    name = "time_lag"

    def __post_init__(self) -> None:
        object.__setattr__(self, "lag", _check_ms(self.lag, "lag"))

    @property
    def needs_processing_time(self) -> bool:
        return True

    def create(self) -> "TimeLagGenerator":
        return TimeLagGenerator(self.lag)

    def describe(self) -> dict[str, Any]:
        return {"generator": self.name, "lag": self.lag}


@dataclass(frozen=True)
class Punctuated(WatermarkStrategy):
    """A marked record emits ``ts - delay`` immediately; nothing periodic.

    ``marker``: the name of a boolean record field (column) or a predicate
    ``f(ts, key, value) -> bool``; the replay evaluates it to a boolean array.
    """

    marker: str | Callable[..., bool] = "marker"
    delay: int = 0
    name = "punctuated"

    def __post_init__(self) -> None:
        object.__setattr__(self, "delay", _check_ms(self.delay, "delay"))
        if not (isinstance(self.marker, str) or callable(self.marker)):
            raise ValueError("marker must be a field name or a predicate f(ts, key, value) -> bool")

    def create(self) -> "PunctuatedGenerator":
        return PunctuatedGenerator(self.delay)

    def describe(self) -> dict[str, Any]:
        m = self.marker if isinstance(self.marker, str) else getattr(self.marker, "__name__", "predicate")
        return {"generator": self.name, "marker": m, "delay": self.delay}


@dataclass(frozen=True)
class IdleAdvance(WatermarkStrategy):
    """Bounded out-of-orderness that keeps moving when the stream stalls.

    On a periodic call where ``max_ts - delay - 1`` would not exceed the last emitted
    watermark, the running max is first advanced by ``step``, but never past ``pt``.
    """

    delay: int
    step: int
    name = "idle_advance"

    def __post_init__(self) -> None:
        object.__setattr__(self, "delay", _check_ms(self.delay, "delay"))
        object.__setattr__(self, "step", _check_ms(self.step, "step", positive=True))

    @property
    def needs_processing_time(self) -> bool:
        return True

    def create(self) -> "IdleAdvanceGenerator":
        return IdleAdvanceGenerator(self.delay, self.step)

    def describe(self) -> dict[str, Any]:
        return {"generator": self.name, "delay": self.delay, "step": self.step}


@dataclass(frozen=True)
class Adaptive(WatermarkStrategy):
    """Watermark Lab extension: delay = running ``quantile`` of lateness of the last ``window`` records.

    Lateness of a record = (max timestamp seen before it) - ts, clipped at 0. Periodic
    watermark = ``max_ts - delay - 1`` with delay clamped to ``[min_delay, max_delay]``
    (``initial_delay`` before any lateness was observed).
    """

    quantile: float = 0.99
    window: int = 1000
    min_delay: int = 0
    max_delay: int | None = None
    initial_delay: int = 0
    name = "adaptive"

    def __post_init__(self) -> None:
        if not (0.0 <= float(self.quantile) <= 1.0):
            raise ValueError(f"quantile must be within [0, 1], got {self.quantile}")
        if isinstance(self.window, bool) or not isinstance(self.window, (int, np.integer)) or self.window < 1:
            raise ValueError(f"window must be a positive number of records, got {self.window!r}")
        _check_ms(self.min_delay, "min_delay")
        _check_ms(self.initial_delay, "initial_delay")
        if self.max_delay is not None:
            _check_ms(self.max_delay, "max_delay")
            if self.max_delay < self.min_delay:
                raise ValueError("max_delay must be >= min_delay")

    def create(self) -> "AdaptiveGenerator":
        return AdaptiveGenerator(self)

    def describe(self) -> dict[str, Any]:
        return {
            "generator": self.name,
            "quantile": self.quantile,
            "window": self.window,
            "min_delay": self.min_delay,
            "max_delay": self.max_delay,
            "initial_delay": self.initial_delay,
        }


@dataclass(frozen=True)
class WithIdleness(WatermarkStrategy):
    """Flink ``WatermarksWithIdleness``: IDLE after ``timeout`` ms with no events (see module doc)."""

    inner: WatermarkStrategy
    timeout: int
    clock_offset_nanos: int = 0

    def __post_init__(self) -> None:
        if isinstance(self.timeout, bool) or not isinstance(self.timeout, (int, np.integer)):
            raise ValueError(f"idle timeout must be an integer number of milliseconds, got {self.timeout!r}")
        if self.timeout <= 0:
            raise ValueError(f"idle timeout must be greater than zero, got {self.timeout}")
        if isinstance(self.inner, WithIdleness):
            raise ValueError("with_idleness() applied twice")

    @property
    def name(self) -> str:  # type: ignore[override]
        return self.inner.name

    @property
    def needs_processing_time(self) -> bool:
        return True

    def create(self) -> "WithIdlenessGenerator":
        return WithIdlenessGenerator(self.inner.create(), self.timeout, self.clock_offset_nanos)

    def describe(self) -> dict[str, Any]:
        d = self.inner.describe()
        d["idle_timeout"] = self.timeout
        return d


# ----------------------------------------------------------------------------------------
# runtime generators
# ----------------------------------------------------------------------------------------


class WatermarkGenerator:
    """Runtime of one source partition's watermark generation (Flink ``WatermarkGenerator``)."""

    #: True when ``on_event`` may emit (the pipeline must then interleave per record).
    emits_on_event: bool = False

    def on_event(self, ts: int, pt: int, output: WatermarkOutput, marker: bool = False) -> None:
        pass

    def on_events(self, ts: np.ndarray, pt: np.ndarray, output: WatermarkOutput) -> None:
        """A batch of records with no periodic call in between (default: one by one)."""
        for t, p in zip(ts.tolist(), pt.tolist()):
            self.on_event(t, p, output)

    def on_periodic_emit(self, pt: int, output: WatermarkOutput) -> None:
        pass

    def quiescent(self) -> bool:
        """True when, without new events, no later periodic call can emit anything new."""
        return False

    # closed form of the periodic calls with no record in between (sparse replay of a
    # processing-time watermark, ``toolkit.engine.flink.pipeline``); calls sit at
    # ``first + k * interval``, ``t`` is the last call that was run

    #: True when :meth:`skip_calls` and :meth:`first_call_reaching` are implemented
    closed_form: bool = False

    def skip_calls(self, t: int, k: int, first: int, interval: int) -> None:
        """Bring the state to what the calls ``t+1 .. k-1`` (no records) would leave."""
        raise NotImplementedError

    def first_call_reaching(self, x: int, t: int, first: int, interval: int) -> int | None:
        """The first call ``k > t`` (no records) whose emitted watermark is ``>= x``; None = never."""
        raise NotImplementedError


class BoundedOutOfOrdernessGenerator(WatermarkGenerator):
    """Emits ``max_ts - subtract`` periodically (``subtract`` = delay + 1, or delay for legacy)."""

    __slots__ = ("subtract", "max_ts")

    def __init__(self, subtract: int) -> None:
        self.subtract = subtract
        self.max_ts = MIN_WATERMARK + subtract  # so the first emission is MIN_WATERMARK

    def on_event(self, ts: int, pt: int, output: WatermarkOutput, marker: bool = False) -> None:
        if ts > self.max_ts:
            self.max_ts = ts

    def on_events(self, ts: np.ndarray, pt: np.ndarray, output: WatermarkOutput) -> None:
        if len(ts):
            m = int(ts.max())
            if m > self.max_ts:
                self.max_ts = m

    def on_periodic_emit(self, pt: int, output: WatermarkOutput) -> None:
        output.emit_watermark(self.max_ts - self.subtract)


class TimeLagGenerator(WatermarkGenerator):
    """Emits ``pt - lag`` on every periodic call: call ``k`` emits ``first + k*interval - lag``."""

    closed_form = True

    def __init__(self, lag: int) -> None:
        self.lag = lag

    def skip_calls(self, t: int, k: int, first: int, interval: int) -> None:
        pass  # stateless

    def first_call_reaching(self, x: int, t: int, first: int, interval: int) -> int | None:
        # first + k*interval - lag >= x
        return max(t + 1, -(-(x + self.lag - first) // interval))

    def on_events(self, ts: np.ndarray, pt: np.ndarray, output: WatermarkOutput) -> None:
        pass

    def on_periodic_emit(self, pt: int, output: WatermarkOutput) -> None:
        output.emit_watermark(pt - self.lag)


class PunctuatedGenerator(WatermarkGenerator):
    emits_on_event = True

    def __init__(self, delay: int) -> None:
        self.delay = delay

    def on_event(self, ts: int, pt: int, output: WatermarkOutput, marker: bool = False) -> None:
        if marker:
            output.emit_watermark(ts - self.delay)


class IdleAdvanceGenerator(WatermarkGenerator):
    """Bounded out-of-orderness whose max moves on by ``step`` (capped at ``pt``) on a call
    that would not raise the watermark.

    Closed form over calls without records (after a call, ``last == max_ts - delay - 1``, so
    every such call may advance): with ``m`` the max after call ``t`` and ``a`` the first call
    with ``T_a > m`` (no advance before, ``max_ts < pt`` is false), ``m_a = min(m + step,
    T_a)`` and ``m_j = min(m_a + (j - a) * step, T_j)`` for ``j >= a`` (the cap binds from
    the start and for good when ``step >= interval``; never again after ``a`` otherwise)."""

    closed_form = True

    def __init__(self, delay: int, step: int) -> None:
        self.delay = delay
        self.step = step
        self.max_ts: int | None = None
        self.last = MIN_WATERMARK

    def on_event(self, ts: int, pt: int, output: WatermarkOutput, marker: bool = False) -> None:
        if self.max_ts is None or ts > self.max_ts:
            self.max_ts = ts

    def on_events(self, ts: np.ndarray, pt: np.ndarray, output: WatermarkOutput) -> None:
        if len(ts):
            self.on_event(int(ts.max()), 0, output)

    def on_periodic_emit(self, pt: int, output: WatermarkOutput) -> None:
        if self.max_ts is None:
            output.emit_watermark(MIN_WATERMARK)
            return
        if self.max_ts - self.delay - 1 <= self.last and self.max_ts < pt:
            self.max_ts = min(self.max_ts + self.step, pt)
        wm = self.max_ts - self.delay - 1
        if wm > self.last:
            self.last = wm
        output.emit_watermark(wm)

    def _first_advance(self, t: int, first: int, interval: int) -> tuple[int, int]:
        """``(a, m_a)``: the first call after ``t`` that advances the max, and the max after it."""
        m = self.max_ts
        a = max(t + 1, (m - first) // interval + 1)  # first call with T_a > m
        return a, min(m + self.step, first + a * interval)

    def _max_at(self, j: int, t: int, first: int, interval: int) -> int:
        a, m_a = self._first_advance(t, first, interval)
        if j < a:
            return self.max_ts
        return min(m_a + (j - a) * self.step, first + j * interval)

    def skip_calls(self, t: int, k: int, first: int, interval: int) -> None:
        if self.max_ts is None or k <= t + 1:
            return
        if self.max_ts - self.delay - 1 > self.last:
            raise ValueError("skip_calls needs a generator that ran a call since its last record")
        self.max_ts = self._max_at(k - 1, t, first, interval)
        self.last = max(self.last, self.max_ts - self.delay - 1)

    def first_call_reaching(self, x: int, t: int, first: int, interval: int) -> int | None:
        if self.max_ts is None:
            return None  # emits MIN until a record comes
        y = x + self.delay + 1  # the max the watermark x needs
        if self.max_ts >= y:
            return t + 1
        a, m_a = self._first_advance(t, first, interval)
        k = max(a, a + -(-(y - m_a) // self.step), -(-(y - first) // interval))
        return max(k, t + 1)


def linear_quantile(sample: np.ndarray, q: float) -> float:
    """``np.quantile(sample, q)`` (its default ``linear`` method), bit for bit, for a 1-d
    integer sample: two order statistics by ``np.partition`` and numpy's own interpolation
    (``_lerp``), without ``np.quantile``'s generic overhead (it runs once per periodic call)."""
    n = len(sample)
    v = (n - 1) * float(q)  # numpy's virtual index for "linear"
    lo = int(np.floor(v))
    if lo >= n - 1:
        return float(np.max(sample))
    lo = max(lo, 0)
    part = np.partition(sample, (lo, lo + 1))
    a, b = part[lo], part[lo + 1]
    t = np.float64(v - lo)
    diff = b - a
    return float(b - diff * (1 - t)) if t >= 0.5 else float(a + diff * t)


class AdaptiveGenerator(WatermarkGenerator):
    def __init__(self, cfg: Adaptive) -> None:
        self.cfg = cfg
        self.max_ts: int | None = None
        self.buf = np.zeros(cfg.window, dtype=np.int64)
        self.n = 0  # total lateness samples written
        self._delay: int | None = None

    def _push(self, late: np.ndarray) -> None:
        w = self.cfg.window
        if len(late) >= w:
            late = late[-w:]
        k = len(late)
        start = self.n % w
        first = min(k, w - start)
        self.buf[start : start + first] = late[:first]
        if first < k:
            self.buf[: k - first] = late[first:]
        self.n += k
        self._delay = None

    def on_event(self, ts: int, pt: int, output: WatermarkOutput, marker: bool = False) -> None:
        self.on_events(np.array([ts], dtype=np.int64), np.array([pt], dtype=np.int64), output)

    def on_events(self, ts: np.ndarray, pt: np.ndarray, output: WatermarkOutput) -> None:
        if not len(ts):
            return
        ts = np.asarray(ts, dtype=np.int64)
        run = np.maximum.accumulate(ts)
        prev = np.empty_like(run)
        prev[1:] = run[:-1]
        prev[0] = MIN_WATERMARK if self.max_ts is None else self.max_ts
        if self.max_ts is not None:
            prev = np.maximum(prev, self.max_ts)
        valid = prev != MIN_WATERMARK
        late = np.where(valid, np.maximum(prev - ts, 0), 0)
        self._push(late[valid] if not valid.all() else late)
        m = int(run[-1])
        if self.max_ts is None or m > self.max_ts:
            self.max_ts = m

    def current_delay(self) -> int:
        """The clamped ``ceil`` of the lateness quantile (cached until the next samples)."""
        if self._delay is not None:
            return self._delay
        cfg = self.cfg
        if self.n == 0:
            d = cfg.initial_delay
        else:
            sample = self.buf[: min(self.n, cfg.window)]
            d = int(np.ceil(linear_quantile(sample, cfg.quantile)))
        d = max(d, cfg.min_delay)
        if cfg.max_delay is not None:
            d = min(d, cfg.max_delay)
        self._delay = d
        return d

    def on_periodic_emit(self, pt: int, output: WatermarkOutput) -> None:
        if self.max_ts is None:
            output.emit_watermark(MIN_WATERMARK)
            return
        output.emit_watermark(self.max_ts - self.current_delay() - 1)


class WithIdlenessGenerator(WatermarkGenerator):
    """Flink's ``WatermarksWithIdleness`` with its ``IdlenessTimer`` (nanosecond clock)."""

    def __init__(self, inner: WatermarkGenerator, timeout: int, clock_offset_nanos: int = 0) -> None:
        self.inner = inner
        self.emits_on_event = inner.emits_on_event
        self.max_idle_nanos = timeout * 1_000_000
        self.offset = clock_offset_nanos
        self.counter = 0
        self.last_counter = 0
        self.start_nanos = 0  # 0 = no countdown running
        self.idle_now = False

    def on_event(self, ts: int, pt: int, output: WatermarkOutput, marker: bool = False) -> None:
        self.inner.on_event(ts, pt, output, marker)
        self.counter += 1
        self.idle_now = False

    def on_events(self, ts: np.ndarray, pt: np.ndarray, output: WatermarkOutput) -> None:
        if len(ts):
            self.inner.on_events(ts, pt, output)
            self.counter += len(ts)
            self.idle_now = False

    def quiescent(self) -> bool:
        return self.idle_now

    @property
    def closed_form(self) -> bool:  # type: ignore[override]
        return self.inner.closed_form

    def settled(self) -> bool:
        """True when calls without records only run the inner generator until the countdown
        expires (no reset, the countdown started): what :meth:`skip_calls` assumes."""
        return self.idle_now or (self.counter == self.last_counter and self.start_nanos != 0)

    def expiry_call(self, first: int, interval: int) -> int:
        """The first call at which a running countdown finds the partition idle
        (``now - start > timeout``)."""
        t_min = (self.start_nanos + self.max_idle_nanos - self.offset) // 1_000_000 + 1
        return -(-(t_min - first) // interval)

    def skip_calls(self, t: int, k: int, first: int, interval: int) -> None:
        if self.idle_now:
            return
        if not self.settled() or k - 1 >= self.expiry_call(first, interval):
            raise ValueError("skip_calls would cross an idleness change")
        self.inner.skip_calls(t, k, first, interval)

    def first_call_reaching(self, x: int, t: int, first: int, interval: int) -> int | None:
        if self.idle_now:
            return None
        return self.inner.first_call_reaching(x, t, first, interval)

    def check_if_idle(self, pt: int) -> bool:
        if self.counter != self.last_counter:
            self.last_counter = self.counter
            self.start_nanos = 0
            return False
        now = pt * 1_000_000 + self.offset
        if self.start_nanos == 0:
            self.start_nanos = now
            return False
        return now - self.start_nanos > self.max_idle_nanos

    def on_periodic_emit(self, pt: int, output: WatermarkOutput) -> None:
        if self.check_if_idle(pt):
            if not self.idle_now:
                output.mark_idle()
                self.idle_now = True
        else:
            self.inner.on_periodic_emit(pt, output)


STRATEGY_NAMES = (
    "bounded_out_of_orderness",
    "legacy_bounded_out_of_orderness",
    "monotonous",
    "time_lag",
    "punctuated",
    "idle_advance",
    "adaptive",
)


def make_strategy(name: str, **params: Any) -> WatermarkStrategy:
    """Build a strategy from its name and integer-ms parameters (``idle_timeout`` wraps it)."""
    idle = params.pop("idle_timeout", None)
    name = {"ascending": "monotonous", "bounded": "bounded_out_of_orderness", "legacy": "legacy_bounded_out_of_orderness"}.get(name, name)
    try:
        if name == "bounded_out_of_orderness":
            s: WatermarkStrategy = BoundedOutOfOrderness(params.pop("delay", 0))
        elif name == "legacy_bounded_out_of_orderness":
            s = BoundedOutOfOrderness(params.pop("delay", 0), legacy=True)
        elif name == "monotonous":
            s = Monotonous()
        elif name == "time_lag":
            s = TimeLag(params.pop("lag", params.pop("delay", 0)))
        elif name == "punctuated":
            s = Punctuated(params.pop("marker", "marker"), params.pop("delay", 0))
        elif name == "idle_advance":
            s = IdleAdvance(params.pop("delay", 0), params.pop("step"))
        elif name == "adaptive":
            s = Adaptive(**{k: params.pop(k) for k in list(params) if k in Adaptive.__dataclass_fields__})
        else:
            raise ValueError(f"unknown watermark generator {name!r}; choose one of {', '.join(STRATEGY_NAMES)}")
    except KeyError as exc:
        raise ValueError(f"generator {name!r} needs parameter {exc.args[0]!r}") from None
    params = {k: v for k, v in params.items() if v is not None}
    if params:
        raise ValueError(f"generator {name!r} does not take {', '.join(sorted(params))}")
    if idle is not None:
        s = s.with_idleness(idle)
    return s
