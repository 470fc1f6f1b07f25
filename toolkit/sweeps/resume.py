"""Resumable sweeps: ``toolkit.sweep(log, ..., out="results.parquet")`` / ``sweep --out``.

On disk, beside ``out`` (``docs/sweeps.md``, "Long sweeps"):

- ``.results.parquet.parts/`` (hidden, in ``out``'s folder) while the sweep runs: ``manifest.json``
  (the log's fingerprint, the settings' digest, ``path``, the number of configurations) and one
  ``part-NNNNNN.parquet`` per finished batch of configurations: its result rows and a ``_job``
  column, each row's position in the sweep (variant-major with incidents). Every file is written
  whole or not at all (``toolkit.outputs.atomic_write``), so a part file that exists is complete.
- ``results.parquet`` (or ``.csv``, ``.json``): written once, atomically, when every configuration
  is done, from the part files in ``_job`` order; then the parts folder is removed.

Rules: a rerun skips the configurations already in part files and says so in one line; a parts
folder of another log (fingerprint) or of other settings (digest, ``path``) is refused naming
``out`` unless ``fresh=True`` (``--fresh``) discards it; never are two sweeps' rows mixed. The
final file is the same whether the sweep was interrupted or not (both are read back from the
part files). Ctrl-C keeps the finished batches (:class:`SweepInterrupted`).
"""
from __future__ import annotations

import hashlib
import json
import os
import shutil
import sys
import time
from pathlib import Path
from typing import Any, Callable

import numpy as np
import pandas as pd

from toolkit.outputs import TMP_PREFIX, atomic_write, check_writable, write_table
from toolkit.settings import Setting, SettingError
from toolkit.sweeps.progress import Progress, shown_by_default
from toolkit.sweeps.variants import INCIDENT_COLUMN, label, variant_log

MANIFEST = "manifest.json"
JOB = "_job"
#: each batch aims at this many seconds (measured on the batches before it): what an interruption loses
BATCH_SECONDS = 60.0
#: a sweep of fewer (record, configuration) pairs runs in one batch: about 1.5 s on the fast path
#: (0.15 us a pair), 75 s on the engine path (7.5 us; 1 M records, 2 cores)
ONE_BATCH_WORK = 10_000_000
#: configurations per batch, fixed (for tests and tuning): ``$WATERMARK_LAB_SWEEP_BATCH``
BATCH_ENV = "WATERMARK_LAB_SWEEP_BATCH"


class SweepInterrupted(KeyboardInterrupt):
    """Ctrl-C during a sweep with ``out``: the one-line message says what was kept and how to finish."""


def parts_folder(out: Path) -> Path:
    """The hidden folder of ``out``'s part files: ``.NAME.parts`` beside it."""
    return out.with_name(f".{out.name}.parts")


def fingerprint(log: Any) -> str:
    """A stable digest of what a sweep reads of ``log``: its table (every column, in row order,
    with the dtypes), the quarantined count and the declared partitions; a Spark-backed log by one
    aggregate (the rows' ``xxhash64`` summed, order-free: the ``row`` column carries the order)."""
    from toolkit.log import EventLog

    h = hashlib.sha256()
    if isinstance(log, EventLog):
        h.update(f"invalid={log.n_invalid} declared={log.declared_partitions}".encode())
        if log.is_spark:
            h.update(_spark_digest(log.spark_df).encode())
            return h.hexdigest()[:16]
        log = log.table
    if not isinstance(log, pd.DataFrame):
        raise SettingError("log", f"sweep needs an EventLog (toolkit.load_log) or a pandas DataFrame, got {type(log).__name__}")
    h.update(repr([(str(c), str(t)) for c, t in log.dtypes.items()]).encode())
    h.update(np.ascontiguousarray(pd.util.hash_pandas_object(log, index=False).to_numpy()).tobytes())
    return h.hexdigest()[:16]


def _spark_digest(df: Any) -> str:
    from pyspark.sql import functions as F

    cols = [F.col(f"`{c}`") for c in sorted(df.columns)]
    x = F.xxhash64(*cols)
    got = df.agg(F.count(F.lit(1)), F.sum(x.bitwiseAND(F.lit(0xFFFFFFFF))), F.sum(F.shiftrightunsigned(x, 32))).first()
    return f"{df.schema.simpleString()}|{got[0]}|{got[1]}|{got[2]}"


class PartStore:
    """The part files of one sweep's ``out`` (see the module doc)."""

    def __init__(self, out: Path, manifest: dict) -> None:
        self.out, self.folder, self.manifest = out, parts_folder(out), manifest

    @classmethod
    def open(cls, out: Path, manifest: dict, *, fresh: bool) -> "PartStore":
        """The store of ``out`` for this sweep: created, resumed, or (``fresh``) emptied first; a
        store of another log or other settings is refused naming ``out``."""
        store = cls(out, manifest)
        folder = store.folder
        if fresh and folder.exists():
            shutil.rmtree(folder)
        folder.mkdir(exist_ok=True)
        for leftover in folder.glob(f"{TMP_PREFIX}*"):  # a write cut short: never a part
            leftover.unlink(missing_ok=True)
        had = folder / MANIFEST
        if had.exists():
            store._check(json.loads(had.read_text(encoding="utf-8")))
        elif store.parts():
            raise SettingError("out", f"out {out}: {folder} holds part files but no {MANIFEST}; remove the folder "
                               "or rerun with fresh=True (--fresh)")
        else:
            atomic_write(had, lambda p: p.write_text(json.dumps(manifest, indent=1), encoding="utf-8"))
        return store

    def _check(self, had: dict) -> None:
        """Refuse a parts folder of another log or other settings: never mix two sweeps' rows."""
        now = self.manifest
        if had.get("log") == now["log"] and had.get("settings") == now["settings"] and had.get("path") == now["path"]:
            return
        if had.get("log") != now["log"]:
            why = f"of another log (its fingerprint {had.get('log')}, this log's {now['log']})"
        else:
            why = (f"of other settings ({had.get('configurations')} configurations, path {had.get('path')}; this sweep: "
                   f"{now['configurations']}, path {now['path']})")
        raise SettingError("out", f"out {self.out}: {self.folder} holds {self.count()} finished configurations of a "
                           f"sweep {why}; rerun with fresh=True (--fresh) to discard them and start afresh, or choose "
                           "another output file")

    def parts(self) -> list[Path]:
        return sorted(self.folder.glob("part-*.parquet"))

    def done(self) -> set[int]:
        """The positions of the configurations already written."""
        out: set[int] = set()
        for p in self.parts():
            out.update(pd.read_parquet(p, columns=[JOB])[JOB].tolist())
        return out

    def count(self) -> int:
        return len(self.done()) if self.folder.is_dir() else 0

    def write(self, frame: pd.DataFrame, jobs: list[int]) -> None:
        """One finished batch (rows in ``jobs`` order) as a part file, atomically."""
        part = frame.copy()
        part.insert(0, JOB, np.asarray(jobs, dtype=np.int64))
        atomic_write(self.folder / f"part-{min(jobs):06d}.parquet", lambda p: part.to_parquet(p, index=False))

    def assemble(self, total: int) -> pd.DataFrame:
        """Every row, in the sweep's order, from the part files."""
        frame = pd.concat([pd.read_parquet(p) for p in self.parts()], ignore_index=True)
        frame = frame.sort_values(JOB, kind="mergesort")
        if frame[JOB].tolist() != list(range(total)):
            raise RuntimeError(f"{self.folder}: the part files do not hold each of the {total} configurations once")
        return frame.drop(columns=[JOB]).reset_index(drop=True)

    def finish(self, frame: pd.DataFrame) -> None:
        """The final file, atomically; then the parts folder goes, its manifest last (a removal cut
        short leaves a folder that a rerun resumes, never parts without their manifest)."""
        write_table(frame, self.out)
        for p in self.parts():
            p.unlink()
        shutil.rmtree(self.folder, ignore_errors=True)


def sweep_to_file(log: Any, configs: list[Setting], variants: list, run: Callable[..., pd.DataFrame], *, out: Any,
                  fresh: bool, path: str, progress: bool | None) -> pd.DataFrame:
    """The sweep of ``configs`` (on each variant, with incidents) by ``run(log, configs, bar)``,
    batch by batch, each batch written as it finishes; returns the final file's rows, with
    ``attrs["evaluated"]``: the configurations evaluated in this run."""
    out = check_writable(out, "out")
    labels = [label(v) for v in variants] if variants else [None]
    keys = [f"{lab}|{c}" for lab in labels for c in configs]
    manifest = {"version": 1, "log": fingerprint(log), "path": path, "configurations": len(keys),
                "settings": hashlib.sha256("\n".join(keys).encode()).hexdigest()[:16]}
    store = PartStore.open(out, manifest, fresh=fresh)
    done = store.done()
    total = len(keys)
    if done:
        print(f"{len(done)} of {total} configurations already in {out}, {total - len(done)} to run", file=sys.stderr)
    records = _records(log)
    show = progress if progress is not None else shown_by_default(records, total)
    try:
        with Progress(total, done=len(done), show=show) as bar:
            for v_i, variant in enumerate(variants or [None]):
                todo = [i for i in range(len(configs)) if v_i * len(configs) + i not in done]
                if todo:
                    _run_variant(log, variant, bool(variants), todo, configs, run, store, bar, v_i, records)
        frame = store.assemble(total)
        store.finish(frame)
        frame.attrs["evaluated"] = bar.evaluated  # in this run; the others came from part files
    except KeyboardInterrupt:
        raise SweepInterrupted(f"interrupted: {store.count()} of {total} configurations kept in {store.folder}; "
                               "rerun the same command to finish") from None
    return frame


def _run_variant(log: Any, variant: Any, labelled: bool, todo: list[int], configs: list[Setting], run: Callable,
                 store: PartStore, bar: Progress, v_i: int, records: int | None) -> None:
    """One variant's remaining configurations, batch after batch."""
    vlog = variant_log(log, variant) if labelled else log
    try:
        sizes = BatchSizes(len(todo), records)
        start = 0
        while start < len(todo):
            batch = todo[start:start + sizes.next()]
            t0 = time.perf_counter()
            frame = run(vlog, [configs[i] for i in batch], bar)
            bar.evaluated += len(batch)
            if labelled:
                frame.insert(list(frame.columns).index("path"), INCIDENT_COLUMN, label(variant))
            store.write(frame, [v_i * len(configs) + i for i in batch])
            sizes.took(len(batch), time.perf_counter() - t0)
            start += len(batch)
    finally:
        if vlog is not log and getattr(vlog, "is_spark", False):
            vlog.spark_df.unpersist()


class BatchSizes:
    """How many configurations each batch evaluates. Rule: ``$WATERMARK_LAB_SWEEP_BATCH`` when set;
    else a short sweep (``ONE_BATCH_WORK`` record-configurations) in one batch; else a first
    batch of an eighth of the configurations, then batches of ``BATCH_SECONDS`` by the pace of
    the batches so far, longer when a batch's fixed cost (Spark's aggregates and shuffle of the
    log) is large: a batch lasts at least ten times that cost (fitted from two batch sizes)."""

    def __init__(self, todo: int, records: int | None) -> None:
        fixed = os.environ.get(BATCH_ENV, "").strip()
        self.fixed = int(fixed) if fixed.isdigit() and int(fixed) > 0 else None
        small = records is not None and records * todo <= ONE_BATCH_WORK
        self.size = todo if small else max(1, -(-todo // 8))
        self.timed: list[tuple[int, float]] = []  # (configurations, seconds) of each batch

    def next(self) -> int:
        if self.fixed:
            return self.fixed
        if self.timed:
            cost, per_config = self.fit()
            target = max(BATCH_SECONDS, 10 * cost)
            self.size = max(1, int((target - cost) / per_config))
        return self.size

    def took(self, configs: int, seconds: float) -> None:
        self.timed.append((configs, max(seconds, 1e-6)))

    def fit(self) -> tuple[float, float]:
        """(fixed seconds a batch, seconds a configuration): the line through the first batch and
        the last one of another size; no fixed cost while every batch had the same size."""
        (s1, t1), (s2, t2) = self.timed[0], self.timed[-1]
        if s1 != s2:
            per_config = (t2 - t1) / (s2 - s1)
            cost = t1 - per_config * s1
            if per_config > 0 and cost >= 0:
                return cost, per_config
        configs, seconds = sum(s for s, _ in self.timed), sum(t for _, t in self.timed)
        return 0.0, seconds / configs


def _records(log: Any) -> int | None:
    from toolkit.log import EventLog

    if isinstance(log, EventLog):
        return int(log.n_records)
    return len(log) if isinstance(log, pd.DataFrame) else None
