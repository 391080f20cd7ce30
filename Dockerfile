# numpy-judge as an image.  Two targets:
#   sandbox  the judge package + numpy, no problems: what the container backend runs learner code in
#            (docker build --target sandbox -t numpy-judge:sandbox .)
#   judge    (default) sandbox + /opt/judge/{problems,submissions}, ENTRYPOINT judge
#            (docker build -t numpy-judge:local .)
# BASE is any Debian-like image: an official Python slim image (default), or a bare Debian rootfs
# (.ci/docker.sh builds one with debootstrap when no registry is reachable); python3, pip and
# libseccomp2 are installed from apt when the base lacks them.
# Run flags for the process-backend sandbox inside the judge image: see README ("Docker").
ARG BASE=python:3.11-slim

FROM ${BASE} AS sandbox
ENV DEBIAN_FRONTEND=noninteractive \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PIP_BREAK_SYSTEM_PACKAGES=1 \
    PYTHONDONTWRITEBYTECODE=1 \
    LANG=C.UTF-8
RUN set -eux; \
    need=""; \
    command -v python3 >/dev/null 2>&1 || need="python3"; \
    python3 -m pip --version >/dev/null 2>&1 || need="$need python3-pip"; \
    dpkg -s libseccomp2 >/dev/null 2>&1 || need="$need libseccomp2"; \
    if [ -n "$need" ]; then \
        apt-get update; \
        apt-get install -y --no-install-recommends $need ca-certificates; \
        rm -rf /var/lib/apt/lists/*; \
    fi; \
    python3 -c 'import sys; assert sys.version_info >= (3, 11), sys.version'
COPY pyproject.toml README.md /src/
COPY judge /src/judge
# EXTRA_CA_CERTS: PEM text of extra CAs to trust for this one pip install (a TLS-intercepting
# proxy between the build and PyPI); added to pip's own bundle, not kept in the image.
ARG EXTRA_CA_CERTS=""
RUN set -eux; \
    if [ -n "$EXTRA_CA_CERTS" ]; then \
        cat "$(python3 -c 'import pip._vendor.certifi as c; print(c.where())')" > /tmp/build-ca.pem; \
        printf '%s\n' "$EXTRA_CA_CERTS" >> /tmp/build-ca.pem; \
        export PIP_CERT=/tmp/build-ca.pem; \
    fi; \
    python3 -m pip install /src; \
    rm -rf /src /tmp/build-ca.pem; \
    python3 -c 'import judge.sandbox.backends.container_entry, numpy; print("numpy", numpy.__version__)'
WORKDIR /tmp

FROM sandbox AS judge
# Not in site-packages, not under /usr or the Python prefix: the learner's sandbox never sees them.
# Root-only too, so a learner process (uid 65534, no capabilities) cannot read them even here.
COPY problems /opt/judge/problems
COPY submissions /opt/judge/submissions
RUN chmod -R go-rwx /opt/judge && mkdir -p -m 0700 /var/cache/numpy-judge
ENV JUDGE_PROBLEMS_DIR=/opt/judge/problems \
    JUDGE_CACHE_DIR=/var/cache/numpy-judge
WORKDIR /opt/judge
ENTRYPOINT ["judge"]
CMD ["--help"]
