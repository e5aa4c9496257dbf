"""API-key scopes: which actions a key may take on which resources.

A key carries a map resource -> actions (``KeyScopes`` on the wire), its tokens carry the same
map, and every protected endpoint needs one ``resource:action`` (docs/scopes.md has the table).
Keys created without ``--scope`` get every scope; a key with none at all cannot get a token.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

Scopes = Mapping[str, tuple[str, ...]]

RESOURCES: dict[str, tuple[str, ...]] = {
    "strategies": ("read", "write"),
    "backtests": ("read", "write", "execute"),
    "datasets": ("read", "write"),
    "live": ("read", "write"),
}
"""Every resource and its actions, in display order."""

ALL_SCOPES: dict[str, tuple[str, ...]] = dict(RESOURCES)


def parse_scopes(specs: Iterable[str]) -> dict[str, tuple[str, ...]]:
    """``["backtests:read,execute", "datasets:read"]`` -> ``{"backtests": (...), ...}``.

    ``none`` alone means no scope at all. Unknown resources or actions raise ``ValueError``
    naming what is allowed.

    >>> parse_scopes(["backtests:read,execute", "datasets:read"])
    {'backtests': ('read', 'execute'), 'datasets': ('read',)}
    >>> parse_scopes(["none"])
    {}
    """
    out: dict[str, list[str]] = {}
    for spec in specs:
        if spec.strip() == "none":
            continue
        resource, sep, actions = spec.partition(":")
        resource = resource.strip()
        if resource not in RESOURCES or not sep:
            known = ", ".join(f"{r}:{'|'.join(a)}" for r, a in RESOURCES.items())
            raise ValueError(f"scope {spec!r} is not resource:action[,action]; known: {known}")
        for action in (a.strip() for a in actions.split(",")):
            if action not in RESOURCES[resource]:
                raise ValueError(
                    f"scope {spec!r}: {resource} has the actions {', '.join(RESOURCES[resource])}"
                )
            if action not in out.setdefault(resource, []):
                out[resource].append(action)
    return {r: tuple(a) for r, a in out.items()}


def allows(scopes: Scopes, required: str) -> bool:
    resource, _, action = required.partition(":")
    return action in scopes.get(resource, ())


def to_wire(scopes: Scopes) -> dict[str, list[str]]:
    return {resource: list(actions) for resource, actions in scopes.items()}
