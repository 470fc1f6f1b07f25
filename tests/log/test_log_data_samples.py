"""The committed sample logs equal a fresh regeneration by data/generate.py."""
from __future__ import annotations

import importlib.util
from pathlib import Path

import toolkit

DATA = Path(__file__).resolve().parents[2] / "data"


def _generator():
    spec = importlib.util.spec_from_file_location("data_generate", DATA / "generate.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_committed_samples_equal_a_fresh_regeneration(tmp_path):
    gen = _generator()
    fresh = gen.regenerate(tmp_path)
    assert sorted(p.name for p in fresh) == ["lagging.parquet", "nexmark.jsonl", "sample.csv"]
    for path in fresh:
        assert gen.same_content(DATA / path.name, path), path.name
        if path.suffix != ".parquet":
            assert (DATA / path.name).read_bytes() == path.read_bytes()


def test_sample_csv_is_the_demo_input():
    log = toolkit.load_log(DATA / "sample.csv", max_invalid_fraction=0.001)
    assert (log.n_input, log.n_records, log.n_invalid) == (30_000, 29_994, 6)
    assert log.table["partition"].nunique() == 3
    assert (DATA / "sample.csv").stat().st_size < 2_000_000
