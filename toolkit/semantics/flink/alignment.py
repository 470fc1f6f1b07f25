"""Flink's ``alignment`` setting: watermark alignment of the source's splits.

``alignment="drift=2s,update=1s,buffer=3"`` is ``WatermarkStrategy.withWatermarkAlignment(group,
Duration.ofSeconds(2), Duration.ofSeconds(1))`` with ``pipeline.watermark-alignment.buffer-size``
3 (the defaults: ``update`` 1s, ``buffer`` 3, ``group`` "default"; ``alignment="2s"`` gives the
drift alone). Under alignment a paused split's records are read later, so the replay reads them
at the time the model of :mod:`toolkit.engine.flink.alignment` says: their processing time moves.
"""
from __future__ import annotations

import re
from typing import Any

import numpy as np

from toolkit.engine.flink.alignment import WatermarkAlignment, aligned_reads
from toolkit.settings import SettingError, duration, format_duration, integer

#: what each key of the spelling may also be written as
_KEYS = {"drift": "drift", "max_drift": "drift", "max_allowed_watermark_drift": "drift",
         "update": "update", "update_interval": "update", "buffer": "buffer", "buffer_size": "buffer",
         "group": "group"}
#: the watermark strategies whose split watermarks move only at periodic emissions
ALIGNABLE_STRATEGIES = ("bounded", "legacy", "monotonous")


class Alignment(WatermarkAlignment):
    """A :class:`WatermarkAlignment` written as the setting spells it."""

    def __str__(self) -> str:
        text = (f"drift={format_duration(self.drift)},update={format_duration(self.update_interval)},"
                f"buffer={self.buffer_size}")
        return text + (f",group={self.group}" if self.group != "default" else "")


def parse_alignment(v: Any, name: str) -> Alignment | None:
    """``none``/``off``: no alignment; a duration: the drift; else ``drift=D,update=U,buffer=N,group=G``
    (a dict with those keys, or a ``WatermarkAlignment``). Errors name ``name``."""
    if v is None or (isinstance(v, str) and v.strip().lower() in ("", "none", "off")):
        return None
    if isinstance(v, WatermarkAlignment):
        return Alignment(v.drift, v.update_interval, v.buffer_size, v.group)
    if isinstance(v, str) and "=" not in v:
        v = {"drift": v}
    if isinstance(v, str):
        pairs = [p.partition("=") for p in v.split(",") if p.strip()]
        if any(not sep for _, sep, _ in pairs):
            raise SettingError(name, f"{name} {v!r}: write drift=2s,update=1s,buffer=3 (or just the drift, 2s)")
        v = {k.strip(): val.strip() for k, _, val in pairs}
    if not isinstance(v, dict):
        raise SettingError(name, f"{name} must be a drift like '2s' or 'drift=2s,update=1s,buffer=3', got {v!r}")
    got: dict[str, Any] = {}
    for k, val in v.items():
        key = _KEYS.get(str(k).strip().lower())
        if key is None:
            raise SettingError(name, f"{name}: unknown part {k!r}; the parts are drift, update, buffer and group")
        got[key] = val
    if "drift" not in got:
        raise SettingError(name, f"{name}: drift= is missing (maxAllowedWatermarkDrift)")
    if not re.fullmatch(r"[\w.-]+", str(got.get("group", "default"))):
        raise SettingError(name, f"{name}: a group is letters, digits, '_', '.' or '-', got {got['group']!r}")
    try:
        return Alignment(duration(got["drift"], f"{name} drift"),
                         duration(got.get("update", 1000), f"{name} update", positive=True),
                         integer(got.get("buffer", 3), f"{name} buffer", minimum=0),
                         str(got.get("group", "default")))
    except SettingError as e:  # the error names the setting the user typed
        raise SettingError(name, str(e)) from None


def check_alignment(s: Any) -> None:
    """Refuse what the alignment model does not cover, naming ``alignment``."""
    if s.alignment is None:
        return
    if s.idleness is not None:
        raise SettingError("alignment", "alignment is modelled without idleness; set idleness=none")
    if s.strategy_name not in ALIGNABLE_STRATEGIES:
        raise SettingError("alignment", f"alignment is modelled for the strategies {', '.join(ALIGNABLE_STRATEGIES)}, "
                           f"not {s.strategy_name}")
    if s.interval <= 0:
        raise SettingError("alignment", "alignment needs periodic watermarks: give interval > 0")
    if not s.partitions_as_sources:
        raise SettingError("alignment", "alignment pauses the source's splits: it needs partitions_as_sources=true "
                           "(a watermark per split)")
    if s.split_discovery != "at_start":
        raise SettingError("alignment", "alignment is modelled with every split registered at start "
                           "(split_discovery=at_start)")


def align_arrays(a: dict, s: Any, partitions: Any) -> dict:
    """The replay's arrays (in arrival order) re-ordered by when each record is read under
    ``s.alignment``, ties in row order (the arrival-order rule applied to read times);
    ``a["arr"]`` becomes the read time and ``a["arrival"]`` keeps the arrival."""
    reads = aligned_reads(a["ts"], a["arr"], a["part"], s.watermark_strategy(), interval=int(s.interval),
                          parallelism=int(s.source_parallelism), alignment=s.alignment, partitions=partitions)
    order = np.lexsort((a["rows"], reads.read_time))
    out = {k: (v[order] if isinstance(v, np.ndarray) and len(v) == len(order) else v) for k, v in a.items()}
    out["arrival"] = a["arr"][order]
    out["arr"] = reads.read_time[order]
    out["alignment_events"] = reads.events
    return out

