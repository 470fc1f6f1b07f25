"""Long sweeps survive faults (issue 29 items 2-4): ``sweep(..., out=...)`` / ``sweep --out`` write
each finished batch atomically and resume after Ctrl-C; an unwritable path or a full disk fails
clearly and leaves no truncated file; Spark running out of memory names its setting and
``max_memory``; the progress bar counts configurations and starts a resume where it was."""
from __future__ import annotations

import errno
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import toolkit
from toolkit.cli import main
from toolkit.settings import SettingError
from toolkit.sweeps import progress as progress_module, resume
from toolkit.sweeps.faults import memory_error

SWEEP = sys.modules["toolkit.sweeps.sweep"]  # the module (toolkit.sweeps.sweep is the function)
ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "data" / "sample.csv"
GRID = dict(window=["tumbling:1s", "session:2s"], delay=[0, 100, 500, 1000], lateness=[0, 1000],
            semantics=["flink", "spark"])  # 24 rows: fast, engine and micro-batch (in one piece) paths


@pytest.fixture(scope="module")
def log():
    return toolkit.load_log(SAMPLE, max_invalid_fraction=0.001)


@pytest.fixture(scope="module")
def plain(log):
    return toolkit.sweep(log, **GRID)


REAL_SWEEP_LOG = SWEEP.sweep_log


class Counted:
    """``sweep_log`` that counts the configurations it evaluates and raises Ctrl-C after ``stop`` of them."""

    def __init__(self, stop: int | None = None) -> None:
        self.evaluated, self.stop, self.run = 0, stop, REAL_SWEEP_LOG

    def __call__(self, log, configs, bar, **kw):
        if self.stop is not None and self.evaluated + len(configs) > self.stop:
            raise KeyboardInterrupt
        self.evaluated += len(configs)
        return self.run(log, configs, bar, **kw)


def interrupted(monkeypatch, log, out: Path, stop: int, **grid) -> str:
    """Run a resumable sweep that Ctrl-C stops after ``stop`` configurations; its message."""
    monkeypatch.setattr(SWEEP, "sweep_log", Counted(stop))
    with pytest.raises(resume.SweepInterrupted) as info:
        toolkit.sweep(log, **(grid or GRID), out=out)
    monkeypatch.setattr(SWEEP, "sweep_log", REAL_SWEEP_LOG)
    return str(info.value)


def test_resumed_sweep_equals_the_uninterrupted_one_and_skips_what_was_done(tmp_path, monkeypatch, log, plain, capsys):
    monkeypatch.setenv(resume.BATCH_ENV, "5")
    out = tmp_path / "results.parquet"
    message = interrupted(monkeypatch, log, out, stop=12)
    parts = tmp_path / ".results.parquet.parts"
    assert message == f"interrupted: 10 of 24 configurations kept in {parts}; rerun the same command to finish"
    assert not out.exists() and len(list(parts.glob("part-*.parquet"))) == 2
    counted = Counted()
    monkeypatch.setattr(SWEEP, "sweep_log", counted)
    got = toolkit.sweep(log, **GRID, out=out)
    assert counted.evaluated == 14  # the 10 finished configurations were not evaluated again
    assert capsys.readouterr().err.splitlines()[0] == f"10 of 24 configurations already in {out}, 14 to run"
    pd.testing.assert_frame_equal(got, plain)  # same rows, order, dtypes
    assert got.attrs["evaluated"] == 14
    pd.testing.assert_frame_equal(pd.read_parquet(out), plain)
    assert not parts.exists()


def test_an_uninterrupted_resumable_sweep_writes_every_format(tmp_path, log, plain):
    for name in ("r.parquet", "r.csv", "r.json"):
        got = toolkit.sweep(log, **GRID, out=tmp_path / name)
        pd.testing.assert_frame_equal(got, plain)
    pd.testing.assert_frame_equal(pd.read_parquet(tmp_path / "r.parquet"), plain)
    assert len(pd.read_csv(tmp_path / "r.csv")) == len(pd.read_json(tmp_path / "r.json")) == 24
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r.csv", "r.json", "r.parquet"]


def test_resume_with_incidents_stacks_the_variants_as_the_plain_sweep(tmp_path, monkeypatch, log):
    grid = dict(delay=[0, 500, 1000], lateness=[0, 1000])
    incidents = [None, "stall:partition=1,at=10s,duration=20s,drain=500/s"]
    want = toolkit.sweep(log, **grid, incidents=incidents)
    monkeypatch.setenv(resume.BATCH_ENV, "4")
    out = tmp_path / "r.parquet"
    monkeypatch.setattr(SWEEP, "sweep_log", Counted(stop=10))  # batches 4, 2; 4, then Ctrl-C
    with pytest.raises(resume.SweepInterrupted, match="10 of 12 configurations kept"):
        toolkit.sweep(log, **grid, incidents=incidents, out=out)
    counted = Counted()
    monkeypatch.setattr(SWEEP, "sweep_log", counted)
    got = toolkit.sweep(log, **grid, incidents=incidents, out=out)
    assert counted.evaluated == 2
    pd.testing.assert_frame_equal(got, want)


def test_another_log_or_other_settings_are_refused_never_mixed(tmp_path, monkeypatch, log):
    monkeypatch.setenv(resume.BATCH_ENV, "4")
    out = tmp_path / "r.parquet"
    grid = dict(delay=[0, 100, 500, 1000], lateness=[0, 1000])
    interrupted(monkeypatch, log, out, stop=4, **grid)
    other = log.table.copy()
    other.loc[5, "arrival_time"] += 1  # one record arrives 1 ms later
    with pytest.raises(SettingError, match="of another log") as info:
        toolkit.sweep(other, **grid, out=out)
    assert info.value.setting == "out" and str(out) in str(info.value) and "fresh=True (--fresh)" in str(info.value)
    with pytest.raises(SettingError, match="of other settings"):
        toolkit.sweep(log, **{**grid, "lateness": [0, 2000]}, out=out)
    with pytest.raises(SettingError, match="of other settings"):
        toolkit.sweep(log, **grid, path="engine", out=out)
    fresh = toolkit.sweep(other, **grid, out=out, fresh=True)  # discards the parts of the first log
    pd.testing.assert_frame_equal(fresh, toolkit.sweep(other, **grid))
    assert resume.fingerprint(log) == resume.fingerprint(toolkit.load_log(SAMPLE, max_invalid_fraction=0.001))


def cli_args(log_path: Path, out: Path) -> list[str]:
    return ["sweep", str(log_path), "--max-invalid-fraction", "0.001", "--delay", "0,100ms,200ms,500ms,1s", "--lateness", "0,1s", "--path", "engine",
            "--out", str(out)]


def test_cli_sweep_interrupted_by_sigint_resumes_to_the_uninterrupted_file(tmp_path):
    """The acceptance test: ``sweep --out`` in a subprocess, SIGINT once part files exist, rerun."""
    small = tmp_path / "log.csv"
    pd.read_csv(SAMPLE).head(6_000).to_csv(small, index=False)
    whole = tmp_path / "whole.parquet"
    assert main(cli_args(small, whole)) == 0
    out = tmp_path / "results.parquet"
    env = {**os.environ, resume.BATCH_ENV: "1", "PYTHONPATH": str(ROOT)}
    cmd = [sys.executable, "-m", "toolkit", *cli_args(small, out)]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, cwd=tmp_path)
    parts = tmp_path / ".results.parquet.parts"
    deadline = time.monotonic() + 60
    while len(list(parts.glob("part-*.parquet"))) < 2 and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.01)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    kept = len(list(parts.glob("part-*.parquet")))
    assert proc.returncode == 130 and 2 <= kept < 10, (proc.returncode, err)
    assert err == f"interrupted: {kept} of 10 configurations kept in {parts}; rerun the same command to finish\n"
    again = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=tmp_path, timeout=120)
    assert again.returncode == 0, again.stderr
    assert again.stderr.splitlines()[0] == f"{kept} of 10 configurations already in {out}, {10 - kept} to run"
    # counted by the batches the rerun evaluated, not by what it expected to run
    assert again.stdout.splitlines()[0] == (f"wrote 10 configurations to {out} ({10 - kept} evaluated now, {kept} in an "
                                            "earlier run)")
    pd.testing.assert_frame_equal(pd.read_parquet(out), pd.read_parquet(whole))
    assert out.read_bytes() == whole.read_bytes()
    assert not parts.exists()


def no_work(*args, **kwargs):
    raise AssertionError("the sweep started before its output path was checked")


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes into a read-only folder: the path under a file below "
                    "checks the same refusal")
def test_read_only_output_folder_fails_before_any_work(tmp_path, monkeypatch, log):
    folder = tmp_path / "ro"
    folder.mkdir()
    folder.chmod(0o555)
    monkeypatch.setattr(resume, "fingerprint", no_work)
    try:
        with pytest.raises(SettingError, match="cannot write there") as info:
            toolkit.sweep(log, delay=[0, 100], out=folder / "r.parquet")
        assert info.value.setting == "out" and str(folder / "r.parquet") in str(info.value)
    finally:
        folder.chmod(0o755)


@pytest.mark.skipif(os.geteuid() != 0 or not shutil.which("setpriv"),
                    reason="the test above checks it for a user who is not root")
def test_read_only_output_folder_fails_before_any_work_as_root_without_override(tmp_path):
    """As root (CI) the command runs without the capability to override file permissions
    (``setpriv`` drops it), so a folder of mode 555 is read-only to it as to any user: ``--out``
    there is refused before the log is read (this one does not even exist)."""
    folder = tmp_path / "ro"
    folder.mkdir()
    folder.chmod(0o555)
    out = folder / "r.parquet"
    cmd = ["setpriv", "--bounding-set=-dac_override,-dac_read_search,-fowner", "--", sys.executable, "-m", "toolkit",
           "sweep", str(tmp_path / "missing.csv"), "--delay", "0,1s", "--out", str(out)]
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, env={**os.environ, "COLUMNS": "160"}, cwd=ROOT,
                              timeout=120)
        assert proc.returncode == 2, proc.stderr
        assert proc.stderr.startswith(f"error: --out {out}: cannot write there"), proc.stderr
        assert list(folder.iterdir()) == []
    finally:
        folder.chmod(0o755)


def test_unwritable_output_path_fails_before_any_work_naming_it(tmp_path, monkeypatch, log, capsys):
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    out = blocker / "r.parquet"
    monkeypatch.setattr(resume, "fingerprint", no_work)
    with pytest.raises(SettingError, match="cannot write there") as info:
        toolkit.sweep(log, delay=[0, 100], out=out)
    assert info.value.setting == "out" and str(out) in str(info.value)
    # the command checks --out before it reads the log (this one does not even exist)
    assert main(["sweep", str(tmp_path / "missing.csv"), "--delay", "0,1s", "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"error: --out {out}: cannot write there") and err.count("\n") == 1
    assert main(["report", str(tmp_path / "missing.csv"), "--out", str(blocker / "r.html")]) == 2
    assert capsys.readouterr().err.startswith(f"error: --out {blocker / 'r.html'}: cannot write there")
    assert main(["sweep", str(SAMPLE), "--delay", "0", "--out", str(tmp_path)]) == 2
    assert "is a folder" in capsys.readouterr().err


REAL_TO_PARQUET = pd.DataFrame.to_parquet


def full_disk_on(monkeypatch, calls: list, fail_at: int) -> None:
    """``DataFrame.to_parquet`` writes a few bytes and then finds the disk full at its ``fail_at``-th call."""
    real = REAL_TO_PARQUET

    def to_parquet(self, path, *args, **kwargs):
        calls.append(path)
        if len(calls) == fail_at:
            Path(path).write_bytes(b"PAR1 truncated")
            raise OSError(errno.ENOSPC, "No space left on device", str(path))
        return real(self, path, *args, **kwargs)

    monkeypatch.setattr(pd.DataFrame, "to_parquet", to_parquet)


def test_a_full_disk_names_the_path_and_leaves_no_truncated_file(tmp_path, monkeypatch, log, capsys):
    monkeypatch.setenv(resume.BATCH_ENV, "3")
    out = tmp_path / "r.parquet"
    grid = dict(delay=[0, 100, 500, 1000], lateness=[0, 1000])
    calls: list = []
    full_disk_on(monkeypatch, calls, fail_at=2)  # the second part file
    with pytest.raises(OSError) as info:
        toolkit.sweep(log, **grid, out=out)
    parts = tmp_path / ".r.parquet.parts"
    assert info.value.errno == errno.ENOSPC and "no space left on the device while writing" in str(info.value)
    assert info.value.filename == str(parts / "part-000003.parquet")
    assert sorted(p.name for p in parts.iterdir()) == ["manifest.json", "part-000000.parquet"]  # no half part
    calls.clear()
    full_disk_on(monkeypatch, calls, fail_at=3)  # the final file, after the two parts left
    with pytest.raises(OSError, match="while writing"):
        toolkit.sweep(log, **grid, out=out)
    assert not out.exists() and len(list(parts.glob("part-*"))) == 3 and not list(tmp_path.glob(".tmp-*"))
    monkeypatch.undo()
    got = toolkit.sweep(log, **grid, out=out)
    pd.testing.assert_frame_equal(got, toolkit.sweep(log, **grid))
    # the command: one line naming the path
    out.write_bytes(b"the earlier results")
    calls.clear()
    full_disk_on(monkeypatch, calls, fail_at=2)  # one part, then the final file
    capsys.readouterr()
    assert main(["sweep", str(SAMPLE), "--max-invalid-fraction", "0.001", "--delay", "0,1s", "--out", str(out)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [f"error: no space left on the device while writing (nothing was left half-written): {out}"]
    assert out.read_bytes() == b"the earlier results"  # not replaced by a truncated file


def test_report_html_is_written_whole_or_not_at_all(tmp_path, monkeypatch):
    import toolkit.reports.report as report_module

    monkeypatch.setattr(report_module, "build", lambda log, **kw: {})
    monkeypatch.setattr(report_module, "render", lambda context: "<html>new</html>")
    out = tmp_path / "report.html"
    out.write_text("<html>old</html>")
    import toolkit.outputs

    def full(path):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(toolkit.outputs, "_fsync", full)
    with pytest.raises(OSError, match="no space left on the device while writing") as info:
        toolkit.report(None, out=out)
    assert info.value.filename == str(out)
    assert out.read_text() == "<html>old</html>" and not list(tmp_path.glob(".tmp-*"))
    monkeypatch.undo()
    monkeypatch.setattr(report_module, "build", lambda log, **kw: {})
    monkeypatch.setattr(report_module, "render", lambda context: "<html>new</html>")
    assert toolkit.report(None, out=out) == out and out.read_text() == "<html>new</html>"


def test_spark_out_of_memory_names_the_heap_and_max_memory(monkeypatch, log):
    java = ("An error occurred while calling o123.collectToPython.\n: java.lang.OutOfMemoryError: Java heap space\n"
            "\tat java.base/java.util.Arrays.copyOf(Arrays.java:3537)")
    err = memory_error(RuntimeError(java))
    assert err is not None and err.setting == "max_memory"
    assert "spark.driver.memory" in str(err) and "WATERMARK_LAB_DRIVER_MEMORY" in str(err) and "Java heap space" in str(err)
    assert memory_error(RuntimeError("Task failed: ValueError: bad")) is None
    import toolkit.sweeps.spark as spark_module

    def oom(*args, **kwargs):
        raise RuntimeError(java)

    monkeypatch.setattr(spark_module, "run_spark", oom)
    with pytest.raises(SettingError, match="spark.driver.memory") as info:
        toolkit.sweep(log, delay=[0, 100], execution="spark")
    assert info.value.setting == "max_memory" and "max_memory" in str(info.value)


def test_memory_guard_covers_rows_evaluated_in_one_piece_here(log):
    with pytest.raises(SettingError, match="in one piece") as info:
        toolkit.sweep(log, delay=[0, 100], semantics="spark", max_memory="10MB")
    assert info.value.setting == "max_memory"
    toolkit.sweep(log, delay=[0, 100], semantics="spark", max_memory="1GB")


class Recorded(progress_module.Progress):
    """A Progress that keeps what its bar showed."""

    seen: list = []

    def _show(self) -> None:
        super()._show()
        Recorded.seen.append((self.shown, self.total))

    def close(self) -> None:
        Recorded.seen.append(("initial", self.initial, "end", self.shown, self.total))
        super().close()


def test_progress_counts_configurations_and_resumes_where_it_was(tmp_path, monkeypatch, log):
    monkeypatch.setattr(SWEEP, "Progress", Recorded)
    monkeypatch.setattr(resume, "Progress", Recorded)
    Recorded.seen = []
    toolkit.sweep(log, delay=[0, 100, 500], window=["tumbling:1s", "session:2s"], shards=3, progress=False)
    shown = [s for s in Recorded.seen if s[0] != "initial"]
    assert [n for n, _ in shown] == sorted(n for n, _ in shown) and shown[-1] == (6, 6)  # 6 configs, not 18 shards
    assert Recorded.seen[-1] == ("initial", 0, "end", 6, 6)
    monkeypatch.setenv(resume.BATCH_ENV, "2")
    out = tmp_path / "r.parquet"
    interrupted(monkeypatch, log, out, stop=4, delay=[0, 100, 500], lateness=[0, 1000])
    monkeypatch.setattr(SWEEP, "Progress", Recorded)
    Recorded.seen = []
    toolkit.sweep(log, delay=[0, 100, 500], lateness=[0, 1000], out=out, progress=False)
    assert Recorded.seen[-1] == ("initial", 4, "end", 6, 6)


def test_fingerprint_is_stable_and_sees_every_column(log):
    table = log.table
    assert resume.fingerprint(table) == resume.fingerprint(table.copy())
    for col in ("key", "value", "partition"):
        changed = table.copy()
        changed[col] = np.roll(changed[col].to_numpy(), 1)
        assert resume.fingerprint(changed) != resume.fingerprint(table)


def test_a_sweep_begun_on_spark_resumes_in_process_to_the_same_rows(tmp_path, monkeypatch, log, spark):
    small = log.table.head(3000)
    grid = dict(delay=[0, 500, 1000], lateness=[0, 1000], semantics=["flink", "spark"])  # sharded and one-piece rows
    want = toolkit.sweep(small, **grid)
    n, half = len(want), len(want) // 2
    assert set(want["path"]) == {"fast", "microbatch"}
    monkeypatch.setenv(resume.BATCH_ENV, str(half))
    out = tmp_path / "r.parquet"
    monkeypatch.setattr(SWEEP, "sweep_log", Counted(stop=half))
    with pytest.raises(resume.SweepInterrupted, match=f"{half} of {n} configurations kept"):
        toolkit.sweep(small, **grid, out=out, execution="spark", spark=spark, shards=2)
    counted = Counted()
    monkeypatch.setattr(SWEEP, "sweep_log", counted)
    pd.testing.assert_frame_equal(toolkit.sweep(small, **grid, out=out), want)
    assert counted.evaluated == n - half


def test_batches_last_a_minute_and_ten_times_their_fixed_cost(monkeypatch):
    monkeypatch.delenv(resume.BATCH_ENV, raising=False)
    assert resume.BatchSizes(40, 200_000).next() == 40  # 8 M pairs: one batch
    sizes = resume.BatchSizes(100, 10**6)
    assert sizes.next() == 13  # an eighth first
    sizes.took(13, 13 * 2.0 + 10)  # 2 s a configuration, 10 s a batch
    assert sizes.next() == 21  # 60 s at the pace measured (fixed cost unknown yet)
    sizes.took(21, 21 * 2.0 + 10)
    assert sizes.fit() == pytest.approx((10.0, 2.0)) and sizes.next() == 45  # 100 s: 10x the fixed 10 s
    monkeypatch.setenv(resume.BATCH_ENV, "3")
    assert resume.BatchSizes(100, 10**6).next() == 3
