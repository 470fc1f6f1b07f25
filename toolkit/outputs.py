"""Files the toolkit writes (a sweep's results, its part files, the report): written whole or not at all.

Rule: a file is written to a temporary name in its own folder, flushed to disk (``fsync``) and
renamed into place (``os.replace``, atomic on one file system), so a reader, a crash, Ctrl-C or a
full disk never leaves a truncated file under the final name; the temporary file of a failed
write is removed. :func:`check_writable` makes the same kind of temporary file before any work,
so a read-only folder or a path under a file fails at once, naming the path.
"""
from __future__ import annotations

import errno
import os
from pathlib import Path
from typing import Any, Callable

from toolkit.settings import SettingError

#: the prefix of every temporary file (a leftover one is removed by the next write of the folder)
TMP_PREFIX = ".tmp-"


def temporary_name(path: Path) -> Path:
    """The temporary name a write of ``path`` uses: hidden, in the same folder, per process."""
    return path.with_name(f"{TMP_PREFIX}{os.getpid()}-{path.name}")


def atomic_write(path: str | Path, write: Callable[[Path], None]) -> Path:
    """Write ``path`` whole or not at all: ``write(tmp)`` writes the temporary file, which is
    fsynced and renamed over ``path``. An ``OSError`` (a full disk: ``ENOSPC``) removes the
    temporary file and is raised again naming ``path``; ``path`` keeps what it had."""
    path = Path(path)
    tmp = temporary_name(path)
    try:
        write(tmp)
        _fsync(tmp)
        os.replace(tmp, path)
    except BaseException as exc:
        tmp.unlink(missing_ok=True)
        if isinstance(exc, OSError) and not isinstance(exc, FileNotFoundError | IsADirectoryError | NotADirectoryError):
            raise write_error(exc, path) from exc
        raise
    _fsync_folder(path.parent)
    return path


def write_error(exc: OSError, path: Path) -> OSError:
    """An ``OSError`` of a write, named by the path the user gave (not the temporary one)."""
    what = "no space left on the device" if exc.errno == errno.ENOSPC else (exc.strerror or str(exc))
    return OSError(exc.errno, f"{what} while writing (nothing was left half-written)", str(path))


def check_writable(path: str | Path, option: str) -> Path:
    """Refuse an output path that cannot be written, before any work: its folder is created if
    missing and a temporary file is created, flushed and removed there (so permissions, a
    read-only file system or a path under a file are found now). ``option``: how the user named
    it (``out``, ``--out``), for the error."""
    path = Path(path)
    if path.is_dir():
        raise SettingError(option, f"{option} {path}: is a folder; give a file name such as {path / 'results.parquet'}")
    probe = temporary_name(path.with_name(path.name + ".probe"))
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with open(probe, "wb") as f:
            f.write(b"probe")
            f.flush()
            os.fsync(f.fileno())
        probe.unlink()
    except OSError as exc:
        if probe.parent.is_dir():
            probe.unlink(missing_ok=True)
        raise SettingError(option, f"{option} {path}: cannot write there ({exc.strerror or exc}: "
                           f"{exc.filename or path.parent}); choose another file") from None
    return path


def _fsync(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _fsync_folder(folder: Path) -> None:
    """Make a rename in ``folder`` durable (best effort: not every file system allows it)."""
    try:
        _fsync(folder)
    except OSError:
        pass


def write_table(frame: Any, out: str | Path) -> Path:
    """A results table as ``.parquet``, ``.json`` (records) or ``.csv`` (any other name), atomically."""
    out = Path(out)
    if out.name.endswith(".parquet"):
        return atomic_write(out, lambda p: frame.to_parquet(p, index=False))
    if out.name.endswith(".json"):
        return atomic_write(out, lambda p: frame.to_json(p, orient="records", indent=1))
    return atomic_write(out, lambda p: frame.to_csv(p, index=False))
