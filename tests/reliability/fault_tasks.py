"""django-q2 tasks for the worker-kill tests: the real report job, slowed in its middle.

The computation is wrapped so that, once the statistics are computed and before anything is
written, it drops a marker file and sleeps: the test kills the worker exactly there.
"""

import os
import time
from pathlib import Path


def paused_in_the_middle(marker: str, pause: float):
    """Slow the report computation, once, between computing and writing; returns a function undoing it."""
    from validation.services import agreement_reports

    real = agreement_reports.compute_report

    def paused(*args, **kwargs):
        result = real(*args, **kwargs)
        if not Path(marker).exists():  # only the first run pauses; the retry runs straight through
            Path(marker).write_text(str(os.getpid()))
            time.sleep(pause)
        return result

    agreement_reports.compute_report = paused
    return lambda: setattr(agreement_reports, "compute_report", real)


def slow_background_job(job_id: int, marker: str, pause: float) -> str | None:
    """The job runner a requested report is delivered to, paused the first time in its middle."""
    from validation.tasks import run_background_job

    undo = paused_in_the_middle(marker, pause)
    try:
        return run_background_job(job_id)
    finally:
        undo()
