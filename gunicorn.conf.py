"""Production settings of the web server; gunicorn reads this file when started from the project root.

    .venv/bin/gunicorn                      # 4 workers x 3 threads on 0.0.0.0:8000
    .venv/bin/gunicorn -w 6 -b 127.0.0.1:9000   # command-line options override this file

Each worker loads every view once at start and then freezes the garbage collector's view of
those objects (`gc.freeze`). Without it, a full collection walks every object Django has loaded
(about 180,000) and stalls all the worker's threads for ~100 ms: the largest single cause of
slow autosaves under load (benchmarks/load_test.py).
"""

import gc
import os

wsgi_app = "heartbench_core.wsgi"
bind = os.environ.get("BIND", "0.0.0.0:8000")
# Threads overlap the database round trips of one worker; processes use both cores and keep
# one request's Python work from holding up the others' (one GIL per process). On the 2-core
# machine, 4 x 3 gave the lowest autosave and submit tails in the load test; 6 x 2 let bursts
# of "next" run truly at once and made them slower (docs/operations.md, "Load test").
worker_class = "gthread"
workers = int(os.environ.get("WEB_WORKERS", "4"))
threads = int(os.environ.get("WEB_THREADS", "3"))
# Longer than an expert's pause between autosaves: with gunicorn's default of 2 s the server drops
# idle keep-alive connections just as browsers reuse them.
keepalive = 75
timeout = 60
# No control socket: gunicorn's default one (~/.gunicorn/gunicorn.ctl) is shared by every
# installation the same user runs, and the one that stops removes the other's.
control_socket_disable = True


def _import_every_view() -> None:
    from django.urls import get_resolver

    _ = get_resolver().url_patterns  # resolving them imports every view


def when_ready(server: object) -> None:
    """With --preload (scripts/start), import every view in the main process, so the forked workers start with them loaded."""
    if getattr(getattr(server, "cfg", None), "preload_app", False):
        from django.db import connections

        _import_every_view()
        connections.close_all()  # a forked worker must never share the main process's connection


def post_worker_init(worker: object) -> None:
    """Import every URL's view now (not on the first request), then keep all of it out of collections."""
    _import_every_view()
    gc.collect()
    gc.freeze()
