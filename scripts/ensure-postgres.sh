#!/usr/bin/env bash
# Starts the machine's PostgreSQL cluster when it is installed but not running, and
# waits until 127.0.0.1:5432 answers. When PostgreSQL is missing it installs Debian's
# package and lets local TCP connections in without a password (trust, as the tests
# expect). It never creates roles or databases (tests create and drop their own).
set -euo pipefail
if pg_isready -q -h 127.0.0.1 -p 5432 2>/dev/null; then
  exit 0
fi
if ! command -v pg_lsclusters >/dev/null 2>&1 || [ -z "$(ls /etc/postgresql 2>/dev/null)" ]; then
  echo "installing Debian's postgresql"
  sudo=""; [ "$(id -u)" -ne 0 ] && sudo="sudo"
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -q postgresql >/dev/null \
    || { $sudo apt-get update -q >/dev/null && $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -q postgresql >/dev/null; }
  for hba in /etc/postgresql/*/main/pg_hba.conf; do
    $sudo sed -i -E 's/^(host\s+all\s+all\s+(127\.0\.0\.1\/32|::1\/128)\s+)\S+/\1trust/' "$hba"
  done
fi
if command -v pg_lsclusters >/dev/null 2>&1; then
  ver=$(ls /etc/postgresql 2>/dev/null | sort -V | tail -n 1)
  if [ -n "$ver" ]; then
    echo "starting PostgreSQL $ver"
    pg_ctlcluster --skip-systemctl-redirect "$ver" main start || pg_ctlcluster "$ver" main start
  fi
fi
for _ in $(seq 1 30); do
  pg_isready -q -h 127.0.0.1 -p 5432 2>/dev/null && exit 0
  sleep 1
done
echo "error: PostgreSQL does not answer on 127.0.0.1:5432" >&2
exit 1
