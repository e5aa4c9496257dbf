"""A burst of account reads through whichever official SDK generation is importable.

Run as ``python -m tests.support.sdk_burst BASE_URL API_KEY COUNT`` (``PYTHONPATH`` chooses the
generation). It reads ``GET /v1/account`` through the SDK until the SDK raises, then waits as
long as the error (0.8.0) or the raw answer's ``Retry-After`` (0.4.2, whose error has no such
field) says and reads once more. Prints one JSON object of what the caller saw.
"""

from __future__ import annotations

import importlib.metadata
import json
import sys
import time
from typing import Any

import httpx
from qtsurfer_sdk import QTSError, auth


def main(base_url: str, api_key: str, count: int) -> dict[str, Any]:
    session = auth(api_key, base_url=base_url)
    seen: dict[str, Any] = {"sdk": importlib.metadata.version("qtsurfer-sdk"), "served": 0}
    account = session.get_account()
    seen["served"] += 1
    seen["published"] = account.additional_properties.get("maxRequestsPerMinute")
    refused: QTSError | None = None
    for _ in range(count - 1):
        try:
            session.get_account()
            seen["served"] += 1
        except QTSError as exc:
            refused = exc
            break
    if refused is None:
        return seen
    seen["status"] = refused.status
    seen["sdkRetryAfter"] = getattr(refused, "retry_after", None)
    token = session.token.access_token  # type: ignore[union-attr]
    raw = httpx.get(f"{base_url}/account", headers={"Authorization": f"Bearer {token}"})
    seen["rawStatus"] = raw.status_code
    seen["rawMessage"] = raw.json()["message"]
    wait = int(seen["sdkRetryAfter"] or raw.headers["Retry-After"])
    seen["waited"] = wait
    time.sleep(wait)
    seen["afterWaiting"] = session.get_account().user_id
    return seen


if __name__ == "__main__":
    print(json.dumps(main(sys.argv[1], sys.argv[2], int(sys.argv[3]))))  # noqa: T201
