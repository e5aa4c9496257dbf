"""Wire shapes shared by every route: the error envelope and HAL links."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict


class WireModel(BaseModel):
    """Base of response models: exact wire names, unknown input keys refused."""

    model_config = ConfigDict(populate_by_name=True, extra="forbid")


class ResponseError(WireModel):
    code: int
    message: str


class HalLink(WireModel):
    href: str
