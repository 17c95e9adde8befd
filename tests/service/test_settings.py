"""The service's settings: a value given beats its KUZYA_ variable, which beats the
config file, which beats the default; a bad file or value is one clear error."""

from __future__ import annotations

from pathlib import Path

import pytest

from kuzya.errors import InvalidInput
from kuzya.service.settings import service_settings


def test_given_beats_the_environment_beats_the_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = tmp_path / "kuzya.toml"
    config.write_text('port = 9000\nnamespace = "house"\ntools = true\nhost = "0.0.0.0"\n')
    monkeypatch.setenv("KUZYA_NAMESPACE", "office")
    found = service_settings(config, host="127.0.0.1")
    assert (found.port, found.namespace, found.tools, found.host) == (
        9000,
        "office",
        True,
        "127.0.0.1",
    )
    assert found.loopback
    monkeypatch.setenv("KUZYA_CONFIG", str(config))
    assert service_settings().port == 9000 and not service_settings().loopback


def test_the_data_dir_holds_the_store_and_its_images(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("KUZYA_DATA_DIR", str(tmp_path / "data"))
    found = service_settings()
    assert found.db == tmp_path / "data" / "kuzya.db"
    assert found.images_dir == tmp_path / "data" / "kuzya-images"
    shared = service_settings(database_url="postgresql://kuzya@db/kuzya")
    assert shared.images_dir == tmp_path / "data" / "images"


@pytest.mark.parametrize(
    ("text", "problem"),
    [("port = 'many'", "port"), ("colour = 3", "colour"), ("port = ", "not TOML")],
)
def test_a_bad_config_file_is_one_clear_error(tmp_path: Path, text: str, problem: str) -> None:
    config = tmp_path / "bad.toml"
    config.write_text(text)
    with pytest.raises(InvalidInput, match=problem):
        service_settings(config)
    with pytest.raises(InvalidInput, match="cannot read config file"):
        service_settings(tmp_path / "missing.toml")


def test_llm_openai_takes_its_model_from_llm_model(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KUZYA_LLM", "openai")
    with pytest.raises(InvalidInput, match="KUZYA_LLM_MODEL"):
        service_settings()
    monkeypatch.setenv("KUZYA_LLM_MODEL", "qwen2.5:3b")
    assert service_settings().llm == "openai:qwen2.5:3b"
