"""A real JupyterLab on localhost and headless Chromium driven by Selenium, for the browser tests.

Nothing is downloaded at run time: Chromium and its driver are Debian's (``chromium``,
``chromium-driver``), Selenium is told where both are (so Selenium Manager never runs), and
the browser sends every request that is not for localhost to a dead proxy, so a chart that
needs a CDN fails here as it would offline.

Without Chromium, chromedriver or Selenium the tests are skipped with the reason; with
``WATERMARK_LAB_REQUIRE_BROWSER=1`` (set by ``.ci/run``) they fail instead.
"""
from __future__ import annotations

import os
import secrets
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
REQUIRE_BROWSER = "WATERMARK_LAB_REQUIRE_BROWSER"
CHROMIUM = ["/usr/bin/chromium", "chromium", "chromium-browser"]
CHROMEDRIVER = ["/usr/bin/chromedriver", "chromedriver"]
INSTALL_HINT = ("the browser tests need Debian's chromium and chromium-driver "
                "(sudo apt-get install chromium chromium-driver) and selenium (pip install -e '.[test]')")
CHROME_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                "--disable-background-networking", "--disable-component-update", "--disable-sync",
                "--disable-dev-shm-usage", "--proxy-server=http://127.0.0.1:9", "--window-size=1400,1000"]


def browser_required() -> bool:
    return os.environ.get(REQUIRE_BROWSER, "").strip().lower() in ("1", "true", "yes")


def _which(candidates: list[str]) -> str | None:
    for c in candidates:
        found = shutil.which(c)
        if found:
            return found
    return None


def _missing() -> str | None:
    """Why the browser tests cannot run here, or None."""
    missing = []
    if _which(CHROMIUM) is None:
        missing.append("chromium")
    if _which(CHROMEDRIVER) is None:
        missing.append("chromedriver")
    try:
        import selenium  # noqa: F401
    except ImportError:
        missing.append("selenium")
    return f"{', '.join(missing)} missing: {INSTALL_HINT}" if missing else None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="session")
def browser_tools() -> None:
    why = _missing()
    if why is None:
        return
    if browser_required():
        pytest.fail(f"{why} ({REQUIRE_BROWSER}=1: the browser tests fail instead of skipping)", pytrace=False)
    pytest.skip(why)


class Lab:
    """A JupyterLab server serving a copy of the repository's notebooks and data."""

    def __init__(self, root: Path, port: int, token: str, proc: subprocess.Popen, log: Path):
        self.root, self.port, self.token, self.proc, self.log = root, port, token, proc, log
        self.base = f"http://127.0.0.1:{port}"

    def url(self, path: str = "lab") -> str:
        sep = "&" if "?" in path else "?"
        return f"{self.base}/{path}{sep}token={self.token}"

    def api(self, path: str, method: str = "GET") -> bytes:
        req = urllib.request.Request(self.url(f"api/{path}"), method=method)
        with urllib.request.urlopen(req, timeout=10) as resp:
            return resp.read()

    def shutdown_kernels(self) -> None:
        import json

        for kernel in json.loads(self.api("kernels")):
            try:
                self.api(f"kernels/{kernel['id']}", method="DELETE")
            except OSError:
                pass


@pytest.fixture(scope="session")
def jupyterlab(browser_tools, tmp_path_factory) -> Lab:
    """JupyterLab on a free localhost port with a token, no browser, isolated config and settings."""
    root = tmp_path_factory.mktemp("lab")
    shutil.copytree(ROOT / "notebooks", root / "notebooks", ignore=shutil.ignore_patterns(".ipynb_checkpoints"))
    shutil.copytree(ROOT / "data", root / "data")
    home = root.parent / (root.name + "-home")
    for sub in ("config", "data", "runtime", "settings", "workspaces"):
        (home / sub).mkdir(parents=True)
    # no "Would you like to get notified about official Jupyter news?" toast over the notebook
    notification = home / "settings" / "@jupyterlab" / "apputils-extension" / "notification.jupyterlab-settings"
    notification.parent.mkdir(parents=True)
    notification.write_text('{"fetchNews": "false", "checkForUpdates": false}')
    env = dict(os.environ)
    env.update({
        "JUPYTER_CONFIG_DIR": str(home / "config"), "JUPYTER_RUNTIME_DIR": str(home / "runtime"),
        "JUPYTERLAB_SETTINGS_DIR": str(home / "settings"), "JUPYTERLAB_WORKSPACES_DIR": str(home / "workspaces"),
        "PYTHONPATH": os.pathsep.join([str(ROOT)] + [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p]),
        "PYSPARK_PYTHON": sys.executable,
    })
    port, token = _free_port(), secrets.token_hex(16)
    log = home / "jupyterlab.log"
    cmd = [sys.executable, "-m", "jupyter", "lab", "--no-browser", "--ServerApp.ip=127.0.0.1",
           f"--ServerApp.port={port}", "--ServerApp.port_retries=0", f"--IdentityProvider.token={token}",
           f"--ServerApp.root_dir={root}", "--LabApp.expose_app_in_browser=True", "--LabApp.news_url=None",
           "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate", "--LabApp.extension_manager=readonly",
           "--allow-root"]
    with open(log, "wb") as out:
        proc = subprocess.Popen(cmd, cwd=root, env=env, stdout=out, stderr=subprocess.STDOUT)
    lab = Lab(root, port, token, proc, log)
    try:
        deadline = time.monotonic() + 90
        while True:
            if proc.poll() is not None:
                pytest.fail(f"JupyterLab exited ({proc.returncode}):\n{log.read_text()[-3000:]}", pytrace=False)
            try:
                lab.api("status")
                break
            except OSError:
                if time.monotonic() > deadline:
                    pytest.fail(f"JupyterLab did not answer in 90 s:\n{log.read_text()[-3000:]}", pytrace=False)
                time.sleep(0.5)
        yield lab
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


@pytest.fixture(scope="session")
def chrome(browser_tools, tmp_path_factory):
    """Headless Chromium (Debian's) driven by Debian's chromedriver; a fresh profile."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    profile = tmp_path_factory.mktemp("chromium-profile")
    options = webdriver.ChromeOptions()
    options.binary_location = _which(CHROMIUM)
    for flag in CHROME_FLAGS + [f"--user-data-dir={profile}"]:
        options.add_argument(flag)
    service = Service(executable_path=_which(CHROMEDRIVER))
    driver = webdriver.Chrome(service=service, options=options)
    driver.set_script_timeout(600)
    try:
        yield driver
    finally:
        driver.quit()


@pytest.fixture(scope="session")
def artifacts(tmp_path_factory) -> Path:
    """Where the screenshots go (kept by pytest with its tmp dirs; the path is printed)."""
    return tmp_path_factory.mktemp("browser-screenshots")
