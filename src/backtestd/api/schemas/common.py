"""Wire shapes shared by every route: the error envelope and HAL links."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict


class WireModel(BaseModel):
    """Base of response models: exact wire names, unknown input keys refused."""

    model_config = ConfigDict(populate_by_name=True, extra="forbid")


class ResponseError(WireModel):
    code: int
    message: str


class HalLink(WireModel):
    href: str


ResponseDocs = dict[int | str, dict[str, Any]]
"""The ``responses`` a route documents in the OpenAPI description, by status code."""
