"""Black-box: ``backtestd apikey create`` says which database it wrote to, and warns when no
service uses that data dir (the newcomer's second-terminal trap)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import httpx

from tests.support.server import BIN, LiveServer, harness_environment


def _cli(data_dir: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = harness_environment()
    env["BACKTESTD_DATA_DIR"] = str(data_dir)
    return subprocess.run(
        [str(BIN), *args], env=env, capture_output=True, text=True, timeout=120, check=True
    )


def test_a_key_made_in_another_data_dir_warns_and_the_server_explains_the_refusal(
    live_server: LiveServer, tmp_path: Path
) -> None:
    elsewhere = _cli(tmp_path / "elsewhere", "apikey", "create", "--user", "lost")
    assert f"stored in sqlite:///{(tmp_path / 'elsewhere').resolve()}" in elsewhere.stderr
    assert "had no database yet" in elsewhere.stderr
    assert "BACKTESTD_DATA_DIR" in elsewhere.stderr
    key = elsewhere.stdout.strip().splitlines()[-1]
    refused = httpx.post(f"{live_server.base_url}/auth/token", headers={"X-API-Key": key})
    assert refused.status_code == 401
    assert refused.json()["code"] == "invalid_apikey"
    assert "BACKTESTD_DATA_DIR" in refused.json()["message"]


def test_a_key_made_in_the_servers_data_dir_says_where_and_works(
    live_server: LiveServer,
) -> None:
    if live_server.env.get("BACKTESTD_DATABASE_URL"):
        created = live_server.cli("apikey", "create", "--user", "found")
        database = live_server.env["BACKTESTD_DATABASE_URL"].rsplit("/", 1)[1]
        assert "stored in postgresql" in created.stderr
        assert database in created.stderr
    else:
        created = _cli(live_server.data_dir, "apikey", "create", "--user", "found")
        assert "had no database yet" not in created.stderr
        assert "stored in sqlite:///" in created.stderr
    key = created.stdout.strip().splitlines()[-1]
    assert (
        httpx.post(f"{live_server.base_url}/auth/token", headers={"X-API-Key": key}).status_code
        == 200
    )
