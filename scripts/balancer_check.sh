#!/usr/bin/env bash
# Two server replicas behind HAProxy on loopback, under `stargammon bench server` load,
# each replica stopped (SIGTERM) and restarted in turn mid-run: the load must finish with
# every request answered and no error reply, its clients retrying on a new connection
# (`--retry`) when a replica goes away. Prints the bench's JSON, the decisions each
# replica answered (from its /metrics) and the restarts; exits 1 if any request failed.
#
#   scripts/balancer_check.sh
#
# Needs HAProxy (Debian: apt-get install haproxy) and a release build
# (cargo build --release). Settings from the environment (defaults in brackets):
#   SG_BIN          the binary [target/release/stargammon]
#   SG_CONFIG       the replicas' configuration [config/throughput.toml: depth 1]
#   SG_THREADS      search threads per replica [1]
#   SG_REQUESTS     requests in all [200000]; the run must outlast both restarts
#   SG_CONNECTIONS  client connections [16]
#   SG_PORT         first of the 5 loopback ports used [17400]: the balancer, then
#                   each replica's line port and HTTP port
#   SG_DOWN_SECONDS how long a replica stays stopped [2]
#
# HAProxy forwards the line protocol (TCP mode, least connections) and checks each
# replica's health on its HTTP port (GET /healthz every 200 ms; down after 1 failure, up
# after 2 successes); a connection it cannot place is tried again on the other replica
# (`option redispatch`). A replica that stops closes its connections; the clients then
# reconnect through the balancer and repeat their request.
set -euo pipefail
cd "$(dirname "$0")/.."

bin=${SG_BIN:-target/release/stargammon}
config=${SG_CONFIG:-config/throughput.toml}
threads=${SG_THREADS:-1}
requests=${SG_REQUESTS:-200000}
connections=${SG_CONNECTIONS:-16}
port=${SG_PORT:-17400}
down=${SG_DOWN_SECONDS:-2}
haproxy_bin=$(command -v haproxy || echo /usr/sbin/haproxy)
[ -x "$haproxy_bin" ] || {
  echo "balancer_check: haproxy not found (apt-get install haproxy)" >&2
  exit 2
}
[ -x "$bin" ] || {
  echo "balancer_check: $bin not found (cargo build --release)" >&2
  exit 2
}

work=$(mktemp -d)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

front=$port
line_port() { echo $((port + 2 * $1 - 1)); } # replica 1: port+1, replica 2: port+3
http_port() { echo $((port + 2 * $1)); }      # replica 1: port+2, replica 2: port+4

declare -A replica_pid
start_replica() {
  local r=$1
  STARGAMMON_ENGINE__THREADS=$threads "$bin" serve --config "$config" \
    --listen "127.0.0.1:$(line_port "$r")" --http "127.0.0.1:$(http_port "$r")" \
    2>>"$work/replica$r.log" &
  replica_pid[$r]=$!
  pids+=("$!")
  wait_healthy "$r"
}
wait_healthy() {
  for _ in $(seq 200); do
    if curl -sf "http://127.0.0.1:$(http_port "$1")/healthz" >/dev/null 2>&1; then return 0; fi
    sleep 0.05
  done
  echo "balancer_check: replica $1 did not come up" >&2
  cat "$work/replica$1.log" >&2
  exit 1
}
stop_replica() {
  kill -TERM "${replica_pid[$1]}"
  wait "${replica_pid[$1]}" 2>/dev/null || true
}
decisions_of() {
  curl -sf "http://127.0.0.1:$(http_port "$1")/metrics" |
    awk '/^stargammon_decisions_total\{protocol="gnubg_interface"\}/ { print $2 }'
}

cat >"$work/haproxy.cfg" <<EOF
global
    maxconn 1024
defaults
    mode tcp
    timeout connect 1s
    timeout client 60s
    timeout server 60s
    retries 3
    option redispatch
frontend line
    bind 127.0.0.1:$front
    default_backend replicas
backend replicas
    balance leastconn
    option httpchk GET /healthz
    default-server inter 200ms fall 1 rise 2
    server r1 127.0.0.1:$(line_port 1) check port $(http_port 1)
    server r2 127.0.0.1:$(line_port 2) check port $(http_port 2)
EOF
"$haproxy_bin" -c -q -f "$work/haproxy.cfg"
start_replica 1
start_replica 2
"$haproxy_bin" -db -f "$work/haproxy.cfg" 2>"$work/haproxy.log" &
pids+=("$!")
sleep 1

"$bin" bench server --target "127.0.0.1:$front" --retry --connections "$connections" \
  --requests "$requests" --json >"$work/bench.json" 2>"$work/bench.err" &
bench=$!
pids+=("$bench")
events=()
sleep 3
for r in 1 2; do
  stop_replica "$r"
  events+=("replica $r: stopped at $SECONDS s")
  sleep "$down"
  start_replica "$r"
  events+=("replica $r: restarted and healthy at $SECONDS s")
  # Let the balancer see it up again before the other one goes.
  sleep 2
done
if ! kill -0 "$bench" 2>/dev/null; then
  echo "balancer_check: the load finished before the restarts were over; raise SG_REQUESTS" >&2
  exit 1
fi
status=0
wait "$bench" || status=$?
events+=("load finished at $SECONDS s")
if [ "$status" -ne 0 ]; then
  echo "balancer_check: the load failed:" >&2
  cat "$work/bench.err" >&2
  exit 1
fi
cat "$work/bench.json"
for e in "${events[@]}"; do echo "$e"; done
for r in 1 2; do
  echo "replica $r: $(decisions_of "$r") decisions since its restart"
done
python3 - "$work/bench.json" "$requests" <<'EOF'
import json, sys
r = json.load(open(sys.argv[1]))
ok = r["decisions"] == int(sys.argv[2]) and r["errors"] == 0
print(f'{r["decisions"]} requests, {r["errors"]} errors, {r["retries"]} retried on a new '
      f'connection, {r["decisions_per_sec"]:.0f} decisions/s through the balancer: '
      + ("ok" if ok else "FAILED"))
sys.exit(0 if ok else 1)
EOF
