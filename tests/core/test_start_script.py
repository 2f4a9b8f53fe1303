"""scripts/start serves the platform, and SIGTERM to it stops the web server and the worker, every process of both."""

import hashlib
import os
import re
import signal
import socket
import subprocess
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
START = ROOT / "scripts" / "start"


def _installed_from_current_lock() -> bool:
    """The start would reinstall (slow, needs the package index) unless .venv holds the current lock."""
    stamp = ROOT / ".venv" / "installed-from-lock.sha256"
    if not (ROOT / ".venv" / "bin" / "gunicorn").exists() or not stamp.exists():
        return False
    digest = hashlib.sha256((ROOT / "requirements.lock").read_bytes() + (ROOT / "pyproject.toml").read_bytes()).hexdigest()
    return stamp.read_text().strip() == digest


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _group_alive(pgid: int) -> bool:
    """Whether a process of the group still runs. A killed process whose parent died first stays a
    zombie until PID 1 reaps it, and some containers' PID 1 never does: a zombie runs nothing."""
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            # pid (comm) state ppid pgrp ...: comm may hold spaces and parentheses, so split after its last ")"
            state, _ppid, pgrp = stat.read_text().rpartition(")")[2].split()[:3]
        except (OSError, ValueError):
            continue  # ended while being read
        if int(pgrp) == pgid and state != "Z":
            return True
    return False


def test_start_script_parses_and_traps_stop_signals():
    subprocess.run(["bash", "-n", str(START)], check=True)
    text = START.read_text()
    assert re.search(r"^trap stop INT TERM EXIT$", text, re.MULTILINE)
    assert "set -m" in text  # each server in its own process group


@pytest.mark.skipif(not _installed_from_current_lock(), reason=".venv is not installed from the current requirements.lock")
def test_sigterm_stops_web_server_and_worker(tmp_path):
    port = _free_port()
    env = {k: v for k, v in os.environ.items() if k not in {"DATABASE_URL", "REDIS_URL", "DJANGO_SETTINGS_MODULE"}}
    env.update(PORT=str(port), HOST="127.0.0.1", VAR_DIR=str(tmp_path), HEARTBENCH_DIR=str(tmp_path / "none"))
    log = tmp_path / "start.log"
    with log.open("wb") as out:
        script = subprocess.Popen([str(START)], cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
    groups: list[int] = []
    try:
        deadline = time.monotonic() + 240  # a fresh demo on a busy machine (parallel tests) takes a while
        status = None
        while time.monotonic() < deadline and script.poll() is None:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/accounts/login/", timeout=5) as response:
                    status = response.status
                break
            except (urllib.error.URLError, ConnectionError, TimeoutError):
                time.sleep(0.2)
        assert status == 200, log.read_text()
        # The address is printed just after the script's own first request succeeds, and the worker starts then.
        while time.monotonic() < deadline and "Web server pid" not in log.read_text():
            time.sleep(0.2)
        output = log.read_text()
        assert f"http://127.0.0.1:{port}/" in output
        assert "PORT" in output and "HOST" in output
        match = re.search(r"Web server pid (\d+), worker pid (\d+)", output)
        assert match, output
        groups = [int(match.group(1)), int(match.group(2))]
        script.send_signal(signal.SIGTERM)
        script.wait(timeout=40)
        output = log.read_text()
        assert not [g for g in groups if _group_alive(g)], output
        assert "warning" not in output.lower(), output
    finally:
        if script.poll() is None:
            os.killpg(script.pid, signal.SIGKILL)
        # The servers run in process groups of their own: end them even when an assertion came first.
        started = re.search(r"Web server pid (\d+), worker pid (\d+)", log.read_text())
        groups = groups or ([int(started.group(1)), int(started.group(2))] if started else [])
        for pgid in groups:
            if _group_alive(pgid):
                os.killpg(pgid, signal.SIGKILL)
