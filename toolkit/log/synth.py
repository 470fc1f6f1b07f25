"""Synthetic event logs: seeded, named models, vectorized with numpy.

Every generator returns an :class:`~toolkit.log.EventLog` (the same object ``load_log``
returns, so it goes straight into ``toolkit.replay``); ``log.table`` is the pandas
DataFrame, and :func:`to_frame` / :func:`write` turn it into a file's columns (epoch ms or
ISO-8601 times, optionally with deliberately bad rows).

The process, all at once for all records (no per-record Python):

1. **Event times** are a Poisson process of ``rate`` events per second starting at
   ``start``; with ``bursts=(every, duration, factor)`` the rate is ``factor`` times higher
   during the first ``duration`` of every ``every`` (inverse of the cumulative intensity).
   With ``nightly=(from, duration)`` no event happens from time of day ``from`` (UTC) for
   ``duration`` every day (a night without departures): the process runs in the active hours only.
2. **Arrival delays** (arrival - event) follow ``delay``: "exponential" (mean
   ``delay_scale``), "lognormal" (median ``delay_scale``, sigma ``delay_shape``),
   "pareto" (heavy-tailed: minimum ``delay_scale``, tail index ``delay_shape``), or
   "constant". NEXMark-like hold-back: a share ``held_back`` of events gets an extra
   uniform delay in [0, ``hold_max``].
3. **Partitions** are drawn uniformly; partition ``lagging_partition`` can have a clock
   ``skew`` (its event times are recorded ``skew`` ms behind) and an arrival ``lag``
   (delivered ``lag`` ms later); partition ``silent_partition`` sends nothing for
   ``silent_for`` ms from ``start + silent_from`` (those events go to other partitions).
   ``partition_names`` (sorted, as a loader numbers them) name the partitions in files and
   in ``log.partition_names``.
4. **Keys**: ``keys`` names ``k00``, ``k01``... drawn Zipf-skewed with exponent ``zipf``
   (0 = uniform). **Values**: integers 1..100.
5. Rows are in arrival order (ties: generation order), as a recorder would write them.

Times are floored to whole ms. The same ``seed`` and parameters give the same log on
every machine (numpy's PCG64 ``default_rng``).
"""
from __future__ import annotations

from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from toolkit.durations import parse_duration
from toolkit.log.formats import detect_format
from toolkit.log.model import EventLog
from toolkit.log.quarantine import empty_quarantine

DEFAULT_START = 1_700_000_000_000  # 2023-11-14T22:13:20Z
DELAYS = ("exponential", "lognormal", "pareto", "constant")
DAY = 86_400_000


@dataclass(frozen=True)
class SynthConfig:
    """Parameters of a synthetic log (durations in ms; strings like "5s" accepted by :func:`generate`)."""

    records: int = 10_000
    seed: int = 0
    start: int = DEFAULT_START
    rate: float = 1000.0  # events per second
    bursts: tuple[int, int, float] | None = None  # (every ms, duration ms, rate factor)
    delay: str = "exponential"
    delay_scale: float = 50.0  # ms
    delay_shape: float = 1.0  # lognormal sigma / pareto tail index
    held_back: float = 0.0  # share of events held back (NEXMark-like)
    hold_max: int = 0  # ms, uniform extra delay of held-back events
    keys: int = 10
    zipf: float = 0.0
    partitions: int = 1
    lagging_partition: int | None = None
    skew: int = 0  # ms the lagging partition's clock is behind
    lag: int = 0  # ms the lagging partition's arrivals are late
    silent_partition: int | None = None
    silent_from: int = 0  # ms after start
    silent_for: int = 0  # ms
    partition_names: tuple[str, ...] | None = None  # names of partitions 0, 1, ... (sorted)
    nightly: tuple[int, int] | None = None  # (time of day ms, duration ms) without events, every day
    arrival: bool = True  # False: drop the arrival_time column (rows stay in arrival order)

    def __post_init__(self) -> None:
        if int(self.records) < 1:
            raise ValueError(f"records must be at least 1, got {self.records!r}")
        if not self.rate > 0:
            raise ValueError(f"rate must be positive (events per second), got {self.rate!r}")
        if self.delay not in DELAYS:
            raise ValueError(f"delay: unknown distribution {self.delay!r}; use one of {', '.join(DELAYS)}")
        if self.delay_scale < 0:
            raise ValueError(f"delay_scale must not be negative, got {self.delay_scale!r}")
        if self.delay in ("lognormal", "pareto") and not self.delay_shape > 0:
            raise ValueError(f"delay_shape must be positive for {self.delay}, got {self.delay_shape!r}")
        if not 0 <= self.held_back <= 1:
            raise ValueError(f"held_back is a share between 0 and 1, got {self.held_back!r}")
        if self.keys < 1:
            raise ValueError(f"keys must be at least 1, got {self.keys!r}")
        if self.zipf < 0:
            raise ValueError(f"zipf exponent must not be negative, got {self.zipf!r}")
        if self.partitions < 1:
            raise ValueError(f"partitions must be at least 1, got {self.partitions!r}")
        for name in ("lagging_partition", "silent_partition"):
            p = getattr(self, name)
            if p is not None and not 0 <= p < self.partitions:
                raise ValueError(f"{name}={p} is not one of the {self.partitions} partitions (0..{self.partitions - 1})")
        if self.silent_partition is not None and self.partitions < 2:
            raise ValueError("a silent partition needs at least 2 partitions (its events move to the others)")
        if self.partition_names is not None:
            names = [str(n) for n in self.partition_names]
            if len(names) != self.partitions or len(set(names)) != len(names) or names != sorted(names):
                raise ValueError(f"partition_names must be {self.partitions} distinct names in sorted order "
                                 f"(as a loader numbers them), got {list(self.partition_names)!r}")
        if self.nightly is not None:
            at, quiet = self.nightly
            if not (0 <= at < DAY and 0 < quiet < DAY):
                raise ValueError(f"nightly=(from, duration) needs 0 <= from < 24 h and 0 < duration < 24 h, "
                                 f"got {self.nightly!r}")
        if self.bursts is not None:
            every, duration, factor = self.bursts
            if not (0 < duration <= every and factor > 0):
                raise ValueError(f"bursts=(every, duration, factor) needs 0 < duration <= every and factor > 0, got {self.bursts!r}")


# Named models: presets over SynthConfig's defaults.
MODELS: dict[str, dict[str, Any]] = {
    "steady": dict(delay="exponential", delay_scale=50.0),
    "lognormal": dict(delay="lognormal", delay_scale=40.0, delay_shape=1.0),
    "pareto": dict(delay="pareto", delay_scale=10.0, delay_shape=1.5),
    "bursty": dict(bursts=(10_000, 1_000, 10.0), delay="lognormal", delay_scale=40.0, delay_shape=0.8),
    "skewed": dict(keys=50, zipf=1.2, partitions=4),
    "lagging": dict(partitions=4, lagging_partition=3, skew=2_000, lag=500, keys=20, zipf=1.1,
                    delay="lognormal", delay_scale=30.0, delay_shape=0.7),
    "silent": dict(partitions=3, silent_partition=2, silent_from=20_000, silent_for=30_000,
                   delay="exponential", delay_scale=40.0),
    "nexmark": dict(delay="constant", delay_scale=5.0, held_back=0.1, hold_max=2_000, keys=100, zipf=1.0,
                    partitions=2),
    # the demo's input (data/sample.csv): 3 partitions, one silent for 40 s, lognormal
    # delays with a NEXMark-like held-back share (late data for short watermark delays)
    "sample": dict(rate=100.0, partitions=3, silent_partition=2, silent_from=120_000, silent_for=40_000,
                   keys=8, zipf=1.1, delay="lognormal", delay_scale=60.0, delay_shape=0.9,
                   held_back=0.02, hold_max=5_000),
    # a year of departures: 40,000 records fill 2023 with three named airports,
    # no departures from 23:00 to 05:00 UTC, delays of minutes with a few held back for hours
    "year": dict(start=1_672_531_200_000, rate=40_000 / (365 * 18 * 3600.0), partitions=3,
                 partition_names=("EWR", "JFK", "LGA"), nightly=(23 * 3_600_000, 6 * 3_600_000), keys=12, zipf=0.8,
                 delay="lognormal", delay_scale=600_000.0, delay_shape=1.0, held_back=0.03, hold_max=4 * 3_600_000),
}

_DURATION_FIELDS = {"start", "skew", "lag", "silent_from", "silent_for", "hold_max"}


def config(model: str = "steady", **params: Any) -> SynthConfig:
    """The :class:`SynthConfig` of a named model with ``params`` overriding its preset."""
    if model not in MODELS:
        raise ValueError(f"unknown synthetic model {model!r}; models: {', '.join(MODELS)}")
    known = {f.name for f in fields(SynthConfig)}
    unknown = sorted(set(params) - known)
    if unknown:
        raise ValueError(f"unknown parameter(s) {', '.join(unknown)}; parameters: {', '.join(sorted(known))}")
    merged = {**MODELS[model], **{k: v for k, v in params.items() if v is not None}}
    for name in _DURATION_FIELDS & set(merged):
        merged[name] = parse_duration(merged[name], name=name)
    if merged.get("nightly") is not None:
        at, quiet = merged["nightly"]
        merged["nightly"] = (parse_duration(at, name="nightly from"), parse_duration(quiet, name="nightly duration"))
    if merged.get("partition_names") is not None:
        merged["partition_names"] = tuple(str(n) for n in merged["partition_names"])
    if "bursts" in merged and merged["bursts"] is not None:
        every, duration, factor = merged["bursts"]
        merged["bursts"] = (parse_duration(every, name="bursts every"), parse_duration(duration, name="bursts duration"),
                            float(factor))
    for name in ("records", "seed", "keys", "partitions"):
        if name in merged:
            merged[name] = int(merged[name])
    return SynthConfig(**merged)


def generate(model: str = "steady", records: int | None = None, *, seed: int = 0, **params: Any):
    """Generate a log of the named ``model`` (see ``MODELS``); returns an EventLog."""
    if records is not None:
        params["records"] = records
    return synthesize(config(model, seed=seed, **params), name=model)


def synthesize(cfg: SynthConfig, *, name: str = "custom"):
    """Generate the log described by ``cfg`` (vectorized)."""
    table = _table(cfg)
    names = list(cfg.partition_names) if cfg.partition_names is not None else None
    return EventLog(table, empty_quarantine(), partition_names=names,
                    source=f"synth:{name}(records={cfg.records}, seed={cfg.seed})")


def _event_offsets(rng: np.random.Generator, cfg: SynthConfig) -> np.ndarray:
    """True event times (float ms after start) of a (modulated) Poisson process."""
    n = cfg.records
    unit_points = np.cumsum(rng.standard_exponential(n))  # unit-rate Poisson points
    per_ms = cfg.rate / 1000.0
    if cfg.bursts is None:
        return _nightly(unit_points / per_ms, cfg)
    every, duration, factor = cfg.bursts
    burst_mass = factor * per_ms * duration  # expected events in a burst
    period_mass = burst_mass + per_ms * (every - duration)
    k = np.floor(unit_points / period_mass)
    r = unit_points - k * period_mass
    within = np.where(r < burst_mass, r / (factor * per_ms), duration + (r - burst_mass) / per_ms)
    return _nightly(k * every + within, cfg)


def _nightly(active: np.ndarray, cfg: SynthConfig) -> np.ndarray:
    """Offsets after ``start`` of the instants that lie ``active`` ms of active time after it,
    skipping each day's silence ``cfg.nightly`` (unchanged without one)."""
    if cfg.nightly is None:
        return active
    at, quiet = cfg.nightly
    end = at + quiet
    # the active stretches of one UTC day, [from, to) in ms of the day
    segments = [(0, at), (end, DAY)] if end <= DAY else [(end - DAY, at)]
    lo = np.array([a for a, b in segments if b > a], dtype=np.float64)
    length = np.array([b - a for a, b in segments if b > a], dtype=np.float64)
    before = np.r_[0.0, np.cumsum(length)[:-1]]
    per_day = float(length.sum())

    def active_until(phase: float) -> float:  # active ms of a day before time of day ``phase``
        return float(np.clip(phase - lo, 0.0, length).sum())

    phase0 = float(cfg.start % DAY)
    total = np.asarray(active, dtype=np.float64) + active_until(phase0)
    day = np.floor(total / per_day)
    rest = total - day * per_day
    seg = np.searchsorted(before, rest, side="right") - 1
    return day * DAY + lo[seg] + (rest - before[seg]) - phase0


def _delays(rng: np.random.Generator, cfg: SynthConfig) -> np.ndarray:
    n = cfg.records
    if cfg.delay == "exponential":
        d = rng.exponential(cfg.delay_scale, n) if cfg.delay_scale > 0 else np.zeros(n)
    elif cfg.delay == "lognormal":
        d = cfg.delay_scale * rng.lognormal(0.0, cfg.delay_shape, n)
    elif cfg.delay == "pareto":
        d = cfg.delay_scale * (1.0 + rng.pareto(cfg.delay_shape, n))
    else:
        d = np.full(n, float(cfg.delay_scale))
    if cfg.held_back > 0:
        held = rng.random(n) < cfg.held_back
        d = d + np.where(held, rng.uniform(0.0, float(cfg.hold_max), n), 0.0)
    return d


def _keys(rng: np.random.Generator, cfg: SynthConfig) -> np.ndarray:
    width = len(str(cfg.keys - 1))
    names = np.array([f"k{i:0{width}d}" for i in range(cfg.keys)], dtype=object)
    if cfg.keys == 1:
        return np.repeat(names, cfg.records)
    if cfg.zipf > 0:
        weights = 1.0 / np.arange(1, cfg.keys + 1, dtype=np.float64) ** cfg.zipf
        cdf = np.cumsum(weights / weights.sum())
        codes = np.searchsorted(cdf, rng.random(cfg.records), side="right")
        codes = np.minimum(codes, cfg.keys - 1)
    else:
        codes = rng.integers(0, cfg.keys, cfg.records)
    return names[codes]


def _table(cfg: SynthConfig) -> pd.DataFrame:
    rng = np.random.default_rng(cfg.seed)
    n = cfg.records
    true_t = _event_offsets(rng, cfg)
    delay = _delays(rng, cfg)
    partition = rng.integers(0, cfg.partitions, n) if cfg.partitions > 1 else np.zeros(n, dtype=np.int64)
    if cfg.silent_partition is not None and cfg.silent_for > 0:
        quiet = (partition == cfg.silent_partition) & (true_t >= cfg.silent_from) & (true_t < cfg.silent_from + cfg.silent_for)
        shift = 1 + rng.integers(0, cfg.partitions - 1, n)
        partition = np.where(quiet, (partition + shift) % cfg.partitions, partition)
    keys = _keys(rng, cfg)
    values = rng.integers(1, 101, n)
    event = cfg.start + np.floor(true_t).astype(np.int64)
    arrival = cfg.start + np.floor(true_t + delay).astype(np.int64)
    if cfg.lagging_partition is not None:
        lagging = partition == cfg.lagging_partition
        event = np.where(lagging, event - cfg.skew, event)
        arrival = np.where(lagging, arrival + cfg.lag, arrival)
    order = np.argsort(arrival, kind="stable")
    table = pd.DataFrame(
        {
            "row": np.arange(n, dtype=np.int64),
            "event_time": event[order],
            "arrival_time": arrival[order],
            "key": keys[order],
            "partition": partition[order].astype(np.int64),
            "value": values[order].astype(np.int64),
        },
        copy=False,  # no block consolidation: 10 M rows stay cheap
    )
    if not cfg.arrival:
        table = table.drop(columns="arrival_time")
    return table


# ---------------------------------------------------------------------- files
BAD_ROW_KINDS = (
    ("event_time", None),
    ("event_time", "not-a-time"),
    ("value", "twelve"),
    ("arrival_time", "yesterday"),
    ("key", None),
)


def to_frame(log, *, time_format: str = "epoch", bad_rows: int = 0, seed: int = 0) -> pd.DataFrame:
    """The log's columns as written to a file (without ``row``).

    ``time_format``: "epoch" (int ms) or "iso" (ISO-8601 UTC with ms and "Z").
    ``bad_rows``: corrupt that many rows (chosen with ``seed``), cycling through a null
    event time, an unparsable event time, a non-numeric value, an unparsable arrival time
    and a null key, so that loading them exercises the quarantine.
    """
    frame = log.table.drop(columns="row").copy()
    if getattr(log, "partition_names", None) is not None:
        frame["partition"] = np.asarray(log.partition_names, dtype=object)[frame["partition"].to_numpy()]
    if time_format not in ("epoch", "iso"):
        raise ValueError(f"time_format: use 'epoch' or 'iso', got {time_format!r}")
    if time_format == "iso":
        for col in ("event_time", "arrival_time"):
            if col in frame.columns:
                frame[col] = iso_strings(frame[col].to_numpy())
    if bad_rows:
        if not 0 < bad_rows <= len(frame):
            raise ValueError(f"bad_rows must be between 0 and the number of records ({len(frame)}), got {bad_rows}")
        rng = np.random.default_rng([seed, 0xBAD])
        where = np.sort(rng.choice(len(frame), size=bad_rows, replace=False))
        kinds = [k for k in BAD_ROW_KINDS if k[0] in frame.columns]
        for i, pos in enumerate(where):
            col, bad = kinds[i % len(kinds)]
            if frame[col].dtype != object:
                frame[col] = frame[col].astype(object)
            frame.iat[pos, frame.columns.get_loc(col)] = bad
    return frame


def iso_strings(ms: np.ndarray) -> np.ndarray:
    """Epoch ms as ISO-8601 UTC strings like 2023-11-14T22:13:20.123Z (vectorized)."""
    ms = np.asarray(ms, dtype=np.int64)
    secs = np.datetime_as_string(ms.astype("datetime64[ms]"), unit="ms")
    return np.char.add(secs.astype(str), "Z").astype(object)


def write(log_or_frame, path, *, format: str | None = None, **frame_options: Any) -> None:
    """Write a log (via :func:`to_frame`) or a frame to CSV, Parquet or JSON lines, deterministically."""
    path = Path(path)
    frame = log_or_frame if isinstance(log_or_frame, pd.DataFrame) else to_frame(log_or_frame, **frame_options)
    fmt = detect_format(path, format)
    path.parent.mkdir(parents=True, exist_ok=True)
    if fmt == "csv":
        frame.to_csv(path, index=False, lineterminator="\n")
    elif fmt == "jsonl":
        frame.to_json(path, orient="records", lines=True, force_ascii=False)
    else:
        import pyarrow as pa
        import pyarrow.parquet as pq

        table = pa.Table.from_pandas(frame, preserve_index=False)
        table = table.replace_schema_metadata(None)  # no pandas metadata: stable bytes
        pq.write_table(table, path, compression="zstd")
