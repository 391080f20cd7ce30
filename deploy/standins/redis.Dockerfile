# Stand-in for the official `redis:7` image where no registry is reachable (CI): Debian's redis-server on the
# locally debootstrapped base, with the official image's contract as far as deploy/compose.yaml uses it:
# command `redis-server [OPTIONS]` (or just options), listening on every address without protected mode,
# data in /data, run as the redis user.  Built by `.ci/docker.sh deploy`.
ARG BASE=judge-base:bookworm
FROM ${BASE}
RUN set -eux; \
    printf '#!/bin/sh\nexit 101\n' > /usr/sbin/policy-rc.d; chmod +x /usr/sbin/policy-rc.d; \
    apt-get update; \
    apt-get install -y --no-install-recommends redis-server; \
    rm -rf /var/lib/apt/lists/* /usr/sbin/policy-rc.d; \
    mkdir -p /data; chown redis:redis /data
COPY redis-entrypoint.sh /usr/local/bin/docker-entrypoint.sh
WORKDIR /data
VOLUME /data
EXPOSE 6379
ENTRYPOINT ["/usr/local/bin/docker-entrypoint.sh"]
CMD ["redis-server"]
