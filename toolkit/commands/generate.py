"""``python -m toolkit generate MODEL --records N --seed S --out FILE``: write a synthetic log."""
from __future__ import annotations

import argparse

from toolkit.errors import UserError


def register(subparsers) -> None:
    from toolkit.log.synth import MODELS

    p = subparsers.add_parser(
        "generate",
        help="write a synthetic event log (seeded, named models)",
        description="Write a synthetic event log of a named model to a CSV, Parquet or JSON-lines file. "
        "The same model, parameters and seed always give the same file. Models: " + ", ".join(MODELS) + ".",
    )
    p.add_argument("model", metavar="MODEL", choices=sorted(MODELS), help="one of: " + ", ".join(MODELS))
    p.add_argument("--records", "-n", type=int, default=10_000, help="number of records (default 10000)")
    p.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    p.add_argument("--out", "-o", required=True, help="output file (.csv, .parquet or .jsonl)")
    p.add_argument("--format", choices=["csv", "parquet", "jsonl"], help="file format (default: from --out's suffix)")
    p.add_argument("--time-format", choices=["epoch", "iso"], default="epoch",
                   help="epoch milliseconds (default) or ISO-8601 UTC strings")
    p.add_argument("--bad-rows", type=int, default=0,
                   help="corrupt this many rows (null/unparsable times, non-numeric values, null keys)")
    p.add_argument("--rate", type=float, help="events per second")
    p.add_argument("--keys", type=int, help="number of keys")
    p.add_argument("--zipf", type=float, help="Zipf exponent of the key distribution (0 = uniform)")
    p.add_argument("--partitions", type=int, help="number of source partitions")
    p.add_argument("--delay", choices=["exponential", "lognormal", "pareto", "constant"],
                   help="arrival delay distribution")
    p.add_argument("--delay-scale", type=float, help="delay scale in ms (mean / median / minimum)")
    p.add_argument("--delay-shape", type=float, help="lognormal sigma or Pareto tail index")
    p.add_argument("--no-arrival", action="store_true", help="leave out the arrival_time column")
    p.add_argument("--set", action="append", default=[], metavar="NAME=VALUE",
                   help="any other model parameter, e.g. --set silent_for=30s --set lagging_partition=1 "
                   "--set nightly=23h,6h --set partition_names=EWR,JFK,LGA")
    p.set_defaults(func=run)


def _parse_set(items: list[str]) -> dict:
    from dataclasses import fields

    from toolkit.log.synth import SynthConfig

    types = {f.name: f.type for f in fields(SynthConfig)}
    out: dict = {}
    for item in items:
        name, sep, text = item.partition("=")
        name = name.strip().replace("-", "_")
        if not sep or name not in types:
            raise UserError(f"--set {item!r}: expected NAME=VALUE with NAME one of {', '.join(sorted(types))}")
        text = text.strip()
        kind = str(types[name])
        if name == "bursts":
            parts = [t.strip() for t in text.split(",")]
            if len(parts) != 3:
                raise UserError(f"--set bursts={text!r}: write EVERY,DURATION,FACTOR e.g. 10s,1s,10")
            out[name] = (parts[0], parts[1], float(parts[2]))
        elif name == "nightly" and text.lower() not in ("none", ""):
            parts = [t.strip() for t in text.split(",")]
            if len(parts) != 2:
                raise UserError(f"--set nightly={text!r}: write FROM,DURATION (time of day UTC), e.g. 23h,6h")
            out[name] = (parts[0], parts[1])
        elif name == "partition_names" and text.lower() not in ("none", ""):
            out[name] = tuple(t.strip() for t in text.split(","))
        elif text.lower() in ("none", ""):
            out[name] = None
        elif "bool" in kind:
            out[name] = text.lower() in ("1", "true", "yes")
        elif "float" in kind:
            out[name] = float(text)
        elif name in ("start", "skew", "lag", "silent_from", "silent_for", "hold_max"):
            out[name] = text  # a duration, parsed by the model config
        else:
            try:
                out[name] = int(text)
            except ValueError:
                raise UserError(f"--set {name}={text!r}: expected an integer") from None
    return out


_OPTIONS = {"records": "--records", "bad_rows": "--bad-rows", "rate": "--rate", "keys": "--keys", "zipf": "--zipf",
            "partitions": "--partitions", "delay_scale": "--delay-scale", "delay_shape": "--delay-shape",
            "delay": "--delay"}


def _option_words(message: str) -> str:
    """``records must be ...`` -> ``--records must be ...``; ``format='csv'`` -> ``--format csv``."""
    import re

    head, sep, rest = message.partition(" ")
    if head in _OPTIONS:
        message = _OPTIONS[head] + sep + rest
    return re.sub(r"pass format='(\w+)', '(\w+)' or '(\w+)'", r"pass --format \1, \2 or \3", message)


def run(args: argparse.Namespace) -> int:
    import time

    from toolkit.log import synth

    params = _parse_set(args.set)
    for name in ("rate", "keys", "zipf", "partitions", "delay", "delay_scale", "delay_shape"):
        value = getattr(args, name)
        if value is not None:
            params[name] = value
    if args.no_arrival:
        params["arrival"] = False
    t0 = time.perf_counter()
    try:
        log = synth.generate(args.model, args.records, seed=args.seed, **params)
        synth.write(log, args.out, format=args.format, time_format=args.time_format, bad_rows=args.bad_rows,
                    seed=args.seed)
    except ValueError as exc:  # the model's parameter names, in the options' words
        raise UserError(_option_words(str(exc))) from None
    elapsed = time.perf_counter() - t0
    bad = f", {args.bad_rows} of them corrupted" if args.bad_rows else ""
    print(f"wrote {log.n_records} records{bad} of model {args.model!r} (seed {args.seed}) to {args.out} "
          f"in {elapsed:.2f} s")
    return 0
