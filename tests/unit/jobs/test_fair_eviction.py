"""The rule of fair eviction (``jobs/fair_eviction.py``), on plain dicts: who gives up cached
bytes first when a shared cache is over budget."""

from __future__ import annotations

from backtestd.jobs.fair_eviction import evict_fairly, fair_share


def _run(
    entries: dict[str, list[tuple[str, int]]],
    budget: int,
    target: int,
    busy: frozenset[str] = frozenset(),
) -> list[str]:
    """Evict from ``entries`` (per user, least recently used first); keys in ``busy`` refuse."""
    held = {user: sum(size for _, size in items) for user, items in entries.items()}
    return evict_fairly(
        held, budget, target, lambda user: entries[user], lambda key: key not in busy
    )


def test_the_user_holding_the_most_loses_their_oldest_entries_and_an_idle_small_holder_keeps_its():
    # The victim's entry is the least recently used of all; a global LRU would take it first.
    entries = {
        "victim": [("v1", 100)],
        "attacker": [("a1", 100), ("a2", 100), ("a3", 100), ("a4", 100)],
    }

    assert _run(entries, budget=400, target=360) == ["a1", "a2"]


def test_nothing_is_evicted_within_the_budget_and_a_user_alone_may_fill_it():
    assert _run({"alone": [("a1", 100), ("a2", 100)]}, budget=200, target=180) == []
    assert _run({"alone": [("a1", 100), ("a2", 100), ("a3", 50)]}, 200, 180) == ["a1"]


def test_eviction_goes_to_whoever_holds_most_at_each_step_and_spares_those_under_their_share():
    entries = {
        "a": [("a1", 60), ("a2", 60), ("a3", 60)],  # 180
        "b": [("b1", 70), ("b2", 70)],  # 140
        "c": [("c1", 30)],  # 30, under the share of 300 / 3 = 100
    }

    assert fair_share({"a": 180, "b": 140, "c": 30}, 300) == 100
    # 350: a (180) gives a1 -> 290; b (140) now holds the most and gives b1 -> 220.
    assert _run(entries, budget=300, target=290) == ["a1"]
    assert _run(entries, budget=300, target=270) == ["a1", "b1"]
    # Down to 150 wanted: a (120) gives a2 -> 160, then a (60), b (70) and c (30) are all
    # within their share of 100 and eviction stops there, under the budget.
    assert _run(entries, budget=300, target=150) == ["a1", "b1", "a2"]


def test_an_entry_in_use_is_skipped_and_a_user_with_nothing_reclaimable_passes_the_turn():
    entries = {"a": [("a1", 100), ("a2", 100), ("a3", 100)], "b": [("b1", 50), ("b2", 50)]}

    assert _run(entries, 300, 250, busy=frozenset({"a1"})) == ["a2", "a3"]
    assert _run(entries, 300, 300, busy=frozenset({"a1", "a2", "a3"})) == []
