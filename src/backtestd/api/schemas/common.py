"""Wire shapes shared by every route: the error envelope and HAL links."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, model_validator


class WireModel(BaseModel):
    """Base of response models: exact wire names, unknown input keys refused."""

    model_config = ConfigDict(populate_by_name=True, extra="forbid")


def lone_surrogate_at(value: object, where: str = "") -> str | None:
    """Where in a parsed JSON value a string holds a lone UTF-16 surrogate (JSON can spell one,
    ``"\\ud800"``, but it is not text: it cannot be stored or sent back as UTF-8); ``None``
    when there is none.

    >>> lone_surrogate_at({"name": "ok", "params": {"fast": "\\ud800"}})
    'params.fast'
    """
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            return where or "a string"
        return None
    if isinstance(value, dict):
        for key, item in value.items():
            path = f"{where}.{key}" if where else str(key)
            found = lone_surrogate_at(key, path) or lone_surrogate_at(item, path)
            if found:
                return found
    if isinstance(value, list):
        for index, item in enumerate(value):
            found = lone_surrogate_at(item, f"{where}[{index}]")
            if found:
                return found
    return None


class RequestBody(WireModel):
    """Base of request bodies: besides the wire model's rules, every string must be text."""

    @model_validator(mode="before")
    @classmethod
    def _text_only(cls, data: Any) -> Any:
        where = lone_surrogate_at(data)
        if where is not None:
            raise ValueError(
                f"{where} holds a lone UTF-16 surrogate (such as \\ud800), which is not text; "
                "send valid Unicode"
            )
        return data


class ResponseError(WireModel):
    code: int
    message: str


class HalLink(WireModel):
    href: str


ResponseDocs = dict[int | str, dict[str, Any]]
"""The ``responses`` a route documents in the OpenAPI description, by status code."""
