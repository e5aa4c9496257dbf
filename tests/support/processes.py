"""The machine's process tree, read from ``/proc``: which processes a service started.

Black-box tests find a server's Dask workers, fork server and engine hosts here (by parent),
to kill one or to check that none is left running.
"""

from __future__ import annotations

from pathlib import Path


def _stat(pid: int | str) -> list[str]:
    """The fields of ``/proc/<pid>/stat`` after the command name (state first, then parent)."""
    return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()


def parents() -> dict[int, int]:
    """Every running (not zombie) process and its parent."""
    found: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = _stat(entry.name)
            except OSError:
                continue
            if fields[0] != "Z":
                found[int(entry.name)] = int(fields[1])
    return found


def parent_of(pid: int) -> int:
    return int(_stat(pid)[1])


def children(pid: int) -> list[int]:
    return sorted(child for child, parent in parents().items() if parent == pid)


def descendants(root: int) -> set[int]:
    """``root`` and every process below it."""
    tree = parents()
    found, frontier = {root}, [root]
    while frontier:
        parent = frontier.pop()
        below = [pid for pid, ppid in tree.items() if ppid == parent]
        found.update(below)
        frontier.extend(below)
    return found


def running(pid: int) -> bool:
    """True while ``pid`` exists and is not a zombie."""
    try:
        return _stat(pid)[0] != "Z"
    except OSError:
        return False


def command_line(pid: int) -> bytes:
    return Path(f"/proc/{pid}/cmdline").read_bytes()
