"""Wire shapes shared by every route: the error envelope and HAL links."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, model_validator


class WireModel(BaseModel):
    """Base of response models: exact wire names, unknown input keys refused."""

    model_config = ConfigDict(populate_by_name=True, extra="forbid")


_SURROGATE = (
    "holds a lone UTF-16 surrogate (such as \\ud800), which is not text; send valid Unicode"
)
_NUL = "holds the NUL character (\\u0000), which no text in this API may contain; remove it"


def unusable_text_at(value: object, where: str = "") -> tuple[str, str] | None:
    """Where in a parsed JSON value a string is not storable text, and why; ``None`` when every
    string is. JSON can spell a lone UTF-16 surrogate (``"\\ud800"``), which is not text (it
    cannot be stored or sent back as UTF-8), and the NUL character (``"\\u0000"``), which
    PostgreSQL cannot store (SQLite could: the same request behaved differently on each).

    >>> unusable_text_at({"name": "ok", "params": {"fast": "\\ud800"}})[0]
    'params.fast'
    >>> unusable_text_at({"name": "a\\u0000b"})[0]
    'name'
    """
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            return where or "a string", _SURROGATE
        if "\x00" in value:
            return where or "a string", _NUL
        return None
    if isinstance(value, dict):
        for key, item in value.items():
            path = f"{where}.{key}" if where else str(key)
            found = unusable_text_at(key, path) or unusable_text_at(item, path)
            if found:
                return found
    if isinstance(value, list):
        for index, item in enumerate(value):
            found = unusable_text_at(item, f"{where}[{index}]")
            if found:
                return found
    return None


class RequestBody(WireModel):
    """Base of request bodies: besides the wire model's rules, every string must be storable
    text (:func:`unusable_text_at`)."""

    @model_validator(mode="before")
    @classmethod
    def _text_only(cls, data: Any) -> Any:
        found = unusable_text_at(data)
        if found is not None:
            where, problem = found
            raise ValueError(f"{where} {problem}")
        return data


class ResponseError(WireModel):
    code: int
    message: str


class HalLink(WireModel):
    href: str


ResponseDocs = dict[int | str, dict[str, Any]]
"""The ``responses`` a route documents in the OpenAPI description, by status code."""
