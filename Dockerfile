# One image for the API, the worker and the migration job (the command picks the role).
# The build context is the whole checkout minus .dockerignore, and `pip install .` installs
# exactly the packages pyproject.toml lists: the package set is written down once, there.
# tests/deploy/test_image.py rebuilds this context from the COPY lines, installs it as a wheel
# into a fresh environment and starts the API app, the worker and the CLI from it.
FROM python:3.11-slim AS base
ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 PIP_NO_CACHE_DIR=1
WORKDIR /app

COPY . .
RUN pip install . && rm -rf build ./*.egg-info && useradd --system --uid 10001 mccgw
USER mccgw

EXPOSE 8000
CMD ["mccgw", "api", "--host", "0.0.0.0", "--port", "8000", "--workers", "2"]
