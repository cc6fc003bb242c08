"""A store published as an artifact: verified before it is served, swapped in one rename, refused when wrong."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from contextpull import Ops
from contextpull.store.artifact import ArtifactError, Follower, Manifest, is_artifact, publish
from ops_support import examples_store


@pytest.fixture
def store(tmp_path: Path) -> Path:
    return examples_store(tmp_path)


def test_publish_writes_a_self_contained_store_and_its_manifest(tmp_path: Path, store: Path) -> None:
    manifest = publish(store, tmp_path / "published")
    written = json.loads((tmp_path / "published" / "manifest.json").read_text(encoding="utf-8"))
    assert written["store"] == manifest.store == f"store-{manifest.sha256[:12]}.sqlite"
    assert not list((tmp_path / "published").glob("*-wal"))
    with Ops.open(tmp_path / "published" / manifest.store) as ops, Ops.open(store) as original:
        assert ops.store.fingerprint == original.store.fingerprint == manifest.corpus_fingerprint
        assert ops.search("TX-4419").to_dict() == original.search("TX-4419").to_dict()
    assert is_artifact(str(tmp_path / "published")) and is_artifact("https://docs.example/store/")
    assert not is_artifact(str(store))


def test_a_download_that_does_not_match_its_manifest_is_never_served(tmp_path: Path, store: Path) -> None:
    manifest = publish(store, tmp_path / "published")
    stored = tmp_path / "published" / manifest.store
    follower = Follower(str(tmp_path / "published"), tmp_path / "cache")
    assert follower.refresh() and follower.served.is_file() and not follower.refresh()  # unchanged: no fetch
    served = follower.served.read_bytes()
    stored.write_bytes(stored.read_bytes()[:-1] + b"x")  # the same size, one byte changed
    follower.current = None
    with pytest.raises(ArtifactError, match="does not match its manifest"):
        (tmp_path / "cache" / f"{manifest.sha256}.sqlite").unlink()
        follower.refresh()
    assert follower.served.read_bytes() == served  # the verified copy is still the one served


def test_a_manifest_naming_a_file_outside_its_folder_is_refused() -> None:
    text = '{"store": "../../etc/passwd", "sha256": "0", "bytes": 1, "corpus_fingerprint": "", "format_version": "",'
    text += ' "analysis_version": "", "published_at": ""}'
    with pytest.raises(ArtifactError, match="outside its folder"):
        Manifest.parse(text, "manifest.json")
