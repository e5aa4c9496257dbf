"""Settings: environment names, nested tier overrides and readable failures."""

from __future__ import annotations

from pathlib import Path

import pytest

from backtestd.errors import ConfigurationError
from backtestd.settings import DEFAULT_TIERS, load_settings


def test_defaults_give_embedded_sqlite_in_data_dir(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("BACKTESTD_DATA_DIR", str(tmp_path))
    settings = load_settings()
    assert settings.port == 8080
    assert settings.resolved_database_url == f"sqlite:///{tmp_path.resolve()}/backtestd.sqlite3"
    assert settings.resolved_object_store_dir == (tmp_path / "objects").resolve()


def test_environment_overrides_one_tier_limit_and_keeps_the_rest(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("BACKTESTD_TIERS__PRO__MAX_EXECUTE", "9")
    monkeypatch.setenv("BACKTESTD_PORT", "9001")
    settings = load_settings()
    assert settings.port == 9001
    assert settings.tiers["pro"].max_execute == 9
    assert settings.tiers["pro"].max_range_days == DEFAULT_TIERS["pro"].max_range_days
    assert settings.tiers["free"] == DEFAULT_TIERS["free"]


def test_toml_file_supplies_defaults_that_env_overrides(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    config = tmp_path / "backtestd.toml"
    config.write_text("port = 7000\nsim_seed = 42\n[tiers.free]\nmax_execute = 3\n")
    monkeypatch.setenv("BACKTESTD_CONFIG_FILE", str(config))
    monkeypatch.setenv("BACKTESTD_PORT", "7100")
    settings = load_settings()
    assert settings.port == 7100
    assert settings.sim_seed == 42
    assert settings.tiers["free"].max_execute == 3


def test_request_rate_budgets_are_set_per_tier_and_per_address_from_the_environment(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    defaults = load_settings()
    assert [defaults.tiers[t].requests_per_minute for t in ("free", "basic", "pro", "elite")] == [
        300,
        600,
        1200,
        2400,
    ]
    assert defaults.requests_per_minute_per_address == 6000
    monkeypatch.setenv("BACKTESTD_TIERS__FREE__REQUESTS_PER_MINUTE", "40")
    monkeypatch.setenv("BACKTESTD_REQUESTS_PER_MINUTE_PER_ADDRESS", "0")
    settings = load_settings()
    assert settings.tiers["free"].requests_per_minute == 40
    assert settings.tiers["free"].max_execute == DEFAULT_TIERS["free"].max_execute
    assert settings.requests_per_minute_per_address == 0


@pytest.mark.parametrize(
    ("name", "value", "fragment"),
    [
        ("BACKTESTD_PORT", "0", "port"),
        ("BACKTESTD_PORT", "http", "port"),
        ("BACKTESTD_TIERS__GOLD__MAX_EXECUTE", "1", "gold"),
        ("BACKTESTD_TIERS__FREE__REQUESTS_PER_MINUTE", "0", "requests_per_minute"),
        ("BACKTESTD_REQUESTS_PER_MINUTE_PER_ADDRESS", "-1", "requests_per_minute_per_address"),
    ],
)
def test_invalid_settings_name_the_problem(
    monkeypatch: pytest.MonkeyPatch, name: str, value: str, fragment: str
) -> None:
    monkeypatch.setenv(name, value)
    with pytest.raises(ConfigurationError, match=fragment):
        load_settings()


def test_a_developers_exported_settings_do_not_reach_the_tests() -> None:
    """``BACKTESTD_PORT=9999 make test`` passes: the suite-wide fixture removed it."""
    import os

    assert [n for n in os.environ if n.startswith("BACKTESTD_PORT")] == []
    assert load_settings().port == 8080


def test_printed_database_urls_hide_the_password() -> None:
    from backtestd.settings import Settings

    url = "postgresql+psycopg://alice:s3cr@t@db.example:5432/backtestd"
    assert Settings(database_url=url).masked_database_url == (
        "postgresql+psycopg://alice:***@db.example:5432/backtestd"
    )
