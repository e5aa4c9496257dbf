"""Whether a strategy takes commands: its main class implements ``CommandRequestHandler``.

Read from the stored bytecode (the class file names every interface it implements in its
constant pool), so the answer needs no engine host; ``None`` when the strategy has no record.
"""

from __future__ import annotations

from collections.abc import Callable

from backtestd.storage.db.engine import Database
from backtestd.storage.db.repositories.strategies import StrategyRepository

HANDLER = b"com/wualabs/qtsurfer/engine/strategy/CommandRequestHandler"


def handles_commands(database: Database) -> Callable[[str], bool | None]:
    def check(strategy_id: str) -> bool | None:
        with database.unit_of_work() as uow:
            record = StrategyRepository(uow.session).get(strategy_id)
        if record is None:
            return None
        return any(HANDLER in data for data in record.class_files.values())

    return check
