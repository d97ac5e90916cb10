"""base/tasks.py: work started at once, up to its first wait."""

import asyncio
import sys

from pyodide_webmcp.base.tasks import started_task

from tests.unit.aio import run


def test_a_started_task_runs_its_work_up_to_its_first_wait_and_gives_its_result():
    async def scenario():
        steps = []

        async def work():
            steps.append("before its first wait")
            await asyncio.sleep(0)
            steps.append("after")
            return "done"

        task = started_task(work())
        assert steps == (["before its first wait"] if sys.version_info >= (3, 12) else [])
        assert await task == "done" and steps == ["before its first wait", "after"]

    run(scenario())
