"""Background jobs of the judge runner (django-q2): thin wrappers around its services."""

from __future__ import annotations


def run_endpoint_run(run_id: int) -> str | None:
    """Take an endpoint run (judging or generating) and work on it; returns its status after this taking."""
    from heartbench_core.judging.services.runs import run_in_worker

    outcome = run_in_worker(run_id=run_id)
    return outcome.status if outcome else None


def sweep_endpoint_runs() -> int:
    """Scheduled every minute: hand again to a worker the runs whose process died or whose message was lost."""
    from heartbench_core.judging.services.runs import sweep_endpoint_runs as sweep

    return sweep()
