"""The ``params`` of one execute, checked against the strategy's declared properties and
written in the declared types before the job id is digested.

Why here and not in the engine: an undeclared key used to be accepted with 202 and fail the
job only when a worker ran it (printing the declared names twice); and ``"20"`` and ``20`` for
an ``int`` property ran the same backtest under two job ids. The wire reference keeps the 202
for an undeclared key ("the job fails and the failure lists the declared names"), so
:func:`undeclared_params` words that failure here, and the execute is stored already
``Failed`` with it: the first poll says what is wrong, and no worker is taken. The engine
receives every value as text (``param_text``), so a value written in its declared type runs
exactly as the text the caller sent would have. Values already in their
declared type (the canonical requests) are unchanged, so their job ids are too.
"""

from __future__ import annotations

import difflib
import math
from collections.abc import Mapping

from backtestd.domain.backtests import ParamValue
from backtestd.domain.strategies import PropertySpec
from backtestd.errors import InvalidInput
from backtestd.sweeps.axes import BOOLEAN, FLOAT32, FLOAT32_MAX, INTEGRAL_RANGES, REAL


def canonical_params(
    params: Mapping[str, ParamValue], declared: tuple[PropertySpec, ...]
) -> dict[str, ParamValue]:
    """``params`` with every declared value in its property's declared type (undeclared keys
    as sent: see :func:`undeclared_params`); 400 for a value the type cannot hold.

    >>> n = PropertySpec("fast", "", "9", True, type="int")
    >>> canonical_params({"fast": "20", "other": "x"}, (n,))
    {'fast': 20, 'other': 'x'}
    """
    by_name = {p.name: p for p in declared}
    return {
        name: value if name not in by_name else _typed(by_name[name], value)
        for name, value in params.items()
    }


def undeclared_params(
    params: Mapping[str, ParamValue], declared: tuple[PropertySpec, ...], strategy_id: str
) -> str | None:
    """Why an execute with these ``params`` fails (the first key the strategy does not declare,
    the declared ones and the likely one), or None when every key is declared."""
    by_name = {p.name: p for p in declared}
    for name in params:
        if name not in by_name:
            return _undeclared(name, by_name, strategy_id)
    return None


def _undeclared(name: str, by_name: Mapping[str, PropertySpec], strategy_id: str) -> str:
    names = ", ".join(sorted(by_name)) or "none"
    close = difflib.get_close_matches(name, list(by_name), n=1)
    hint = f"; did you mean {close[0]!r}?" if close else ""
    return (
        f"params.{name} is not a declared property of strategy {strategy_id}; declared: "
        f"{names}{hint} (they are listed as declaredProperties by GET /v1/strategy/{strategy_id})"
    )


def _typed(prop: PropertySpec, value: ParamValue) -> ParamValue:
    """The value in the declared type; untyped (older registrations), ``String`` and other
    types keep the value as sent, as the engine reads them from its text."""
    kind = prop.type
    if kind in INTEGRAL_RANGES:
        return _integral(prop, kind, value)
    if kind in REAL:
        return _real(prop, kind, value)
    if kind in BOOLEAN:
        return _boolean(prop, kind, value)
    return value


def _number(prop: PropertySpec, kind: str, value: ParamValue) -> int | float:
    """A JSON number, or a string holding one (``"20"``, ``"0.5"``, ``"1e3"``)."""
    if isinstance(value, bool):
        raise InvalidInput(
            f"params.{prop.name}: {_json(value)} is a boolean, but the property is declared as "
            f"{kind}; send a number"
        )
    if isinstance(value, str):
        text = value.strip()
        try:
            number: int | float = int(text)
        except ValueError:
            try:
                number = float(text)
            except ValueError:
                raise InvalidInput(
                    f"params.{prop.name}: {value!r} is not a number, but the property is "
                    f"declared as {kind}; send a number such as {prop.default_value or 1}"
                ) from None
        value = number
    if isinstance(value, float) and not math.isfinite(value):
        raise InvalidInput(f"params.{prop.name}: the value must be a finite number")
    return value


def _integral(prop: PropertySpec, kind: str, value: ParamValue) -> int:
    number = _number(prop, kind, value)
    if isinstance(number, float) and not number.is_integer():
        raise InvalidInput(
            f"params.{prop.name}: {_json(value)} is not a whole number, but the property is "
            f"declared as {kind}"
        )
    out = int(number)
    bounds = INTEGRAL_RANGES[kind]
    if bounds is not None and not bounds[0] <= out <= bounds[1]:
        raise InvalidInput(
            f"params.{prop.name}: {out} is outside the range of {kind} [{bounds[0]}, {bounds[1]}]"
        )
    return out


def _real(prop: PropertySpec, kind: str, value: ParamValue) -> float:
    number = _number(prop, kind, value)
    try:
        out = float(number)
    except OverflowError:  # an integer beyond any double (10**400)
        raise InvalidInput(f"params.{prop.name}: {number} is beyond the range of {kind}") from None
    if kind in FLOAT32 and abs(out) > FLOAT32_MAX:
        raise InvalidInput(f"params.{prop.name}: {out!r} is beyond the range of a Java float")
    return out


def _boolean(prop: PropertySpec, kind: str, value: ParamValue) -> bool:
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().lower() in ("true", "false"):
        return value.strip().lower() == "true"
    raise InvalidInput(
        f"params.{prop.name}: {_json(value)} is not true or false, but the property is declared "
        f"as {kind}"
    )


def _json(value: ParamValue) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return repr(value) if isinstance(value, str) else str(value)
