"""Settings of the reports (where they are, how a page is read) and of the models that
embed and rerank their excerpts."""

from pathlib import Path
from typing import Annotated, Literal

from pydantic import Field, SecretStr

from settings.base import PROJECT_ROOT, HttpAddress, NonEmpty, Section


class RetrievalSettings(Section):
    """Reports, ingestion, the embedder and the reranker."""

    corpus_dir: Path = Field(default=PROJECT_ROOT / "corpus" / "reports")
    """The sample corpus `turnstile up` ingests; also where a cited page's text is read
    from when the report's registered file is not there."""
    ingest_dir: Path = Field(default=PROJECT_ROOT / "corpus")
    """The only folder `POST /v1/ingest` and `turnstile ingest` read files from (symlinks
    resolved first)."""
    ocr: bool = False
    """Read a PDF page without a usable text layer (a scan, a font without a character
    map) with tesseract (`apt-get install tesseract-ocr`) instead of leaving it out; a
    figure is taken only where two readings agree (ingestion/pdf.py). Off by default:
    OCR costs about 2 s a page, and without tesseract each such page says so."""

    embedding_provider: Literal["local", "openai"] = "local"
    """`openai`: embed through an OpenAI-compatible endpoint instead of the local model."""
    embedding_model: Literal["all-MiniLM-L6-v2"] = "all-MiniLM-L6-v2"
    """The local embedder (offline, the default)."""
    embedding_cache_dir: Path | None = None
    """Where document vectors are kept so a text is embedded once (`VectorCache`); unset,
    `home/embedding-cache`."""
    embedding_base_url: HttpAddress | None = None
    """The embeddings endpoint; defaults to TURNSTILE_OPENAI_BASE_URL."""
    embedding_api_key: SecretStr | None = None
    """The embeddings endpoint's key; defaults to TURNSTILE_OPENAI_API_KEY."""
    openai_embedding_model: NonEmpty = "text-embedding-3-small"
    """The model of the `openai` embedding provider."""
    openai_embedding_dimensions: Annotated[int, Field(ge=8, le=8192)] | None = None
    """The vector length asked of the `openai` provider (for a model that supports it);
    unset, the model's own."""

    cohere_api_key: SecretStr | None = None
    """Cohere rerank over the fused candidates; without a key there is no reranker."""
    cohere_base_url: HttpAddress | None = None
    """The reranker's endpoint; defaults to Cohere's own API."""
    rerank_model: NonEmpty = "rerank-v3.5"
    """The Cohere rerank model."""
