# One image for the API and the workers; docker-compose.yml picks the command.
FROM python:3.11-slim

# HF_HUB_OFFLINE: every model the app loads ships in the image or in a package;
# a missing one must fail at start-up, not trigger a download in production.
ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    HF_HUB_OFFLINE=1

WORKDIR /app

# The CPU-only torch wheel keeps the image free of CUDA libraries. The PyTorch
# index is reached here, at image build time on a production build host, never
# by tests or at run time. Installing it first makes `pip install .` find the
# requirement already met instead of pulling the CUDA build from PyPI, and
# keeps this large layer cached across source changes.
RUN pip install --index-url https://download.pytorch.org/whl/cpu torch==2.13.0

COPY . .
RUN pip install . \
    && useradd --create-home --uid 10001 turnstile

# The code stays root-owned: the app user can run it but not rewrite it.
USER turnstile

CMD ["python", "worker.py"]
