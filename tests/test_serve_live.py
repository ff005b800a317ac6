"""`make serve` for real: `mkdocs serve` on the demo site, a YAML answer edited, and the served
page shows the new text without a restart."""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from conftest import python_env
from site_fixtures.demo_site import make_demo_site, replace_in

OLD = "lets the call run unless a hook blocks it"
NEW = "lets the call run unless a hook (edited while serving) blocks it"


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def page_text(url: str) -> str | None:
    try:
        with urllib.request.urlopen(url, timeout=5) as response:
            return response.read().decode("utf-8")
    except (urllib.error.URLError, ConnectionError, TimeoutError):
        return None


def wait_for(url: str, text: str, server: subprocess.Popen, log: Path, seconds: float) -> None:
    """Poll ``url`` until it shows ``text``; fail with the server's log when it does not in time."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if server.poll() is not None:
            pytest.fail(f"mkdocs serve exited with {server.returncode}:\n{excerpt(log)}")
        page = page_text(url)
        if page is not None and text in page:
            return
        time.sleep(0.5)
    pytest.fail(f"{url} did not show {text!r} within {seconds:.0f} s:\n{excerpt(log)}")


def excerpt(log: Path) -> str:
    """The start and the end of the server's log (its startup says most)."""
    lines = log.read_text().splitlines()
    return "\n".join(lines if len(lines) <= 40 else lines[:20] + ["…"] + lines[-20:])


def served_at(server: subprocess.Popen, log: Path, seconds: float) -> str:
    """The address mkdocs serve says it serves on (under the path of the site's site_url)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if server.poll() is not None:
            pytest.fail(f"mkdocs serve exited with {server.returncode}:\n{excerpt(log)}")
        found = re.search(r"Serving on (http://\S+)", log.read_text())
        if found:
            return found.group(1).rstrip("/") + "/"
        time.sleep(0.5)
    pytest.fail(f"mkdocs serve did not start within {seconds:.0f} s:\n{excerpt(log)}")


def test_serve_rebuilds_the_page_after_a_yaml_edit(tmp_path: Path) -> None:
    demo = make_demo_site(tmp_path / "demo")
    port = free_port()
    log = tmp_path / "serve.log"
    with log.open("w") as output:
        server = subprocess.Popen([sys.executable, "-m", "mkdocs", "serve", "-f", str(demo.config), "-a", f"127.0.0.1:{port}"],
                                  cwd=demo.root, stdout=output, stderr=subprocess.STDOUT, start_new_session=True,
                                  env=python_env(NO_MKDOCS_2_WARNING="1"))
    try:
        url = served_at(server, log, seconds=120) + "demo/map/"
        wait_for(url, OLD, server, log, seconds=120)
        assert NEW not in (page_text(url) or "")
        replace_in(demo.map_folder / "D1.yaml", OLD, NEW)
        wait_for(url, NEW, server, log, seconds=120)
        assert OLD not in (page_text(url) or "")
    finally:
        os.killpg(server.pid, signal.SIGTERM)  # the server and anything it started
        try:
            server.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(server.pid, signal.SIGKILL)
            server.wait(timeout=20)
