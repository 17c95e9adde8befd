"""`RecurrentMemory`: a GRU over a session's sentence embeddings gives the session one
vector; `num_slots` slots keep the latest sessions' vectors and texts (a new session
overwrites the oldest); a question, encoded the same way, reads back the `k` sessions
most similar to it. State is saved as safetensors (the encoder and the slots) beside a
JSON file (the texts and the settings): nothing is unpickled on load."""

from __future__ import annotations

import json
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import torch
import torch.nn.functional as F
from safetensors.torch import load_file, save_file
from torch import nn

from kuzya.errors import InvalidInput, StoreError

ENCODER_FILE = "recurrent-encoder.safetensors"  # in kuzya/data: the trained encoder


@dataclass(frozen=True)
class Recalled:
    """A slot read back: which one, how similar to the question, the session's text."""

    slot: int
    score: float
    text: str


class RecurrentMemory(nn.Module):
    slots: torch.Tensor  # [num_slots, hidden_dim], unit vectors of the sessions written
    written: torch.Tensor  # [num_slots]: when each slot was written (1, 2, ...); 0: empty

    def __init__(self, input_dim: int = 512, hidden_dim: int = 512, num_slots: int = 10) -> None:
        super().__init__()
        if min(input_dim, hidden_dim, num_slots) < 1:
            raise InvalidInput("input_dim, hidden_dim and num_slots must be positive")
        self.input_dim, self.hidden_dim, self.num_slots = input_dim, hidden_dim, num_slots
        self.encoder = nn.GRU(input_dim, hidden_dim, batch_first=True)
        self.register_buffer("slots", torch.zeros(num_slots, hidden_dim))
        self.register_buffer("written", torch.zeros(num_slots, dtype=torch.long))
        self.texts: list[str] = [""] * num_slots
        self.shipped = False  # the encoder is the shipped one: a saved state refers to it

    @classmethod
    def pretrained(cls, num_slots: int = 10) -> RecurrentMemory:
        """Empty slots over the encoder trained by `kuzya recurrent train` (shipped)."""
        weights = resources.files("kuzya") / "data" / ENCODER_FILE
        with resources.as_file(weights) as path:
            state = load_file(str(path))
        input_dim = state["encoder.weight_ih_l0"].shape[1]
        hidden_dim = state["encoder.weight_hh_l0"].shape[1]
        memory = cls(input_dim, hidden_dim, num_slots)
        encoder = {k.removeprefix("encoder."): v.float() for k, v in state.items()}
        memory.encoder.load_state_dict(encoder)
        memory.shipped = True
        return memory

    # -- encoding --------------------------------------------------------------------

    def encode(self, sequences: torch.Tensor) -> torch.Tensor:
        """[batch, steps, input_dim] (or [steps, input_dim]) → unit vectors [batch, hidden]."""
        batch = sequences.unsqueeze(0) if sequences.dim() == 2 else sequences
        if batch.dim() != 3 or batch.shape[-1] != self.input_dim or batch.shape[1] == 0:
            raise InvalidInput(
                f"embeddings must be [steps, {self.input_dim}] or [batch, steps, "
                f"{self.input_dim}] with at least one step, not {list(sequences.shape)}"
            )
        _, last = self.encoder(batch.float())
        return F.normalize(last.squeeze(0), dim=-1)

    def encode_padded(self, sequences: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
        """As `encode`, for a batch of sequences of different `lengths` (zero-padded)."""
        packed = nn.utils.rnn.pack_padded_sequence(
            sequences.float(), lengths.cpu(), batch_first=True, enforce_sorted=False
        )
        _, last = self.encoder(packed)
        return F.normalize(last.squeeze(0), dim=-1)

    # -- slots -----------------------------------------------------------------------

    @property
    def filled(self) -> int:
        return int((self.written > 0).sum())

    @torch.no_grad()
    def update(self, session: npt.NDArray[np.float32] | torch.Tensor, text: str) -> int:
        """Write a session (its sentence embeddings, [steps, input_dim], in order) and its
        text into the oldest slot (an empty one first); returns the slot."""
        vector = self.encode(torch.as_tensor(session))[0]
        slot = int(torch.argmin(self.written))
        self.slots[slot] = vector
        self.written[slot] = int(self.written.max()) + 1
        self.texts[slot] = text
        return slot

    @torch.no_grad()
    def retrieve(self, query: npt.NDArray[np.float32] | torch.Tensor, k: int = 3) -> list[Recalled]:
        """The `k` filled slots most similar to the query (its sentence embeddings), best
        first; fewer when fewer are filled."""
        if k < 1:
            raise InvalidInput(f"k must be at least 1, not {k}")
        filled = torch.nonzero(self.written > 0).flatten()
        if len(filled) == 0:
            return []
        encoded = self.encode(torch.as_tensor(query))[0]
        scores = self.slots[filled] @ encoded
        best = torch.topk(scores, min(k, len(filled)))
        return [
            Recalled(int(filled[i]), float(score), self.texts[int(filled[i])])
            for score, i in zip(best.values, best.indices, strict=True)
        ]

    # -- persistence -----------------------------------------------------------------

    def save(self, path: Path) -> None:
        """`path`.safetensors (the slots, and the encoder unless it is the shipped one)
        and `path`.json (texts, settings)."""
        path.parent.mkdir(parents=True, exist_ok=True)
        tensors = {k: v.detach().contiguous() for k, v in self.state_dict().items()
                   if not (self.shipped and k.startswith("encoder."))}  # fmt: skip
        save_file(tensors, str(path.with_suffix(".safetensors")))
        settings = {"input_dim": self.input_dim, "hidden_dim": self.hidden_dim,
                    "num_slots": self.num_slots, "texts": self.texts,
                    "encoder": "shipped" if self.shipped else "saved"}  # fmt: skip
        path.with_suffix(".json").write_text(json.dumps(settings, ensure_ascii=False), "utf-8")

    @classmethod
    def load(cls, path: Path) -> RecurrentMemory:
        try:
            settings: dict[str, Any] = json.loads(path.with_suffix(".json").read_text("utf-8"))
            state = load_file(str(path.with_suffix(".safetensors")))
            if settings.get("encoder") == "shipped":
                memory = cls.pretrained(settings["num_slots"])
                state = {**{f"encoder.{k}": v for k, v in memory.encoder.state_dict().items()},
                         **state}  # fmt: skip
            else:
                memory = cls(settings["input_dim"], settings["hidden_dim"], settings["num_slots"])
            memory.load_state_dict(state)
            texts = settings["texts"]
        except (OSError, ValueError, KeyError, RuntimeError) as exc:
            raise StoreError(f"cannot load recurrent memory from {path}: {exc}") from None
        if not (isinstance(texts, list) and len(texts) == memory.num_slots):
            raise StoreError(f"{path.with_suffix('.json')} does not list {memory.num_slots} texts")
        memory.texts = [str(t) for t in texts]
        return memory
