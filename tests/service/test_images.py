"""Images: read and kept beside the store, described by a vision model served the OpenAI
way (a scripted one on loopback: the server's side of the conversation is what is
checked) or by the sender's caption, recalled by what they show and when they came, and
gone from the disk when their memory is deleted."""

from __future__ import annotations

import base64
import struct
import zlib
from pathlib import Path

import httpx
import pytest

from kuzya.bench.serving import serving
from kuzya.errors import InvalidInput
from kuzya.images import ImageFolder, read_image, remember_image
from kuzya.memory import Memory
from tests.llm.scripted_server import ok, running

pytestmark = pytest.mark.slow


def png(width: int = 4, height: int = 3, rgb: tuple[int, int, int] = (200, 30, 30)) -> bytes:
    """A real PNG of one colour."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    rows = b"".join(b"\x00" + bytes(rgb) * width for _ in range(height))
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(rows))
            + chunk(b"IEND", b""))  # fmt: skip


def test_an_image_is_read_from_bytes_a_path_base64_or_a_data_url(tmp_path: Path) -> None:
    data = png()
    (tmp_path / "red.png").write_bytes(data)
    encoded = base64.b64encode(data).decode()
    for source in (data, tmp_path / "red.png", encoded, f"data:image/png;base64,{encoded}"):
        picture = read_image(source)
        assert (picture.mime, picture.data) == ("image/png", data)
    for bad, problem in [(b"GIF89", "not an image"), ("%%%", "neither base64"),
                         (b"", "empty"), (tmp_path / "none.png", "cannot read")]:  # fmt: skip
        with pytest.raises(InvalidInput, match=problem):
            read_image(bad)


def test_without_a_vision_model_the_caption_describes_it_and_none_is_refused(
    hash_memory: Memory, tmp_path: Path
) -> None:
    folder = ImageFolder(tmp_path / "images")
    with pytest.raises(InvalidInput, match="KUZYA_VISION_MODEL"):
        remember_image(hash_memory, folder, read_image(png()), speaker="ana",
                       participants=["ana"], conversation="c")  # fmt: skip
    assert hash_memory.get_all(user_id="ana") == []  # nothing half-stored
    episode = remember_image(hash_memory, folder, read_image(png()), speaker="ana",
                             participants=["ana"], conversation="c",
                             caption="my passport photo page")  # fmt: skip
    assert episode.attachments[0].caption == "my passport photo page"
    assert folder.find(hash_memory.namespace, episode.id) is not None
    hash_memory.delete(episode.id)
    assert folder.sweep(hash_memory) == 1
    assert folder.find(hash_memory.namespace, episode.id) is None


def test_a_photo_sent_on_monday_is_described_recalled_and_deleted(tmp_path: Path) -> None:
    description = "A red bicycle leaning against a blue garden fence."
    with running() as vision:
        env = {"KUZYA_VISION_MODEL": "llava", "KUZYA_VISION_BASE_URL": vision.base_url}
        with serving(tmp_path / "img.db", env=env, log=tmp_path / "serve.log") as base:
            client = httpx.Client(base_url=base, timeout=60)
            vision.script(ok(description))
            sent = client.post("/ask", json={
                "message": "Look what I found at the flea market!", "session_id": "s",
                "user_id": "ana", "time": "2026-03-02T10:00:00Z",  # a Monday
                "images": [{"data": base64.b64encode(png()).decode()}],
            })  # fmt: skip
            assert sent.status_code == 200, sent.text
            (image,) = sent.json()["images"]
            assert image["images"][0]["description"] == description
            assert image["images"][0]["sha256"] and image["participants"] == ["ana"]
            shown = vision.requests[0].body["messages"][0]["content"]
            assert shown[1]["image_url"]["url"].startswith("data:image/png;base64,")

            later = {"message": "What was on the photo I sent on Monday?", "session_id": "s2",
                     "user_id": "ana", "time": "2026-03-05T18:00:00Z"}  # fmt: skip
            answer = client.post("/ask", json=later).json()
            assert "bicycle" in answer["reply"], answer
            stranger = client.post("/ask", json={**later, "user_id": "ben"}).json()
            assert "bicycle" not in stranger["reply"]

            uploaded = client.post(  # nothing scripted: the vision model fails, a 502
                "/v1/images", data={"user_id": "ana", "caption": "receipt"},
                files={"file": ("r.png", png(rgb=(0, 0, 0)), "image/png")},
            )  # fmt: skip
            assert uploaded.status_code == 502 and uploaded.json()["error"]
            vision.script(ok("A shop receipt."))
            uploaded = client.post(
                "/v1/images", data={"user_id": "ana", "caption": "receipt"},
                files={"file": ("r.png", png(rgb=(0, 0, 0)), "image/png")},
            )  # fmt: skip
            assert uploaded.json()["images"][0]["description"] == "A shop receipt. (receipt)"
            hello = {"file": ("x.png", b"hello", "image/png")}
            not_an_image = client.post("/v1/images", data={"user_id": "ana"}, files=hello)
            assert not_an_image.status_code == 422

            files = sorted((tmp_path / "img-images").rglob("*.png"))
            assert len(files) == 2
            gone = client.delete(f"/v1/memories/{image['id']}", params={"user_id": "ana"})
            assert gone.status_code == 200
            assert len(sorted((tmp_path / "img-images").rglob("*.png"))) == 1


def test_kuzya_remember_takes_an_image(tmp_path: Path) -> None:
    import subprocess
    import sys

    (tmp_path / "red.png").write_bytes(png())
    db = str(tmp_path / "cli.db")

    def kuzya(*arguments: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "kuzya", *arguments, "--db", db],
                              capture_output=True, text=True, timeout=120)  # fmt: skip

    refused = kuzya("remember", "look", "-s", "ana", "--image", str(tmp_path / "red.png"))
    assert refused.returncode == 2 and refused.stdout.startswith("error: no vision model")
    stored = kuzya("remember", "look at this", "-s", "ana", "--image", str(tmp_path / "red.png"),
                   "--caption", "a red square on my desk")  # fmt: skip
    assert stored.returncode == 0 and stored.stdout.startswith("remembered #1"), stored
    assert [p.name for p in (tmp_path / "cli-images").rglob("*.png")] == ["1.png"]
    found = kuzya("recall", "what is on my desk?", "-p", "ana")
    assert "red square" in found.stdout
