"""The service's settings: the engine's (`kuzya.config`) plus where and how it listens.
Each comes from the value given, else its KUZYA_ variable, else the config file (TOML,
`--config` or KUZYA_CONFIG), else the default."""

from __future__ import annotations

import ipaddress
import os
import tomllib
from pathlib import Path
from typing import Any

from pydantic import Field

from kuzya.config import Settings, built
from kuzya.errors import InvalidInput


class ServiceSettings(Settings):
    host: str = "127.0.0.1"
    port: int = Field(default=8765, ge=0, le=65535)
    max_body_bytes: int = Field(default=16 * 1024 * 1024, ge=1024)  # larger: 413
    sleep_every: int = Field(default=50, ge=1)  # messages between consolidations
    sleep_idle_seconds: float = Field(default=30.0, gt=0)  # or this long without messages
    # with PostgreSQL: consolidate through the queue `kuzya worker` runs (False: in-process)
    sleep_queue: bool = True
    assistant_name: str = "assistant"
    max_tool_steps: int = Field(default=4, ge=1, le=32)  # model calls per reply with tools
    tools: bool = False  # the assistant may call tools (needs a model that does)

    @property
    def loopback(self) -> bool:
        """Whether the service listens on this machine only."""
        if self.host == "localhost":
            return True
        try:
            return ipaddress.ip_address(self.host).is_loopback
        except ValueError:
            return False


def service_settings(config: Path | None = None, **given: Any) -> ServiceSettings:
    """The settings: given values, then KUZYA_ variables, then the config file."""
    path = config or (Path(os.environ["KUZYA_CONFIG"]) if os.environ.get("KUZYA_CONFIG") else None)
    from_file: dict[str, Any] = {}
    if path is not None:
        try:
            from_file = tomllib.loads(path.read_text(encoding="utf-8"))
        except OSError as exc:
            raise InvalidInput(f"cannot read config file {path}: {exc.strerror or exc}") from None
        except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
            raise InvalidInput(f"config file {path} is not TOML: {exc}") from None
    unset = {k: v for k, v in from_file.items() if f"KUZYA_{k.upper()}" not in os.environ}
    return built(ServiceSettings, {**unset, **{k: v for k, v in given.items() if v is not None}})
