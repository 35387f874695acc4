"""The console runs background work one way: through console.operations (see its documentation), whose
plain half, console.core.operations, is the only module that starts a task or a thread."""

from __future__ import annotations

import re
from pathlib import Path

CONSOLE = Path(__file__).resolve().parents[2] / "src" / "console"
OPERATIONS = CONSOLE / "core" / "operations.py"
# Starting a task or a thread any other way skips the status line, the busy indicator, failure reporting
# and the stale-answer check.
ELSEWHERE = re.compile(r"\b(?:(?:create_task|ensure_future|run_in_executor|to_thread|QThread|QThreadPool|QRunnable"
                       r"|ThreadPoolExecutor|ProcessPoolExecutor)\b|Thread\s*\()")
# The status line is said through AppContext.say, so an operation's "…: done" never replaces it.
STATUS_EMIT = re.compile(r"\bstatus_message\.emit\b")


def offenders(pattern: re.Pattern[str], allowed: Path) -> list[str]:
    found = []
    for path in sorted(CONSOLE.rglob("*.py")):
        if path == allowed:
            continue
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
            if pattern.search(line):
                found.append(f"{path.relative_to(CONSOLE)}:{number}: {line.strip()}")
    return found


def test_background_work_starts_only_in_the_operations_module():
    assert OPERATIONS.is_file()
    assert offenders(ELSEWHERE, OPERATIONS) == []


def test_the_status_line_is_said_one_way():
    assert offenders(STATUS_EMIT, CONSOLE / "context.py") == []


def test_the_check_finds_what_it_looks_for():
    sample = ("task = loop.create_task(work())\nawait asyncio.to_thread(read)\nloop.run_in_executor(None, f)\n"
              "worker = QThread(self)\nthreading.Thread(target=read).start()\nThread (target=read)\n"
              "QThreadPool.globalInstance().start(job)\nclass Job(QRunnable):\nThreadPoolExecutor(2)\n")
    assert len([line for line in sample.splitlines() if ELSEWHERE.search(line)]) == 9
    assert not ELSEWHERE.search("created_tasks = 0  # to_threads")
    assert not ELSEWHERE.search("self._lock = threading.Lock()")
