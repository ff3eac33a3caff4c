"""Run fuzz cases in a worker process, so that hangs (a per-case time limit) and process deaths are counted too."""

from __future__ import annotations

import collections
import multiprocessing
import os
import time
from dataclasses import dataclass, field
from multiprocessing.connection import Connection

CATEGORIES = ("ok", "clean", "foreign", "bad_state", "hang", "death")
FAILURES = ("foreign", "bad_state", "hang", "death")


def _worker(conn: Connection) -> None:
    """Run the cases sent over `conn`, replying with each case's results."""
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    from tests.fuzz.execute import run_case  # noqa: PLC0415 - imported in the worker only

    while True:
        try:
            case = conn.recv()
        except EOFError:
            return
        conn.send(run_case(case))


@dataclass
class Report:
    """Counts per case kind and category, and the first examples of each failure."""

    counts: dict[str, collections.Counter] = field(default_factory=lambda: collections.defaultdict(collections.Counter))
    examples: list[str] = field(default_factory=list)
    seconds: float = 0.0

    def add(self, kind: str, category: str, detail: str) -> None:
        self.counts[kind][category] += 1
        if category in FAILURES and len(self.examples) < 50:
            self.examples.append(f"{kind} {category}: {detail}")

    def failures(self) -> int:
        """All foreign exceptions, bad states, hangs and process deaths."""
        return sum(counter[c] for counter in self.counts.values() for c in FAILURES)

    def table(self) -> str:
        """One line per case kind with every category's count."""
        lines = [f"{'kind':8s} " + " ".join(f"{c:>9s}" for c in CATEGORIES)]
        for kind, counter in self.counts.items():
            lines.append(f"{kind:8s} " + " ".join(f"{counter[c]:9d}" for c in CATEGORIES))
        return "\n".join(lines)


class _Worker:
    def __init__(self) -> None:
        context = multiprocessing.get_context("spawn")
        self.conn, child = context.Pipe()
        self.process = context.Process(target=_worker, args=(child,), daemon=True)
        self.process.start()
        child.close()

    def stop(self) -> None:
        self.process.kill()
        self.process.join()
        self.conn.close()


def _units(case: dict) -> int:
    return len(case["actions"]) if case["kind"] == "actions" else 1


def run_cases(cases: list[dict], timeout: float = 120.0, progress: bool = False) -> Report:
    """Run every case in a worker (restarted after a hang or death) and count the outcomes."""
    report, worker, start = Report(), _Worker(), time.monotonic()
    try:
        for index, case in enumerate(cases):
            if progress and index % 500 == 0:
                print(f"{index}/{len(cases)} cases, {time.monotonic() - start:.0f} s", flush=True)
            worker.conn.send(case)
            what = case.get("what") or case.get("seed") or repr(case.get("config"))[:200]
            if worker.conn.poll(timeout):
                try:
                    for category, detail in worker.conn.recv():
                        report.add(case["kind"], category, f"[case {index}] {detail}")
                    continue
                except (EOFError, ConnectionError):
                    category = "death"
            else:
                category = "death" if not worker.process.is_alive() else "hang"
            worker.process.join(0.1)
            code = worker.process.exitcode
            report.add(case["kind"], category, f"[case {index}] exit code {code}: {what}")
            for _ in range(_units(case) - 1):
                report.add(case["kind"], category, f"[case {index}] (same episode)")
            worker.stop()
            worker = _Worker()
    finally:
        worker.stop()
    report.seconds = time.monotonic() - start
    return report
