#!/bin/sh
# As the official redis image's entry point: options alone mean redis-server; as root, /data is given to the
# redis user and the server runs as it; protected mode is off (the container's network is the boundary).
set -eu
case "${1:-}" in
  -*|"") set -- redis-server "$@" ;;
esac
if [ "$1" = redis-server ]; then
  shift
  if [ "$(id -u)" = 0 ]; then
    chown -R redis:redis /data
    exec setpriv --reuid=redis --regid=redis --init-groups redis-server --protected-mode no "$@"
  fi
  exec redis-server --protected-mode no "$@"
fi
exec "$@"
