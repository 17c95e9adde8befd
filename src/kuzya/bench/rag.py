"""The RAG baseline on ChromaDB, as people build it first: every message a document
embedded by Kuzya's embedder (Chroma's default embedding function downloads a model when
first used, which an offline machine cannot), the top eight by cosine similarity, and no
privacy rule beyond a metadata filter on who spoke."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any, cast

import chromadb
from chromadb.api.types import Documents, EmbeddingFunction, Embeddings, Where
from chromadb.config import Settings

from kuzya import validate
from kuzya.bench.memories import Turn
from kuzya.embed import Embedder


class KuzyaEmbedding(EmbeddingFunction[Documents]):
    def __init__(self, embedder: Embedder) -> None:
        self.embedder = embedder

    def __call__(self, input: Documents) -> Embeddings:
        return list(self.embedder.embed(list(input)))

    @staticmethod
    def name() -> str:
        return "kuzya"

    def get_config(self) -> dict[str, Any]:
        return {}

    @staticmethod
    def build_from_config(config: dict[str, Any]) -> EmbeddingFunction[Documents]:
        raise NotImplementedError("a collection of Kuzya's is opened with its embedder")


class Rag:
    """One ChromaDB collection in `folder`; a document per message."""

    def __init__(self, folder: Path, embedder: Embedder, top: int = 8) -> None:
        self.top = top
        client = chromadb.PersistentClient(
            path=str(folder / "chroma"), settings=Settings(anonymized_telemetry=False)
        )
        function = cast(Any, KuzyaEmbedding(embedder))  # Chroma types its functions narrowly
        self.collection = client.get_or_create_collection(
            "memories", embedding_function=function, metadata={"hnsw:space": "cosine"}
        )

    def replay(
        self, session_id: str, when: str, participants: Sequence[str], turns: Sequence[Turn]
    ) -> None:
        if not turns:
            return
        day = validate.moment(when, "session time").date().isoformat()
        self.collection.add(
            ids=[f"{session_id}-{n}" for n in range(len(turns))],
            documents=[f"({day}) {turn.speaker}: {turn.text}" for turn in turns],
            metadatas=[{"speaker": turn.speaker, "session": session_id} for turn in turns],
        )

    def context(self, question: str, participants: Sequence[str]) -> str:
        count = self.collection.count()
        if count == 0:
            return ""
        spoke = cast(Where, {"speaker": {"$in": list(participants)}})
        found = self.collection.query(
            query_texts=[question], n_results=min(self.top, count), where=spoke
        )
        documents = (found.get("documents") or [[]])[0]
        return "\n".join(f"- {document}" for document in documents)
