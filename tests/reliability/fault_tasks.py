"""A django-q2 task for the worker-kill test: the real report job, slowed in its middle.

The computation is wrapped so that, once the statistics are computed and before anything is
written, it drops a marker file and sleeps: the test kills the worker exactly there.
"""

import os
import time
from pathlib import Path


def slow_agreement_report(campaign_id: int, marker: str, pause: float) -> int:
    from validation.services import reports
    from validation.tasks import compute_agreement_report

    real = reports.compute_report

    def paused(*args, **kwargs):
        result = real(*args, **kwargs)
        if not Path(marker).exists():  # only the first run pauses; the retry runs straight through
            Path(marker).write_text(str(os.getpid()))
            time.sleep(pause)
        return result

    reports.compute_report = paused
    try:
        # The release policy's parameters: an official report, which also writes the version's gate.
        return compute_agreement_report(campaign_id, trigger="schedule")
    finally:
        reports.compute_report = real
