"""Settings shipped in Dask tasks carry no secret; Dask TLS settings are all or nothing."""

from __future__ import annotations

from pathlib import Path

import pytest

from backtestd.errors import ConfigurationError
from backtestd.jobs.context import WorkerContext, context_for
from backtestd.jobs.executors.dask import dask_security, task_settings_json
from backtestd.settings import Settings, load_settings, mask_password

SECRET = "jwt-secret-0123456789-abcdefghijklmnop"
PASSWORD = "p@ss:w/rd"
URL = f"postgresql+psycopg://app:{PASSWORD}@db.internal:5432/backtestd?sslmode=require"


@pytest.mark.parametrize(
    ("url", "masked"),
    [
        (URL, "postgresql+psycopg://app:***@db.internal:5432/backtestd?sslmode=require"),
        ("postgresql://app@db/x?password=s3cret&a=1", "postgresql://app@db/x?password=***&a=1"),
        ("postgresql://app@db/x", "postgresql://app@db/x"),
        ("sqlite:////var/lib/backtestd.sqlite3", "sqlite:////var/lib/backtestd.sqlite3"),
        ("", ""),
    ],
)
def test_mask_password_hides_userinfo_and_query_passwords(url: str, masked: str) -> None:
    assert mask_password(url) == masked


def test_task_payload_has_neither_jwt_secret_nor_database_password() -> None:
    settings = Settings(jwt_secret=SECRET, database_url=URL, dask_scheduler="tcp://h:8786")
    payload = task_settings_json(settings)
    assert SECRET not in payload
    assert "p@ss" not in payload
    assert "w/rd" not in payload
    shipped = Settings.model_validate_json(payload)
    assert shipped.database_url == mask_password(URL)
    assert shipped.jwt_secret == ""
    assert shipped.dask_scheduler == ""


def test_worker_restores_the_password_from_its_own_settings() -> None:
    shipped = Settings(jwt_secret=SECRET, database_url=URL).without_secrets()
    restored = shipped.with_database_password_from(lambda: Settings(database_url=URL))
    assert restored.database_url == URL
    assert restored.jwt_secret == ""


def test_worker_with_another_or_no_database_url_fails_naming_both() -> None:
    shipped = Settings(database_url=URL).without_secrets()
    for own in ("", "postgresql+psycopg://app:x@other:5432/backtestd?sslmode=require"):
        with pytest.raises(ConfigurationError, match="db.internal") as failure:
            shipped.with_database_password_from(lambda own=own: Settings(database_url=own))
        assert PASSWORD not in failure.value.message


def test_passwordless_urls_ship_unchanged_and_never_read_the_worker_environment() -> None:
    def unreachable() -> Settings:
        raise AssertionError("the worker's own settings are not needed")

    for url in ("", "postgresql://app@db/x"):
        shipped = Settings(database_url=url).without_secrets()
        assert shipped.with_database_password_from(unreachable).database_url == url


def test_context_for_builds_from_shipped_settings_plus_the_worker_password() -> None:
    built: list[Settings] = []

    def build(settings: Settings) -> WorkerContext:
        built.append(settings)
        return object()  # type: ignore[return-value]

    payload = task_settings_json(Settings(jwt_secret=SECRET, database_url=URL, sim_seed=7))
    context_for(payload, build, lambda: Settings(database_url=URL))
    assert built[0].database_url == URL
    assert built[0].sim_seed == 7
    assert built[0].jwt_secret == ""


def _tls_files(tmp_path: Path) -> dict[str, Path]:
    files = {name: tmp_path / f"{name}.pem" for name in ("ca", "cert", "key")}
    for path in files.values():
        path.write_text("-----BEGIN CERTIFICATE-----\n")
    return files


def test_dask_tls_needs_all_three_files(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    files = _tls_files(tmp_path)
    monkeypatch.setenv("BACKTESTD_DASK_TLS_CA_FILE", str(files["ca"]))
    monkeypatch.setenv("BACKTESTD_DASK_TLS_CERT_FILE", str(files["cert"]))
    with pytest.raises(ConfigurationError, match="BACKTESTD_DASK_TLS_KEY_FILE not set"):
        load_settings()


def test_dask_tls_file_that_does_not_exist_is_named(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    files = _tls_files(tmp_path)
    monkeypatch.setenv("BACKTESTD_DASK_TLS_CA_FILE", str(files["ca"]))
    monkeypatch.setenv("BACKTESTD_DASK_TLS_CERT_FILE", str(files["cert"]))
    monkeypatch.setenv("BACKTESTD_DASK_TLS_KEY_FILE", str(tmp_path / "missing.key"))
    with pytest.raises(ConfigurationError, match=r"BACKTESTD_DASK_TLS_KEY_FILE: .*missing\.key"):
        load_settings()


@pytest.mark.parametrize(
    ("scheduler", "tls", "fragment"),
    [
        ("tcp://h:8786", True, "must be tls://"),
        ("tls://h:8786", False, "uses TLS"),
    ],
)
def test_scheduler_scheme_must_match_the_tls_setting(
    tmp_path: Path, scheduler: str, tls: bool, fragment: str
) -> None:
    files = _tls_files(tmp_path)
    tls_settings = (
        {
            "dask_tls_ca_file": files["ca"],
            "dask_tls_cert_file": files["cert"],
            "dask_tls_key_file": files["key"],
        }
        if tls
        else {}
    )
    with pytest.raises(ConfigurationError, match=fragment):
        load_settings(dask_scheduler=scheduler, **tls_settings)


def test_dask_security_requires_encryption_for_every_role(tmp_path: Path) -> None:
    files = _tls_files(tmp_path)
    settings = Settings(
        dask_scheduler="tls://h:8786",
        dask_tls_ca_file=files["ca"],
        dask_tls_cert_file=files["cert"],
        dask_tls_key_file=files["key"],
    )
    security = dask_security(settings)
    assert security is not None
    assert security.require_encryption
    assert security.tls_ca_file == str(files["ca"])
    for role in ("client", "worker", "scheduler"):
        assert getattr(security, f"tls_{role}_cert") == str(files["cert"])
        assert getattr(security, f"tls_{role}_key") == str(files["key"])
    assert dask_security(Settings()) is None
