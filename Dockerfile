# Iris Collector image: one image, two roles (`iris serve`, `iris worker`).
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    IRIS_HOME=/var/lib/iris

RUN useradd --system --home-dir /var/lib/iris --create-home iris
WORKDIR /opt/iris
COPY pyproject.toml setup.py README.md ./
COPY service ./service
COPY receivers ./receivers
COPY evaluators ./evaluators
COPY storage ./storage
COPY migrations ./migrations
COPY recipes ./recipes
# gcc builds the C span scanner (receivers/otlp/_spanscan.c), then leaves.
RUN apt-get update \
 && apt-get install -y --no-install-recommends gcc libc6-dev \
 && pip install --no-cache-dir . \
 && python -c "import receivers.otlp._spanscan" \
 && apt-get purge -y gcc libc6-dev && apt-get autoremove -y && rm -rf /var/lib/apt/lists/*

USER iris
EXPOSE 6920 4317
HEALTHCHECK --interval=10s --timeout=3s --retries=5 \
  CMD python -c "import urllib.request,sys; sys.exit(0 if urllib.request.urlopen('http://127.0.0.1:6920/api/v1/health', timeout=2).status == 200 else 1)"
CMD ["iris", "serve", "--host", "0.0.0.0"]
