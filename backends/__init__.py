"""The activities' implementations, by what they talk to: Qdrant (reports, the answer
cache, Edge), PostgreSQL (sessions, memory, the sweeper, coverage), the model engines
(`engines/`: offline and OpenAI-compatible; `model_steps` runs them and the numeric
check), the embedder and the reranker, the probes. Each implementation takes its pinned
step name from its declaration in `activities/steps.py` (`@implements`); only the worker
(`worker.py`) imports this package — workflows, the API, the CLI and evaluation import
the boundary (`activities`: declarations, contracts, errors) and nothing here.
"""
