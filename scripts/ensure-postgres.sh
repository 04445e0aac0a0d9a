#!/usr/bin/env bash
# Starts the machine's PostgreSQL cluster when it is installed but not running, and
# waits until 127.0.0.1:5432 answers. Assumes nothing else: it never creates roles or
# databases (tests create and drop their own).
set -euo pipefail
if pg_isready -q -h 127.0.0.1 -p 5432 2>/dev/null; then
  exit 0
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
