"""What every incident shares: the base class, composition (``a + b``), applying to a log.

Rules common to every incident:

- **times**: ``at`` is a duration after the *start* of the log the incident (or the whole
  composite) is applied to: its first arrival time. Spans are half-open, ``[at, at+duration)``,
  on the arrival-time axis. Everything is int64 milliseconds.
- **identity**: the ``row`` column is kept: a row of the output is the input row of the same
  number. Rows an incident adds (a restart's duplicates) get new numbers above the largest
  row, in the order of the row they copy, and a column ``duplicate_of`` naming the copied row
  (-1 on every row that is not a copy; a copy of a copy names the first original).
- **order**: the output table keeps the input's row order (copies appended); the arrival order
  is, as for every log, ``arrival_time`` then ``row``. Records given the same millisecond by an
  incident are therefore read in row order.
- **words**: ``apply`` returns a new :class:`~toolkit.log.EventLog` whose ``incidents`` list
  (shown by ``describe()``) ends with one line per incident saying what it did, with counts.
"""
from __future__ import annotations

import difflib
import math
from dataclasses import MISSING, dataclass, fields
from typing import Any, ClassVar, Iterator

import numpy as np
import pandas as pd

from toolkit.durations import parse_duration, readable
from toolkit.incidents.grammar import quote, split_incident, split_incidents
from toolkit.log.model import EventLog
from toolkit.settings import MAX_SETTING_MS, SettingError, format_duration

DUPLICATE_OF = "duplicate_of"


# ----------------------------------------------------------------------------------------
# values: what users write for a parameter
# ----------------------------------------------------------------------------------------

def duration(kind: str, name: str, value: Any, *, allow_negative: bool = False) -> int:
    """A parameter's duration in ms (``"2min"``, ``"500ms"``, an int of ms)."""
    try:
        ms = parse_duration(value, name=name, allow_negative=allow_negative)
    except ValueError as exc:
        raise SettingError(kind, f"{kind}: {exc}") from None
    if abs(ms) > MAX_SETTING_MS:
        raise SettingError(kind, f"{kind}: {name} of {value!r} is absurd (more than 10 years); check the unit")
    return ms


_RATE_UNITS = {"s": 1.0, "sec": 1.0, "min": 60.0, "h": 3600.0}


def rate(kind: str, name: str, value: Any) -> float:
    """A rate in records per second, > 0: ``500/s``, ``30000/min``, ``2/h`` or a number (per s)."""
    text = str(value).strip().lower().replace("records", "").replace(" ", "")
    per = 1.0
    if "/" in text:
        text, unit = text.split("/", 1)
        if unit not in _RATE_UNITS:
            raise SettingError(kind, f"{kind}: {name} {value!r}: write a rate like 500/s, 30000/min or 2/h")
        per = _RATE_UNITS[unit]
    try:
        r = float(text) / per
    except ValueError:
        raise SettingError(kind, f"{kind}: {name} {value!r}: write a rate like 500/s, 30000/min or 2/h") from None
    if isinstance(value, bool) or not math.isfinite(r) or r <= 0:
        raise SettingError(kind, f"{kind}: {name} must be a positive rate of records per second, got {value!r}")
    return r


def format_rate(r: float) -> str:
    """A rate in records/s as written (``500/s``); reads back with :func:`rate`."""
    return f"{int(r)}/s" if float(r).is_integer() else f"{r!r}/s"


def number(kind: str, name: str, value: Any, *, low: float, high: float = math.inf,
           low_open: bool = False) -> float:
    """A real number in ``[low, high]`` (``(low, high]`` with ``low_open``); ``"5%"`` is 0.05."""
    text = str(value).strip()
    scale = 1.0
    if text.endswith("%"):
        text, scale = text[:-1], 0.01
    try:
        x = float(text) * scale
    except ValueError:
        x = math.nan
    if isinstance(value, bool) or not math.isfinite(x) or x < low or x > high or (low_open and x == low):
        span = f"{'(' if low_open else '['}{low:g}, {high:g}]"
        raise SettingError(kind, f"{kind}: {name} must be a number in {span}, got {value!r}")
    return x


def integer(kind: str, name: str, value: Any, *, minimum: int = 0) -> int:
    """An integer >= ``minimum`` (text of digits accepted)."""
    if isinstance(value, str) and value.strip().lstrip("+-").isdigit():
        value = int(value.strip())
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)) or value < minimum:
        raise SettingError(kind, f"{kind}: {name} must be an integer >= {minimum}, got {value!r}")
    return int(value)


_TRUE, _FALSE = ("true", "yes", "on", "1"), ("false", "no", "off", "0")


def boolean(kind: str, name: str, value: Any) -> bool:
    """``true``/``false`` (also yes/no, on/off, 1/0)."""
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    text = str(value).strip().lower()
    if text in _TRUE:
        return True
    if text in _FALSE:
        return False
    raise SettingError(kind, f"{kind}: {name} must be true or false, got {value!r}")


def partition(kind: str, value: Any) -> int | str:
    """A partition as written: its integer code, or its name (for logs with named partitions)."""
    if isinstance(value, (bool, np.bool_)) or value is None:
        raise SettingError(kind, f"{kind}: partition must be a partition number or name, got {value!r}")
    if isinstance(value, (int, np.integer)):
        if value < 0:
            raise SettingError(kind, f"{kind}: partition must be >= 0, got {value!r}")
        return int(value)
    text = str(value).strip()
    if not text:
        raise SettingError(kind, f"{kind}: partition must not be empty")
    return int(text) if text.isdigit() else text


def clock(ms: int) -> str:
    """A time after the log's start as ``H:MM:SS`` (``.mmm`` when not whole seconds)."""
    sign = "-" if ms < 0 else ""
    s, milli = divmod(abs(int(ms)), 1000)
    h, rest = divmod(s, 3600)
    m, s = divmod(rest, 60)
    return f"{sign}{h}:{m:02d}:{s:02d}" + (f".{milli:03d}" if milli else "")


def records(n: int) -> str:
    return f"{n:,} record{'' if n == 1 else 's'}"


def words_rate(r: float) -> str:
    return f"{r:,.6g} records/s"


def words_duration(ms: int) -> str:
    return readable(ms)


# ----------------------------------------------------------------------------------------
# the context an incident is applied in
# ----------------------------------------------------------------------------------------

@dataclass
class Context:
    """What an incident needs besides the table: the input log (partition names and the
    partitions the job reads) and the origin of ``at`` (the first arrival, ms).

    ``provisional_copies``: the table is one slice of the log (a Spark task's partition), so the
    copies an incident adds cannot be numbered here; each is numbered ``-1 - copied row`` and the
    caller numbers them over the whole log (:func:`copies`, ``toolkit.sweeps.spark_incidents``)."""

    log: EventLog
    origin: int
    provisional_copies: bool = False

    def partition_code(self, kind: str, value: int | str) -> int:
        """The code of partition ``value`` (by name when the log names its partitions)."""
        log = self.log
        codes = [int(c) for c in log.source_partitions]
        names = [log.partition_name(c) for c in codes]
        if log.partition_names is not None:
            if str(value) in names:
                return codes[names.index(str(value))]
        elif isinstance(value, int) and value in codes:
            return value
        listed = ", ".join(names)
        raise SettingError(kind, f"{kind}: partition {value} is not in the log (partitions: {listed})")


def require_arrival(kind: str, table: pd.DataFrame) -> None:
    if "arrival_time" not in table.columns:
        raise SettingError(kind, f"{kind}: this log has no arrival times (it is replayed in row order); "
                                 f"{kind} moves arrivals, so load the log with arrival_time=COLUMN")


def arrival_sorted(table: pd.DataFrame, mask: np.ndarray | None = None) -> np.ndarray:
    """Positions of ``table`` rows (those in ``mask``) in arrival order: arrival_time, then row."""
    a = table["arrival_time"].to_numpy(np.int64)
    r = table["row"].to_numpy(np.int64)
    pos = np.arange(len(table)) if mask is None else np.flatnonzero(mask)
    return pos[np.lexsort((r[pos], a[pos]))]


# ----------------------------------------------------------------------------------------
# incidents
# ----------------------------------------------------------------------------------------

#: kind -> incident class, filled by each subclass as it is defined
KINDS: dict[str, type["Incident"]] = {}
#: other names of kinds
KIND_ALIASES = {"skew": "clock_skew", "late": "late_upload", "outage": "silence", "crash": "restart"}


class Incident:
    """Base of every incident: a frozen value (see the subclasses) that transforms a log.

    A subclass is a frozen dataclass with a class attribute ``kind`` (its spelling) and
    implements :meth:`_transform`; its fields are written by ``str()`` in declaration order
    (``None`` fields left out) through :meth:`_spell`.
    """

    kind: ClassVar[str] = ""
    #: other names a parameter may be written with: alias -> field name
    aliases: ClassVar[dict[str, str]] = {}

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if cls.kind and cls.kind != "composite":
            KINDS[cls.kind] = cls

    # -- what subclasses implement ---------------------------------------------------------
    def _transform(self, table: pd.DataFrame, ctx: Context) -> tuple[pd.DataFrame, str]:
        """The transformed table and one line in words with counts."""
        raise NotImplementedError

    def words(self) -> str:
        """What the incident does, in words, without a log."""
        raise NotImplementedError

    def _spell(self, name: str, value: Any) -> str:
        if isinstance(value, bool):
            return "true" if value else "false"
        return quote(str(value))

    def per_partition(self) -> bool:
        """Whether applying the incident to each source partition's records alone (same time
        origin) gives exactly what applying it to the whole log gives: true when no record's new
        values depend on another partition's records and no record is chosen or numbered across
        partitions. A Spark sweep applies such incidents where the log lives, one task per
        partition (``toolkit.sweeps.variants``)."""
        return False

    def adds_copies(self) -> bool:
        """Whether the incident is per partition but for the numbers of the copies it adds, which
        follow the largest row of the whole log (a ``restart`` with duplicates): applied to a
        slice with ``Context.provisional_copies``, then numbered over the whole log."""
        return False

    def by_rank(self) -> bool:
        """Whether the incident picks records by their rank in row order over the whole log: it
        then implements :meth:`draw` (what it picks for ``n`` records, from its seed) and
        :meth:`apply_draw` (a slice of the log in row order, picked records changed), so the log
        can be transformed slice by slice (``late_upload``)."""
        return False

    def draw(self, n: int) -> Any:
        """What a :meth:`by_rank` incident picks for a log of ``n`` records."""
        raise NotImplementedError(f"{self.kind} does not pick records by rank")

    def apply_draw(self, table: pd.DataFrame, first_rank: int, drawn: Any) -> pd.DataFrame:
        """The records of ranks ``first_rank`` on (in row order), with what :meth:`draw` picked applied."""
        raise NotImplementedError(f"{self.kind} does not pick records by rank")

    # -- shared ------------------------------------------------------------------------------
    def items(self) -> Iterator["Incident"]:
        yield self

    def _run(self, table: pd.DataFrame, ctx: Context) -> tuple[pd.DataFrame, list[str]]:
        out, text = self._transform(table, ctx)
        return out, [text]

    def apply(self, log: EventLog) -> EventLog:
        """A new log with the incident applied (the input log is not changed)."""
        table, ctx = _start(log)
        out, texts = self._run(table, ctx)
        return _finish(log, out, texts, self)

    def describe(self, log: EventLog | None = None) -> str:
        """In words what the incident does to ``log`` (with counts), or in general without one."""
        if log is None:
            return "; then ".join(i.words() for i in self.items())
        table, ctx = _start(log)
        return "; then ".join(self._run(table, ctx)[1])

    def __add__(self, other: "Incident") -> "Composite":
        if not isinstance(other, Incident):
            return NotImplemented
        return Composite(tuple(self.items()) + tuple(other.items()))

    def __str__(self) -> str:
        params = []
        for f in fields(self):  # type: ignore[arg-type]
            v = getattr(self, f.name)
            if v is not None:
                params.append(f"{f.name}={self._spell(f.name, v)}")
        return f"{self.kind}:{','.join(params)}" if params else self.kind

    @classmethod
    def parse(cls, text: "str | Incident") -> "Incident":
        """Read a spelling (``str()`` of an incident); on a subclass, of that kind only."""
        x = parse_incident(text)
        if cls is not Incident and not isinstance(x, cls):
            raise SettingError("incident", f"{str(text)!r} is not a {cls.kind} incident")
        return x


@dataclass(frozen=True)
class Composite(Incident):
    """Incidents applied one after the other: ``a + b`` applies ``a``, then ``b`` to its result.

    Every ``at`` in a composite counts from the start of the log the composite is applied to.
    Written ``a + b`` (``str()``), read back by :func:`toolkit.incidents.parse_incident`.
    """

    incidents: tuple[Incident, ...]
    kind: ClassVar[str] = "composite"

    def __post_init__(self) -> None:
        flat: list[Incident] = []
        for i in self.incidents:
            if not isinstance(i, Incident):
                raise SettingError("incident", f"a composite holds incidents, got {i!r}")
            flat.extend(i.items())
        object.__setattr__(self, "incidents", tuple(flat))

    def items(self) -> Iterator[Incident]:
        yield from self.incidents

    def per_partition(self) -> bool:
        """Each incident in turn is per partition (the origin is the composite's, fixed)."""
        return all(i.per_partition() for i in self.incidents)

    def _run(self, table: pd.DataFrame, ctx: Context) -> tuple[pd.DataFrame, list[str]]:
        texts: list[str] = []
        for i in self.incidents:
            table, t = i._run(table, ctx)
            texts += t
        return table, texts

    def words(self) -> str:
        return "; then ".join(i.words() for i in self.incidents)

    def __str__(self) -> str:
        return " + ".join(str(i) for i in self.incidents) if self.incidents else "none"


# ----------------------------------------------------------------------------------------
# parsing
# ----------------------------------------------------------------------------------------

def _did_you_mean(word: str, candidates) -> str:
    close = difflib.get_close_matches(word, list(candidates), n=1, cutoff=0.6)
    return f" (did you mean {close[0]!r}?)" if close else ""


def build(kind: str, params: dict[str, Any]) -> Incident:
    """An incident of ``kind`` from parameters by name (aliases accepted, every one checked)."""
    kind = KIND_ALIASES.get(kind, kind)
    if kind not in KINDS:
        raise SettingError("incident", f"unknown incident {kind!r}: choose one of {', '.join(KINDS)}"
                           f"{_did_you_mean(kind, list(KINDS) + list(KIND_ALIASES))}")
    cls = KINDS[kind]
    names = [f.name for f in fields(cls)]  # type: ignore[arg-type]
    given: dict[str, Any] = {}
    for name, value in params.items():
        field = cls.aliases.get(name, name)
        if field not in names:
            raise SettingError(kind, f"{kind}: unknown parameter {name!r}: choose among {', '.join(names)}"
                               f"{_did_you_mean(name, names + list(cls.aliases))}")
        if field in given:
            raise SettingError(kind, f"{kind}: {field} is given twice")
        given[field] = value
    for f in fields(cls):  # type: ignore[arg-type]
        if f.name not in given and f.default is MISSING:
            usage = f"{kind}:" + ",".join(f"{g.name}=..." for g in fields(cls))  # type: ignore[arg-type]
            raise SettingError(kind, f"{kind}: {f.name}= is missing ({usage})")
    return cls(**given)


def parse_incident(text: "str | Incident") -> Incident:
    """An incident (or a :class:`Composite` for ``a + b``) from its spelling.

    ``"stall:partition=2,at=1min,duration=2min,drain=500/s"``, the call-like
    ``"stall(partition=2, at=1min, duration=2min, drain=500/s)"``, or several joined by
    ``+`` (grammar: :mod:`toolkit.incidents.grammar`). ``parse_incident(str(x)) == x``.
    """
    if isinstance(text, Incident):
        return text
    if not isinstance(text, str) or not text.strip():
        raise SettingError("incident", "an incident is text like 'stall:partition=2,at=1min,duration=2min,drain=500/s', "
                                       f"got {text!r}")
    parts = split_incidents(text)
    if len(parts) > 1 or text.strip() == "none":
        return Composite(tuple(parse_incident(p) for p in parts if p != "none"))
    kind, pairs = split_incident(parts[0])
    params: dict[str, Any] = {}
    for name, value in pairs:
        if name in params:
            raise SettingError(kind, f"{kind}: {name} is given twice")
        params[name] = value
    return build(kind, params)


# ----------------------------------------------------------------------------------------
# applying
# ----------------------------------------------------------------------------------------

def collect(log: EventLog) -> EventLog:
    """A pandas-backed copy of a Spark-backed log (collects every record to the driver)."""
    if not log.is_spark:
        return log
    table = log.to_pandas().sort_values("row", kind="stable").reset_index(drop=True)
    present = tuple(int(p) for p in np.unique(table["partition"].to_numpy(np.int64)))
    return _rebuild(log, table, [], present)


def _start(log: EventLog) -> tuple[pd.DataFrame, Context]:
    if not isinstance(log, EventLog):
        raise TypeError(f"an incident is applied to an EventLog (toolkit.load_log), got {type(log).__name__}")
    if log.is_spark:
        raise ValueError(f"incidents transform a pandas-backed log; this one is Spark-backed ({log.n_records:,} "
                         "records in log.spark_df): collect it first with toolkit.incidents.collect(log)")
    table = log.table
    axis = "arrival_time" if log.has_arrival_time else "event_time"
    origin = int(table[axis].min()) if len(table) else 0
    return table, Context(log=log, origin=origin)


def _finish(log: EventLog, table: pd.DataFrame, texts: list[str], incident: Incident) -> EventLog:
    if len(table) == 0:
        raise SettingError(incident.kind if not isinstance(incident, Composite) else "incident",
                           f"{incident} leaves no record in the log")
    return _rebuild(log, table, texts)


def _rebuild(log: EventLog, table: pd.DataFrame, texts: list[str],
             present_before: tuple[int, ...] | None = None) -> EventLog:
    out = EventLog(table.reset_index(drop=True), log.quarantine, partition_names=log.partition_names,
                   source=log.source)
    out.unused_columns = list(log.unused_columns)
    out.floored = dict(log.floored)
    out.warnings = list(log.warnings)
    out.incidents = list(getattr(log, "incidents", [])) + texts
    # the job still reads every partition it read before, even one an incident emptied
    if log.declared_partitions is not None:
        source = tuple(int(p) for p in log.declared_partitions)
    elif present_before is not None:
        source = present_before
    else:
        source = tuple(int(p) for p in log.source_partitions)
    present = set(int(p) for p in out.partitions) if len(table) else set()
    if log.declared_partitions is not None or not set(source) <= present:
        out.declared_partitions = source
        out.silent_partitions = tuple(p for p in source if p not in present)
    return out


def copies(table: pd.DataFrame, positions: np.ndarray, arrival: np.ndarray, provisional: bool = False) -> pd.DataFrame:
    """``table`` with copies of the rows at ``positions`` appended, arriving at ``arrival``.

    Copies are numbered after the largest row, in the order of the row they copy; their
    ``duplicate_of`` names the first original (-1 on rows that are no copy). ``provisional``
    (a slice of the log, ``Context.provisional_copies``): each copy is numbered ``-1 - copied row``
    instead, for the caller to number over the whole log."""
    if DUPLICATE_OF not in table.columns:
        table = table.assign(**{DUPLICATE_OF: np.full(len(table), -1, dtype=np.int64)})
    if len(positions) == 0:
        return table
    rows = table["row"].to_numpy(np.int64)
    by_row = np.argsort(rows[positions], kind="stable")
    positions, arrival = positions[by_row], arrival[by_row]
    extra = table.iloc[positions].copy()
    original = extra[DUPLICATE_OF].to_numpy(np.int64)
    extra[DUPLICATE_OF] = np.where(original >= 0, original, extra["row"].to_numpy(np.int64))
    if provisional:
        extra["row"] = -1 - rows[positions]
    else:
        extra["row"] = int(rows.max()) + 1 + np.arange(len(positions), dtype=np.int64)
    extra["arrival_time"] = arrival.astype(np.int64)
    return pd.concat([table, extra], ignore_index=True)


def spell_duration(ms: int) -> str:
    return format_duration(ms)
