# One ContextPull replica: serves a published store (docs/scaling.md) over streamable HTTP.
#   docker build -t contextpull .
#   docker run --read-only --tmpfs /tmp -v cp-cache:/cache -p 8765:8765 contextpull --store https://docs.example/store/
FROM python:3.11-slim

RUN useradd --create-home --uid 10001 contextpull
WORKDIR /app
COPY pyproject.toml README.md LICENSE ./
COPY src ./src
RUN pip install --no-cache-dir . && rm -rf /app/src

# The fetched store lives in a volume; the root file system can be mounted read-only.
ENV XDG_DATA_HOME=/cache PYTHONDONTWRITEBYTECODE=1
RUN mkdir -p /cache && chown contextpull /cache
VOLUME /cache
USER contextpull
EXPOSE 8765
HEALTHCHECK --interval=10s --timeout=3s CMD python -c "import urllib.request,sys; sys.exit(urllib.request.urlopen('http://127.0.0.1:8765/healthz').status != 200)"
ENTRYPOINT ["contextpull", "serve", "--transport", "http", "--stateless", "--host", "0.0.0.0", "--port", "8765", "--allow-host", "replica.internal"]
