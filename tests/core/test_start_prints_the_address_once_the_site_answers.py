"""scripts/start prints the platform's address only once a request to it succeeds; a site that never answers stops with a message.

Each test starts the real script (gunicorn, the worker) on a free port, on SQLite, or, when the
suite runs on PostgreSQL, on a database of its own created beside the test database.
"""

from __future__ import annotations

import os
import queue
import re
import signal
import socket
import subprocess
import threading
import time
import urllib.request
from collections.abc import Iterator
from urllib.parse import urlparse

import pytest

from tests.core.test_start_script import ROOT, START, _free_port, _group_alive, _installed_from_current_lock

pytestmark = pytest.mark.skipif(not _installed_from_current_lock(), reason=".venv is not installed from the current requirements.lock")

STARTED = re.compile(r"Web server pid (\d+), worker pid (\d+)")


@pytest.fixture(scope="module")
def start_env(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, str]]:
    """The environment of a start: its own var/ (seeded by the first start of the module) and database."""
    folder = tmp_path_factory.mktemp("start")
    env = {k: v for k, v in os.environ.items() if k not in {"DATABASE_URL", "REDIS_URL", "DJANGO_SETTINGS_MODULE", "START_TIMEOUT"}}
    env.update(HOST="127.0.0.1", VAR_DIR=str(folder), HEARTBENCH_DIR=str(folder / "none"))
    url = os.environ.get("DATABASE_URL", "")
    if not url.startswith(("postgres://", "postgresql://")):
        yield env
        return
    import psycopg

    parsed = urlparse(url)
    name = f"{parsed.path.lstrip('/')}_start_{os.environ.get('PYTEST_XDIST_WORKER', 'gw0')}"
    admin = parsed._replace(path="/postgres").geturl()
    with psycopg.connect(admin, autocommit=True) as db:
        db.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        db.execute(f'CREATE DATABASE "{name}"')
    env["DATABASE_URL"] = parsed._replace(path=f"/{name}").geturl()
    try:
        yield env
    finally:
        with psycopg.connect(admin, autocommit=True) as db:
            db.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


class Start:
    """The script running in a session of its own, its output read line by line as it comes."""

    def __init__(self, env: dict[str, str], **extra: str) -> None:
        self.lines: queue.Queue[str] = queue.Queue()
        self.output: list[str] = []
        self.process = subprocess.Popen(
            [str(START)],
            cwd=ROOT,
            env={**env, **extra},
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            start_new_session=True,
        )
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.lines.put(line)

    def wait_for(self, pattern: str, timeout: float) -> str | None:
        """The first line matching `pattern` (None if the script ends or the time runs out first)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                line = self.lines.get(timeout=0.5)
            except queue.Empty:
                if self.process.poll() is not None and self.lines.empty():
                    return None
                continue
            self.output.append(line)
            if re.search(pattern, line):
                return line
        return None

    def text(self) -> str:
        while not self.lines.empty():
            self.output.append(self.lines.get())
        return "".join(self.output)

    def stop(self) -> None:
        """SIGTERM the script (if it still runs) and make sure no process of either server is left."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=40)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
        self.wait_for(r"$^", timeout=1)  # drain what is left
        started = STARTED.search(self.text())
        for pgid in [int(started.group(1)), int(started.group(2))] if started else []:
            if _group_alive(pgid):
                os.killpg(pgid, signal.SIGKILL)


def test_the_address_is_printed_only_once_the_site_answers(start_env):
    port = _free_port()
    start = Start(start_env, PORT=str(port))
    try:
        # A first start seeds the demo (slow on a busy machine); the address comes after that.
        line = start.wait_for(r"Platform: http://", timeout=300)
        assert line is not None, start.text()
        assert f"http://127.0.0.1:{port}/" in line
        # Asked once, at once: the address works the moment it is printed.
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/accounts/login/", timeout=10) as answer:
            assert answer.status == 200
        assert start.wait_for(STARTED.pattern, timeout=10), start.text()
    finally:
        start.stop()
    output = start.text()
    assert start.process.returncode == 0, output
    assert "Stopped." in output
    assert output.index("Waiting for the web server") < output.index("Platform: http://")


def test_a_site_that_never_answers_stops_the_start_with_a_message_naming_the_address(start_env):
    port = _free_port()
    # Something else holds the port and never answers: the requests to it hang, and the web server cannot bind.
    with socket.socket() as silent:
        silent.bind(("127.0.0.1", port))
        silent.listen(16)
        start = Start(start_env, PORT=str(port), START_TIMEOUT="3")
        try:
            start.process.wait(timeout=300)
        finally:
            start.stop()
    output = start.text()
    assert start.process.returncode != 0, output
    assert f"did not answer http://127.0.0.1:{port}/accounts/login/ within 3 s" in output, output
    assert "START_TIMEOUT" in output
    assert "Platform: http://" not in output
    assert "Stopped." in output
    web = re.search(r"\[(\d+)\] \[INFO\] Starting gunicorn", output)
    if web:
        assert not _group_alive(int(web.group(1))), output
