"""Signed links use the configured public origin, else the bound address (never Host)."""

from __future__ import annotations

import pytest

from backtestd.errors import ConfigurationError
from backtestd.settings import load_settings


@pytest.mark.parametrize(
    ("env", "expected"),
    [
        ({}, "http://127.0.0.1:8080"),
        ({"BACKTESTD_HOST": "0.0.0.0", "BACKTESTD_PORT": "9000"}, "http://127.0.0.1:9000"),
        ({"BACKTESTD_HOST": "::"}, "http://[::1]:8080"),
        ({"BACKTESTD_PUBLIC_BASE_URL": "https://bt.example.com/"}, "https://bt.example.com"),
        ({"BACKTESTD_PUBLIC_BASE_URL": "https://example.com/bt/v1"}, "https://example.com/bt"),
    ],
)
def test_public_base_url_resolution(
    monkeypatch: pytest.MonkeyPatch, env: dict[str, str], expected: str
) -> None:
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    assert load_settings().resolved_public_base_url == expected


def test_a_public_base_url_without_scheme_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BACKTESTD_PUBLIC_BASE_URL", "bt.example.com")
    with pytest.raises(ConfigurationError, match="public_base_url"):
        load_settings()
