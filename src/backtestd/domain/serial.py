"""The one serialisation of stored domain values (job specs, job results, manifests).

Every value the service stores as JSON — a job's spec and result, a prepared manifest — is a
frozen dataclass of ``domain/``. Instead of a hand-written ``to_json``/``from_json`` pair per
class (twelve of them once, each free to drift from its class), pydantic derives both
directions from the type annotations: the stored names are the field names, validation on the
way back rejects a field that is not declared (``extra="forbid"`` where the class asks for it),
and a new field needs no code but its declaration. This is the stored form, not the wire: the
wire's camelCase names are built in ``api/schemas`` only.
"""

from __future__ import annotations

from collections.abc import Hashable
from functools import cache
from typing import Any, TypeVar, cast

from pydantic import TypeAdapter

T = TypeVar("T")


@cache
def _adapter(kind: Any) -> TypeAdapter[Any]:
    """One adapter per type, built on first use (building one costs about a millisecond)."""
    return TypeAdapter(kind)


def to_stored(value: object, kind: Any = None) -> Any:
    """``value`` as plain JSON data (dicts, lists, strings, numbers); ``kind`` is the declared
    type when it differs from the value's own (a union, so the discriminator is written)."""
    adapter = _adapter(cast(Hashable, type(value) if kind is None else kind))
    return adapter.dump_python(value, mode="json")


def from_stored(kind: type[T] | Any, data: object) -> T:
    """Rebuild a value of ``kind`` from what :func:`to_stored` wrote."""
    return cast(T, _adapter(cast(Hashable, kind)).validate_python(data))
