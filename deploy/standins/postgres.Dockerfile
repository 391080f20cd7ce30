# Stand-in for the official `postgres:16` image where no registry is reachable (CI): Debian bookworm's
# PostgreSQL 15 on the locally debootstrapped base, with the official image's contract as far as
# deploy/compose.yaml uses it: POSTGRES_PASSWORD (required), POSTGRES_USER (default postgres), POSTGRES_DB
# (default: the user) create the cluster in PGDATA=/var/lib/postgresql/data on first start; password
# (scram-sha-256) for every host, listening on every address; pg_isready on PATH.  Built by `.ci/docker.sh deploy`.
ARG BASE=judge-base:bookworm
FROM ${BASE}
RUN set -eux; \
    printf '#!/bin/sh\nexit 101\n' > /usr/sbin/policy-rc.d; chmod +x /usr/sbin/policy-rc.d; \
    mkdir -p /etc/postgresql-common; echo 'create_main_cluster = false' > /etc/postgresql-common/createcluster.conf; \
    apt-get update; \
    apt-get install -y --no-install-recommends postgresql-15; \
    rm -rf /var/lib/apt/lists/* /usr/sbin/policy-rc.d; \
    mkdir -p /var/lib/postgresql/data /run/postgresql; \
    chown -R postgres:postgres /var/lib/postgresql /run/postgresql; chmod 700 /var/lib/postgresql/data
ENV PATH=/usr/lib/postgresql/15/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    PGDATA=/var/lib/postgresql/data \
    LANG=C.UTF-8
COPY postgres-entrypoint.sh /usr/local/bin/docker-entrypoint.sh
VOLUME /var/lib/postgresql/data
EXPOSE 5432
STOPSIGNAL SIGINT
ENTRYPOINT ["/usr/local/bin/docker-entrypoint.sh"]
CMD ["postgres"]
