"""The dashboard's vendored centrifuge client: the file its README describes (version and
sha256), self-contained (an ES module with no imports, so the page needs nothing else), with
its licence beside it, and imported by the live channel helper from that place."""

from __future__ import annotations

import hashlib
import re

from backtestd.api.dashboard import STATIC

VENDOR = STATIC / "vendor" / "centrifuge"


def test_the_vendored_client_is_the_one_its_readme_names() -> None:
    readme = (VENDOR / "README.md").read_text()
    pinned = re.search(r"sha256 `([0-9a-f]{64})`", readme)
    assert pinned is not None
    digest = hashlib.sha256((VENDOR / "centrifuge.js").read_bytes()).hexdigest()
    assert digest == pinned.group(1)
    assert "**5.8.0**" in readme


def test_it_is_a_self_contained_es_module_with_its_licences() -> None:
    code = (VENDOR / "centrifuge.js").read_text()
    assert re.search(r"^\s*import\s", code, re.M) is None
    assert "export { Centrifuge," in code
    assert "MIT License" in (VENDOR / "LICENSE").read_text()
    assert "Joyent" in (VENDOR / "THIRD-PARTY.md").read_text()


def test_the_live_channel_helper_imports_it_from_the_dashboard_itself() -> None:
    helper = (STATIC / "lib" / "live_channel.js").read_text()
    imports = re.findall(r'^import .* from "([^"]+)";$', helper, re.M)
    assert "../vendor/centrifuge/centrifuge.js" in imports
    assert all(i.startswith(".") for i in imports), imports  # nothing from another origin
