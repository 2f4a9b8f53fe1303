"""A schedule row or a queued message naming a runner task by its old path still reaches the task.

The sweep's schedule is stored by migration 0006 as `heartbench_core.tasks.sweep_endpoint_runs`, and
a message queued before an upgrade names `heartbench_core.tasks.run_endpoint_run`; the tasks now live
in `heartbench_core.judging.tasks`.
"""

import importlib
import pydoc

from heartbench_core.judging import tasks
from heartbench_core.judging.services.runs import RUN_TASK

migration = importlib.import_module("heartbench_core.migrations.0006_add_endpoints_templates_and_runs")


def test_the_stored_sweep_path_reaches_the_sweep():
    assert pydoc.locate(migration.SWEEP) is tasks.sweep_endpoint_runs


def test_a_message_queued_under_the_old_path_reaches_the_run_task():
    assert pydoc.locate("heartbench_core.tasks.run_endpoint_run") is tasks.run_endpoint_run


def test_new_messages_name_the_task_in_its_home():
    assert pydoc.locate(RUN_TASK) is tasks.run_endpoint_run
