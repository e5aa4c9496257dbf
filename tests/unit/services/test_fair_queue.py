"""The validation queue serves users round-robin: a burst from one user cannot starve another."""

from __future__ import annotations

import threading

from backtestd.services.fair_queue import FairQueue


def _run(submissions: list[tuple[str, str]], workers: int = 1) -> list[str]:
    """Submit while the only worker is blocked, release it, return the order tasks ran in."""
    order: list[str] = []
    done = threading.Event()
    gate = threading.Event()
    queue = FairQueue(workers, name="test")
    queue.submit("blocker", gate.wait)
    for owner, label in submissions:
        queue.submit(owner, lambda label=label: order.append(label))
    queue.submit("zz-last", done.set)
    gate.set()
    assert done.wait(10)
    queue.shutdown()
    return order


def test_a_late_user_runs_after_one_task_of_the_burst_not_after_all() -> None:
    burst = [("alice", f"a{i}") for i in range(5)]
    order = _run([*burst, ("bob", "b0")])
    assert order.index("b0") == 1  # one of alice's tasks, then bob's
    assert [x for x in order if x.startswith("a")] == ["a0", "a1", "a2", "a3", "a4"]


def test_three_users_interleave_in_rotation_and_keep_their_own_order() -> None:
    order = _run(
        [
            ("alice", "a0"),
            ("alice", "a1"),
            ("alice", "a2"),
            ("bob", "b0"),
            ("bob", "b1"),
            ("carol", "c0"),
        ]
    )
    assert order == ["a0", "b0", "c0", "a1", "b1", "a2"]


def test_an_owner_whose_task_is_running_goes_behind_a_newcomer() -> None:
    """Alice's first task is running when she queues more and bob queues one: bob is next."""
    order: list[str] = []
    running = threading.Event()
    gate = threading.Event()
    done = threading.Event()
    queue = FairQueue(1, name="test")

    def first() -> None:
        order.append("a0")
        running.set()
        gate.wait()

    queue.submit("alice", first)
    assert running.wait(10)
    queue.submit("alice", lambda: order.append("a1"))
    queue.submit("alice", lambda: order.append("a2"))
    queue.submit("bob", lambda: order.append("b0"))
    queue.submit("alice", done.set)  # alice's own FIFO: this runs after a2
    gate.set()
    assert done.wait(10)
    queue.shutdown()
    assert order == ["a0", "b0", "a1", "a2"]


def test_a_failing_task_does_not_stop_the_worker() -> None:
    def boom() -> None:
        raise RuntimeError("task failed")

    order: list[str] = []
    done = threading.Event()
    queue = FairQueue(1, name="test")
    queue.submit("alice", boom)
    queue.submit("alice", lambda: order.append("after"))
    queue.submit("alice", done.set)
    assert done.wait(10)
    queue.shutdown()
    assert order == ["after"]


def test_pending_counts_queued_tasks_per_owner() -> None:
    gate = threading.Event()
    queue = FairQueue(1, name="test")
    queue.submit("alice", gate.wait)
    started = threading.Event()
    while not started.is_set():  # wait until the worker has taken the blocker
        started.wait(0.01)
        if queue.pending() == {}:
            started.set()
    queue.submit("alice", lambda: None)
    queue.submit("bob", lambda: None)
    assert queue.pending() == {"alice": 1, "bob": 1}
    gate.set()
    queue.shutdown()
