"""The order in which a shard runs its vectors: the one that lets the engine host reuse most.

An engine host keeps the value series of data-fed indicators (``sma(fast)`` of the close, say)
in a least-recently-used cache bounded by bytes (docs/engine-host.md, "Series computed ahead"):
a month of 1 s bars holds about 12 such series at the default budget, a month with a bar every
second about 4. Run in ``runIx`` order, a grid's first axis varies slowest, so the last axis
cycles through all its values between two uses of each: with more values than the cache holds,
every vector misses and computes its series again (a 10 x 91 grid: 455 slow SMAs computed per
shard instead of 91, about a fifth of each vector's engine time).

So a shard runs its vectors with the axis of the most distinct values (in that shard) varying
slowest, and the others in a serpentine (reflected) order, so that consecutive vectors differ in
one axis by one step and the series of the previous few vectors are still cached. Only the
order changes: every vector runs, with the same parameters, keeping its ``runIx``; nothing a row
holds depends on when it ran.
"""

from __future__ import annotations

from collections.abc import Sequence

from backtestd.domain.sweeps import Params
from backtestd.sweeps.plan import Lattice


def run_order(
    axes: Sequence[Lattice], vectors: Sequence[Params], run_ixs: Sequence[int]
) -> list[int]:
    """``run_ixs`` reordered for series reuse (see the module's docstring).

    >>> axes = [("fast", (5, 10)), ("slow", (20, 40, 60))]
    >>> vectors = [{"fast": f, "slow": s} for f in (5, 10) for s in (20, 40, 60)]
    >>> [(vectors[i]["slow"], vectors[i]["fast"]) for i in run_order(axes, vectors, range(6))]
    [(20, 5), (20, 10), (40, 10), (40, 5), (60, 5), (60, 10)]
    """
    positions = [{value: k for k, value in enumerate(values)} for _, values in axes]
    names = [name for name, _ in axes]
    digits = {
        ix: [positions[a][vectors[ix][name]] for a, name in enumerate(names)] for ix in run_ixs
    }
    distinct = [len({d[a] for d in digits.values()}) for a in range(len(names))]
    # the most distinct values first; sorted() is stable, so ties keep the declared axis order
    outer_first = sorted(range(len(names)), key=lambda a: -distinct[a])

    def serpentine_rank(ix: int) -> tuple[int, int]:
        rank = 0
        for a in outer_first:
            size = len(positions[a])
            digit = digits[ix][a]
            rank = rank * size + (size - 1 - digit if rank % 2 else digit)
        return rank, ix

    return sorted(run_ixs, key=serpentine_rank)
