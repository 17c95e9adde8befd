"""Training the recurrent encoder (`kuzya recurrent train`): contrastively, on the
synthetic corpus, so that a question's encoding is nearest to the session that answers
it among the others in memory. Seeded: the same command writes the same weights."""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import torch
import torch.nn.functional as F
from safetensors.torch import save_file

from kuzya.embed import Embedder
from kuzya.recurrent.corpus import Example, examples
from kuzya.recurrent.memory import RecurrentMemory


class Sentences:
    """Sentence embeddings, each text embedded once."""

    def __init__(self, embedder: Embedder) -> None:
        self.embedder = embedder
        self.known: dict[str, np.ndarray] = {}

    def of(self, texts: Sequence[str]) -> np.ndarray:
        missing = [t for t in dict.fromkeys(texts) if t not in self.known]
        if missing:
            self.known.update(zip(missing, self.embedder.embed(missing), strict=True))
        return np.stack([self.known[t] for t in texts])


def _batch(memory: RecurrentMemory, batch: Sequence[Example], sentences: Sentences) -> torch.Tensor:
    """Scores [batch, sessions] of each question against its memory's sessions."""
    sessions = [s for example in batch for s in example.sessions]
    longest = max(len(s) for s in sessions)
    padded = np.zeros((len(sessions), longest, memory.input_dim), dtype=np.float32)
    for n, session in enumerate(sessions):
        padded[n, : len(session)] = sentences.of(session)
    lengths = torch.tensor([len(s) for s in sessions])
    encoded = memory.encode_padded(torch.from_numpy(padded), lengths)
    encoded = encoded.view(len(batch), len(batch[0].sessions), -1)
    questions = memory.encode(torch.from_numpy(sentences.of([e.question for e in batch]))[:, None])
    return torch.einsum("bsh,bh->bs", encoded, questions)


def accuracy(
    memory: RecurrentMemory, found: Sequence[Example], sentences: Sentences
) -> dict[str, float]:
    """How often the answering session is first, and among the first three."""
    with torch.no_grad():
        scores = torch.cat([_batch(memory, found[i : i + 256], sentences)
                            for i in range(0, len(found), 256)])  # fmt: skip
    answers = torch.tensor([e.answer for e in found])
    ranked = scores.argsort(dim=1, descending=True)
    return {
        "at_1": round(float((ranked[:, 0] == answers).float().mean()), 4),
        "at_3": round(float((ranked[:, :3] == answers[:, None]).any(dim=1).float().mean()), 4),
    }


def train(
    embedder: Embedder,
    output: Path,
    *,
    steps: int = 400,
    batch_size: int = 64,
    seed: int = 7,
    progress: Callable[[str], None] | None = None,
) -> dict[str, Any]:
    """Train an encoder and write it to `output` (safetensors, float16); returns the
    accuracy on held-out sessions before and after, and the time it took."""
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)
    started = time.perf_counter()
    sentences = Sentences(embedder)
    memory = RecurrentMemory(input_dim=embedder.dim)
    training = examples(steps * batch_size // 4, seed=seed)
    held_out = examples(500, held_out=True, seed=seed)
    before = accuracy(memory, held_out, sentences)
    optimiser = torch.optim.AdamW(memory.encoder.parameters(), lr=2e-3, weight_decay=1e-4)
    rng = random.Random(seed)
    for step in range(steps):
        batch = rng.sample(training, batch_size)
        scores = _batch(memory, batch, sentences) / 0.05
        loss = F.cross_entropy(scores, torch.tensor([e.answer for e in batch]))
        optimiser.zero_grad()
        torch.autograd.backward(loss)
        optimiser.step()
        if progress and (step + 1) % 50 == 0:
            progress(f"step {step + 1}/{steps}: loss {loss.item():.3f}")
    after = accuracy(memory, held_out, sentences)
    state = {
        f"encoder.{k}": v.detach().half().contiguous()
        for k, v in memory.encoder.state_dict().items()
    }
    output.parent.mkdir(parents=True, exist_ok=True)
    save_file(state, str(output))
    return {
        "steps": steps, "batch": batch_size, "seed": seed, "embedder": embedder.name,
        "held_out_before": before, "held_out_after": after,
        "train_after": accuracy(memory, training[:500], sentences),
        "seconds": round(time.perf_counter() - started, 1), "weights": str(output),
        "parameters": sum(p.numel() for p in memory.encoder.parameters()),
    }  # fmt: skip
