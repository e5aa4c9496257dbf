"""The local object store publishes large files by hard link when it can, by copy otherwise."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from backtestd.storage.objects.store import LocalObjectStore


def _file(path: Path, data: bytes) -> Path:
    path.write_bytes(data)
    return path


def test_put_file_links_and_survives_the_source(tmp_path: Path) -> None:
    store = LocalObjectStore(tmp_path / "objects")
    source = _file(tmp_path / "version.lastra", b"x" * 100_000)
    store.put_file("datasets/u/d/v.lastra", source)
    stored = store.local_path("datasets/u/d/v.lastra")
    assert stored is not None
    assert os.path.samefile(stored, source)  # no copy was made
    source.unlink()  # the ingest's work directory is removed afterwards
    assert store.get("datasets/u/d/v.lastra") == b"x" * 100_000
    assert store.size("datasets/u/d/v.lastra") == 100_000
    assert not [p.name for p in stored.parent.iterdir() if p.name.startswith(".staging-")]


def test_put_file_replaces_an_earlier_object(tmp_path: Path) -> None:
    store = LocalObjectStore(tmp_path / "objects")
    store.put_file("uploads/a", _file(tmp_path / "first", b"first"))
    store.put_file("uploads/a", _file(tmp_path / "second", b"second body"))
    assert store.get("uploads/a") == b"second body"
    assert b"".join(store.iter_range("uploads/a", 7)) == b"body"


def test_put_file_copies_when_links_are_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Across file systems ``os.link`` fails with EXDEV; the store then copies."""

    def refuse(src: object, dst: object) -> None:
        raise OSError(18, "Invalid cross-device link")

    monkeypatch.setattr(os, "link", refuse)
    store = LocalObjectStore(tmp_path / "objects")
    source = _file(tmp_path / "body.bin", bytes(range(256)) * 1000)
    store.put_file("uploads/b", source)
    stored = store.local_path("uploads/b")
    assert stored is not None
    assert not os.path.samefile(stored, source)
    source.write_bytes(b"changed")  # a copy does not follow its source
    assert store.get("uploads/b") == bytes(range(256)) * 1000


def test_publishing_the_same_file_again_leaves_no_staging_link(tmp_path: Path) -> None:
    """A retried ingest publishes its version again, and an unpacked parquet upload *is* the
    stored upload object: a second link of one file must not leave a staging link behind that
    would keep the bytes after the object is deleted."""
    store = LocalObjectStore(tmp_path / "objects")
    store.put_file("uploads/u", _file(tmp_path / "body.parquet", b"PAR1" * 1000))
    upload = store.local_path("uploads/u")
    assert upload is not None
    store.put_file("versions/v", upload)  # the version is the upload's own file
    store.put_file("versions/v", upload)  # the retried job
    version = store.local_path("versions/v")
    assert version is not None
    assert os.path.samefile(version, upload)
    leftovers = [p for p in (tmp_path / "objects").rglob(".staging-*")]
    assert leftovers == []
    assert os.stat(version).st_nlink == 3  # the source, the upload object, the version


def test_staging_files_a_crash_left_go_and_everything_else_stays(tmp_path: Path) -> None:
    """A process killed between staging and rename leaves ``.staging-*`` for good: removed once
    older than the given age (by ctime, which a write or a hard link renews), never an object,
    never a staging file younger than that."""
    store = LocalObjectStore(tmp_path / "objects")
    store.put("prepared/p1/close.bin", b"c" * 64)
    object_path = store.local_path("prepared/p1/close.bin")
    assert object_path is not None
    crashed = _file(object_path.parent / ".staging-123-abc", b"half")
    deep = _file(tmp_path / "objects" / ".staging-top", b"half")

    assert store.remove_stale_staging(older_than_s=3_600) == 0  # written just now: a live write
    assert crashed.exists()
    assert deep.exists()

    assert store.remove_stale_staging(older_than_s=0) == 2
    assert not crashed.exists()
    assert not deep.exists()
    assert store.get("prepared/p1/close.bin") == b"c" * 64
