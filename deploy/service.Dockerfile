# The judge service's image: the judge image (Dockerfile, default target) plus the `service` extra
# (FastAPI, uvicorn, Celery, redis, SQLAlchemy, psycopg), for `judge serve` and `judge worker`.
#
#   docker build -f deploy/service.Dockerfile --build-arg JUDGE_IMAGE=numpy-judge:local -t numpy-judge:service .
#
# (.ci/docker.sh deploy builds it; the context is the repository, as for the Dockerfile.)  Problems stay in
# /opt/judge (root-only), so the API and the workers run as root in the container: the API with every
# capability dropped, the workers with the few mode `reduced` needs (deploy/compose.yaml, deploy/kubernetes/).
ARG JUDGE_IMAGE=numpy-judge:local
FROM ${JUDGE_IMAGE}
COPY pyproject.toml README.md /src/
COPY judge /src/judge
# EXTRA_CA_CERTS: as in the Dockerfile (extra CAs for this one pip install, not kept in the image).
ARG EXTRA_CA_CERTS=""
RUN set -eux; \
    if [ -n "$EXTRA_CA_CERTS" ]; then \
        cat "$(python3 -c 'import pip._vendor.certifi as c; print(c.where())')" > /tmp/build-ca.pem; \
        printf '%s\n' "$EXTRA_CA_CERTS" >> /tmp/build-ca.pem; \
        export PIP_CERT=/tmp/build-ca.pem; \
    fi; \
    python3 -m pip install '/src[service]'; \
    rm -rf /src /tmp/build-ca.pem; \
    python3 -c 'import judge.service.app, celery, psycopg, fastapi, uvicorn'
EXPOSE 8000
