"""The task paths stored before the judge runner had its own package, kept working.

The sweep's schedule row (migration 0006) names `heartbench_core.tasks.sweep_endpoint_runs`, and a
message queued before an upgrade may name `heartbench_core.tasks.run_endpoint_run`; both lead to
the runner's tasks in `heartbench_core.judging.tasks`.
"""

from heartbench_core.judging.tasks import run_endpoint_run, sweep_endpoint_runs

__all__ = ["run_endpoint_run", "sweep_endpoint_runs"]
