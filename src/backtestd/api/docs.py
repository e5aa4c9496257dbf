"""The interactive API docs and the OpenAPI document, both served without internet access.

Swagger UI's assets come from the ``swagger-ui-py`` package (Swagger UI 5, which renders the
OpenAPI 3.1 documents FastAPI writes; only its ``static`` folder is used, the package itself is
never imported), so ``/v1/docs`` works on a machine with no route to a CDN. The OpenAPI
document describes what the service answers: request validation errors are 400
``ResponseError`` bodies, not FastAPI's default 422, and ``info.version`` is this project's
version while the API description it implements is named in ``x-api-description-version``.
"""

from __future__ import annotations

import importlib.util
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any

from fastapi import FastAPI
from fastapi.openapi.docs import get_swagger_ui_html
from fastapi.openapi.utils import get_openapi
from fastapi.responses import HTMLResponse
from fastapi.staticfiles import StaticFiles

API_DESCRIPTION_VERSION = "0.128.20"
ERROR_SCHEMA = {"$ref": "#/components/schemas/ResponseError"}


def swagger_ui_assets() -> Path:
    """The Swagger UI static files shipped in the ``swagger-ui-py`` wheel."""
    spec = importlib.util.find_spec("swagger_ui")
    if spec is None or not spec.submodule_search_locations:
        raise RuntimeError("swagger-ui-py is not installed; run 'make install'")
    return Path(next(iter(spec.submodule_search_locations))) / "static"


def project_version() -> str:
    try:
        return version("backtestd")
    except PackageNotFoundError:  # running from a source tree without an install
        return "0+unknown"


def _without_422(schema: dict[str, Any]) -> dict[str, Any]:
    """Replace FastAPI's generated 422 entries with the 400 the service really answers."""
    for operations in schema.get("paths", {}).values():
        for operation in operations.values():
            responses = operation.get("responses", {})
            if responses.pop("422", None) is not None and "400" not in responses:
                responses["400"] = {
                    "description": "Invalid request (the message says what and how to fix it)",
                    "content": {"application/json": {"schema": ERROR_SCHEMA}},
                }
    components = schema.get("components", {}).get("schemas", {})
    for name in ("HTTPValidationError", "ValidationError"):
        components.pop(name, None)
    return schema


def mount_api_docs(app: FastAPI, prefix: str) -> None:
    assets = f"{prefix}/docs-assets"
    app.mount(assets, StaticFiles(directory=str(swagger_ui_assets())), name="swagger-ui")

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            schema = get_openapi(
                title=app.title,
                version=app.version,
                description=app.description,
                routes=app.routes,
            )
            schema["info"]["x-api-description-version"] = API_DESCRIPTION_VERSION
            components = schema.setdefault("components", {}).setdefault("schemas", {})
            components.setdefault(
                "ResponseError",
                {
                    "type": "object",
                    "required": ["code", "message"],
                    "properties": {"code": {"type": "integer"}, "message": {"type": "string"}},
                },
            )
            app.openapi_schema = _without_422(schema)
        return app.openapi_schema

    app.openapi = openapi  # type: ignore[method-assign]

    @app.get(f"{prefix}/docs", include_in_schema=False)
    def swagger_ui() -> HTMLResponse:
        return get_swagger_ui_html(
            openapi_url=f"{prefix}/openapi.json",
            title=f"{app.title} — docs",
            swagger_js_url=f"{assets}/swagger-ui-bundle.js",
            swagger_css_url=f"{assets}/swagger-ui.css",
            swagger_favicon_url=f"{assets}/favicon-32x32.png",
        )
