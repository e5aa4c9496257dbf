"""The S3 endpoint users reach (presigned URLs, the dashboard's CSP) vs the service's own."""

from __future__ import annotations

from pathlib import Path

import pytest
from fastapi.routing import APIRoute

from backtestd.api.app import create_app
from backtestd.settings import Settings


def _settings(tmp_path: Path, **values: str) -> Settings:
    return Settings(
        data_dir=tmp_path,
        jwt_secret="x" * 40,
        object_store_url="s3://backtestd/objects",
        s3_endpoint_url="http://minio:9000",
        **values,  # type: ignore[arg-type]
    )


def test_public_endpoint_defaults_to_the_endpoint(tmp_path: Path) -> None:
    assert _settings(tmp_path).resolved_s3_public_endpoint_url == "http://minio:9000"
    public = _settings(tmp_path, s3_public_endpoint_url="https://objects.example.com")
    assert public.resolved_s3_public_endpoint_url == "https://objects.example.com"


def test_public_endpoint_is_read_from_its_variable(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("BACKTESTD_S3_PUBLIC_ENDPOINT_URL", "https://objects.example.com")
    settings = Settings(data_dir=tmp_path)
    assert settings.s3_public_endpoint_url == "https://objects.example.com"


def test_dashboard_csp_allows_the_public_s3_origin_not_the_internal_one(tmp_path: Path) -> None:
    app = create_app(_settings(tmp_path, s3_public_endpoint_url="https://objects.example.com/"))
    index = next(r for r in app.routes if isinstance(r, APIRoute) and r.path == "/")
    page = index.endpoint()  # the page's response, built without the lifespan
    csp = page.headers["Content-Security-Policy"]
    assert "connect-src 'self' https://objects.example.com;" in csp
    assert "minio" not in csp
