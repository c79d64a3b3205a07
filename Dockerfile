# One image for the API, the worker and the migration job (the command picks the role).
FROM python:3.11-slim AS base
ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 PIP_NO_CACHE_DIR=1
WORKDIR /app

COPY pyproject.toml README.md ./
COPY api ./api
COPY activities ./activities
COPY chain ./chain
COPY core ./core
COPY db ./db
COPY engine ./engine
COPY events ./events
COPY ledger ./ledger
COPY mccgw ./mccgw
COPY migrations ./migrations
COPY mining ./mining
COPY onboarding ./onboarding
COPY workflows ./workflows
COPY worker.py alembic.ini ./
COPY authserver ./authserver
RUN pip install . && useradd --system --uid 10001 mccgw
USER mccgw

EXPOSE 8000
CMD ["mccgw", "api", "--host", "0.0.0.0", "--port", "8000", "--workers", "2"]
