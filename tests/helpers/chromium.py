"""Render a page in headless Chromium (no network) and return the DOM after scripts ran."""
from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

CANDIDATES = ["/usr/bin/chromium", "chromium", "chromium-browser", "google-chrome"]


def chromium_path() -> str | None:
    for c in CANDIDATES:
        found = shutil.which(c) if not c.startswith("/") else (c if Path(c).exists() else None)
        if found:
            return found
    return None


def dump_dom(page: Path, profile: Path, budget_ms: int = 15000, timeout_s: int = 180) -> str:
    """``chromium --headless --dump-dom`` of ``page`` after ``budget_ms`` of virtual time."""
    exe = chromium_path()
    assert exe, "chromium is not installed"
    cmd = [exe, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
           "--disable-background-networking", "--disable-component-update", "--disable-sync",
           "--disable-dev-shm-usage", f"--user-data-dir={profile}", f"--virtual-time-budget={budget_ms}",
           "--dump-dom", page.resolve().as_uri()]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout_s)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return proc.stdout
