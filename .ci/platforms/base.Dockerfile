# Stand-in for a course platform's base image where no registry is reachable: a bare Debian
# rootfs (BASE, made by .ci/docker.sh with debootstrap) plus what Gradescope's base images and
# the usual grader bases hold: python3 with venv and pip, CA certificates, the /autograder folder.
# (Gradescope's own bases are Ubuntu 22.04 (Python 3.10) and newer; see README, "Gradescope".)
ARG BASE=judge-base:bookworm
FROM ${BASE}
ENV DEBIAN_FRONTEND=noninteractive LANG=C.UTF-8
RUN set -eux; \
    apt-get update; \
    apt-get install -y --no-install-recommends python3 python3-venv python3-pip ca-certificates libseccomp2; \
    rm -rf /var/lib/apt/lists/*; \
    mkdir -p /autograder
CMD ["/bin/bash"]
