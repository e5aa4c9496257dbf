"""Which user gives up cached bytes first when a shared cache is over its budget.

A cache bounded only in total (prepared columns, stored sweep curves) lets one user who stores
a lot push out everybody else's idle entries: the attacker fills it, and the victim's next
execute pays for a rebuild. So eviction is fair instead of globally least recently used:

* every user holding something may keep at least a fair share, ``budget / holders``;
* while the total is over the low-water ``target``, the next entry to go is the least recently
  used (reclaimable) one of the user holding the most bytes, among those above their share;
* a user at or below the share is never evicted, so eviction may stop above ``target`` (it is
  under ``budget`` then: the holders above their share hold the excess).

It stays work-conserving: a user alone may fill the whole budget, and shares only matter when
the cache is full. The callers own the I/O; this module is the rule, tested without any.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping


def fair_share(held: Mapping[str, int], budget: int) -> float:
    """What each user holding something may keep whatever the others do."""
    holders = sum(1 for size in held.values() if size > 0)
    return budget / holders if holders else float(budget)


def evict_fairly(
    held: Mapping[str, int],
    budget: int,
    target: int,
    oldest: Callable[[str], Iterable[tuple[str, int]]],
    evict: Callable[[str], bool],
) -> list[str]:
    """Evict entries until the total is at most ``target``, taking from the user furthest above
    the fair share first; returns the keys evicted.

    ``held`` maps each user to the bytes they hold; ``oldest(user)`` yields that user's
    reclaimable entries ``(key, bytes)``, least recently used first; ``evict(key)`` drops one
    and says whether it did (False: it was used meanwhile, keep going). Nothing is evicted while
    the total is within ``budget``.

    >>> held = {"attacker": 300, "victim": 100}
    >>> entries = {"attacker": [("a1", 100), ("a2", 100), ("a3", 100)], "victim": [("v1", 100)]}
    >>> evict_fairly(held, 350, 315, lambda u: entries[u], lambda key: True)
    ['a1']
    """
    left = dict(held)
    total = sum(left.values())
    if total <= budget:
        return []
    share = fair_share(left, budget)
    queues: dict[str, Iterator[tuple[str, int]]] = {}
    spent: set[str] = set()
    evicted: list[str] = []
    while total > target:
        above = [user for user, size in left.items() if size > share and user not in spent]
        if not above:
            break
        user = max(above, key=lambda u: (left[u], u))
        queue = queues.get(user)
        if queue is None:
            queue = queues[user] = iter(oldest(user))
        entry = next(queue, None)
        if entry is None:
            spent.add(user)  # everything else of theirs is in use: the next one gives
            continue
        key, size = entry
        if evict(key):
            left[user] -= size
            total -= size
            evicted.append(key)
    return evicted
