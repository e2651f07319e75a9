# syntax=docker/dockerfile:1
# The production worker: `docker build -t customer-service-agent .` (or `make docker-build`),
# then run it with LIVEKIT_URL, LIVEKIT_API_KEY and LIVEKIT_API_SECRET in its environment.
# With DATABASE_URL=postgresql+asyncpg://... (the driver is in the image), run
# `python src/agent.py migrate` in the same image once per release, before `start`.

ARG PYTHON_VERSION=3.11

# ---- builder: dependencies, the project and the turn-detector model files ----
FROM python:${PYTHON_VERSION}-slim AS builder

# HF_HOME: the model cache goes where the final image's appuser reads it.
ENV PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PIP_NO_CACHE_DIR=1 \
    PYTHONDONTWRITEBYTECODE=1 \
    HF_HOME=/home/appuser/.cache/huggingface

# Compilers for any dependency without a wheel for the build platform; builder only.
RUN apt-get update \
    && apt-get install -y --no-install-recommends gcc g++ \
    && rm -rf /var/lib/apt/lists/*

RUN python -m venv /opt/venv
ENV PATH=/opt/venv/bin:$PATH

WORKDIR /app
# Every dependency at the version and hashes requirements.lock names (the project's and the
# PostgreSQL driver), then the project itself, which may pull in nothing else.
COPY pyproject.toml README.md requirements.lock ./
RUN pip install --upgrade pip && pip install --require-hashes -r requirements.lock
COPY src ./src
RUN pip install --no-deps . && python -m compileall -q src

# Fetches the turn-detector plugin's model files now, so TURN_DETECTION=multilingual or
# english can be chosen without a rebuild and the worker never downloads at runtime.
RUN python src/agent.py download-files

# ---- runtime ----
FROM python:${PYTHON_VERSION}-slim

ENV PYTHONUNBUFFERED=1 \
    PYTHONDONTWRITEBYTECODE=1 \
    PATH=/opt/venv/bin:$PATH \
    HF_HOME=/home/appuser/.cache/huggingface

# A non-root user whose home is writable: the SQLite store defaults to
# ~/.local/share/customer-service-agent/ (set DATABASE_URL to use another database).
ARG UID=10001
RUN useradd --create-home --uid "${UID}" --shell /usr/sbin/nologin appuser \
    && mkdir -p /home/appuser/.cache /home/appuser/.local/share \
    && chown -R appuser:appuser /home/appuser

COPY --from=builder /opt/venv /opt/venv
COPY --from=builder --chown=appuser:appuser /home/appuser/.cache/huggingface /home/appuser/.cache/huggingface
WORKDIR /app
COPY --from=builder /app/src ./src

USER appuser
# The model files are in the image: never reach for the model hub at runtime.
ENV HF_HUB_OFFLINE=1

# The worker's health endpoint (HTTP) in production mode.
EXPOSE 8081

CMD ["python", "src/agent.py", "start"]
