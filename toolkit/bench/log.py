"""``python -m toolkit bench log``: synthetic generation, loading and describe() speed.

Sub-cases (``--only``): ``synth`` (every model), ``load`` (Parquet and CSV of the "sample"
model), ``describe`` (pandas path). Figures are wall and CPU seconds of this process; on a
shared machine trust CPU seconds more.
"""
from __future__ import annotations

import tempfile
from pathlib import Path

from toolkit.bench._timing import timed
from toolkit.log import load_log, synth


def _timed(label: str, fn):
    out, t = timed(fn)
    print(f"{label:<34} wall {t.wall:7.2f} s   cpu {t.cpu:7.2f} s", flush=True)
    return out


def run(args) -> int:
    n = int(args.records)
    only = set(args.only.split(",")) if args.only else {"synth", "load", "describe"}
    print(f"log benchmark: {n:,} records, seed {args.seed}")
    if "synth" in only:
        for model in synth.MODELS:
            _timed(f"synth {model}", lambda: synth.generate(model, n, seed=args.seed))
    log = synth.generate("sample", n, seed=args.seed)
    if "load" in only:
        with tempfile.TemporaryDirectory() as tmp:
            for suffix in ("parquet", "csv"):
                path = Path(tmp) / f"log.{suffix}"
                _timed(f"write {suffix}", lambda: synth.write(log, path))
                _timed(f"load_log {suffix}", lambda: load_log(path))
    if "describe" in only:
        _timed("describe (pandas)", lambda: log.describe())
    return 0
