"""The production web server configuration: gthread workers that freeze what they loaded out of the GC."""

import gc
import runpy
from pathlib import Path

import pytest
from django.conf import settings

CONF = Path(settings.BASE_DIR) / "gunicorn.conf.py"


def test_it_serves_the_project_with_threaded_workers_and_a_keep_alive_longer_than_an_autosave_pause():
    conf = runpy.run_path(str(CONF))
    assert conf["wsgi_app"] == "heartbench_core.wsgi"
    assert conf["worker_class"] == "gthread" and conf["workers"] >= 2 and conf["threads"] >= 2
    assert conf["keepalive"] > 4  # the workspace autosaves every few seconds at most


def test_each_worker_loads_every_view_then_freezes_it_out_of_collections(monkeypatch):
    conf = runpy.run_path(str(CONF))
    monkeypatch.setenv("WEB_WORKERS", "7")
    assert runpy.run_path(str(CONF))["workers"] == 7
    gc.unfreeze()
    try:
        conf["post_worker_init"](None)
        frozen = gc.get_freeze_count()
        # Every module the URLconf imports (views, serializers, DRF) is among the frozen objects.
        assert frozen > 50_000
    finally:
        gc.unfreeze()


@pytest.mark.django_db(transaction=True)
def test_with_preload_the_main_process_loads_every_view_and_keeps_no_connection_for_the_forked_workers():
    from types import SimpleNamespace

    from django.db import connection
    from django.urls import get_resolver

    conf = runpy.run_path(str(CONF))
    connection.ensure_connection()
    conf["when_ready"](SimpleNamespace(cfg=SimpleNamespace(preload_app=False)))
    assert connection.connection is not None  # without --preload the main process loads nothing
    conf["when_ready"](SimpleNamespace(cfg=SimpleNamespace(preload_app=True)))
    assert "url_patterns" in get_resolver().__dict__  # resolved (cached) in the main process
    assert connection.connection is None


def test_it_opens_no_control_socket_that_another_installation_of_the_same_user_would_share():
    from gunicorn.app.base import Application
    from gunicorn.config import Config

    app = Application.__new__(Application)  # only its config loader: no WSGI app, no server
    app.cfg = Config()
    assert app.cfg.control_socket_disable is False  # gunicorn's default: ~/.gunicorn/gunicorn.ctl
    app.load_config_from_file(str(CONF))
    assert app.cfg.control_socket_disable is True
    assert app.cfg.worker_class_str == "gthread"  # the rest of the file is read by gunicorn as well
