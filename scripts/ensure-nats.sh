#!/usr/bin/env bash
# Makes sure a NATS server (with JetStream) answers on 127.0.0.1:4222 for the cluster
# tests: installs Debian's nats-server when it is missing, starts it when it is installed
# but not running, and waits until the port answers. Assumes nothing else; the tests use
# their own subject prefixes.
set -euo pipefail
answers() { (exec 3<>/dev/tcp/127.0.0.1/4222) 2>/dev/null; }
if answers; then
  exit 0
fi
if ! command -v nats-server >/dev/null 2>&1 && [ ! -x /usr/sbin/nats-server ]; then
  echo "installing Debian's nats-server"
  sudo=""; [ "$(id -u)" -ne 0 ] && sudo="sudo"
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -q nats-server >/dev/null \
    || { $sudo apt-get update -q >/dev/null && $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -q nats-server >/dev/null; }
fi
bin=$(command -v nats-server || echo /usr/sbin/nats-server)
echo "starting nats-server"
dir="${TMPDIR:-/tmp}/ludo-nats"
mkdir -p "$dir"
nohup "$bin" -a 127.0.0.1 -p 4222 -js -sd "$dir/js" -l "$dir/nats.log" >/dev/null 2>&1 &
for _ in $(seq 1 30); do
  answers && exit 0
  sleep 1
done
echo "error: NATS does not answer on 127.0.0.1:4222 (see $dir/nats.log)" >&2
exit 1
