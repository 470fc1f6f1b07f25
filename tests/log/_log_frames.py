"""A small source table shared by the format and Spark tests of loading."""
from __future__ import annotations

import numpy as np
import pandas as pd

from toolkit import synth

T0 = 1_700_000_000_000


def source_frame(n: int = 60) -> pd.DataFrame:
    rng = np.random.default_rng(5)
    event = T0 + np.sort(rng.integers(0, 60_000, n))
    arrival = event + rng.integers(-5, 3_000, n)
    return pd.DataFrame(
        {
            "ts": event,
            "arrived": synth.iso_strings(arrival),
            "user": rng.choice(["007", "alice", "bob", "x y"], n),
            "shard": rng.choice(["eu-1", "us-2", "ap-3"], n),
            "amount": np.round(rng.random(n) * 100, 3),
        }
    )
