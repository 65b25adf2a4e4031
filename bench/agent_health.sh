#!/usr/bin/env bash
# The health check's throughput and latency with wrk, the server pinned to
# one core (taskset), side by side with nginx `return 200` on the same core;
# then the health check's p99 while 5,000 idle connections are held open.
# A second agent runs with its metrics listener on (-metrics) and scraped
# every second, as a Prometheus would (docs/operator.md, "Metrics": the
# listener shares nothing with the health check): its health check must be
# no slower than the first agent's. The three servers take turns, ROUNDS
# times (default 5), and the median of each is printed last: on a shared VM
# one run can be 20 % off the next.
# Usage: [ROUNDS=n] bench/agent_health.sh [BUILD_DIR] [SECONDS]   (default build, 10)
set -euo pipefail
cd "$(dirname "$0")/.."
bin="$(realpath "${1:-build}")/carlos"
secs="${2:-10}"
rounds="${ROUNDS:-5}"
server_core=0
client_core=1
ulimit -n "$(ulimit -Hn)"  # 5,000 held connections need more than the usual 1024
tmp=$(mktemp -d)
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; wait "$p" 2>/dev/null || true; done; rm -rf "$tmp"; }
trap cleanup EXIT
freeport() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

# The agent, hosting directly (region HA off): the health check answers 200.
# The header timeout is raised so that the idle connections below stay open
# for the whole run (with the default 10 s they are closed after 10 s).
aport=$(freeport)
mkdir -p "$tmp/data"
env -i PATH="$PATH" CARLOS_BOX_LABEL=bench-1 CARLOS_DATA_DIR="$tmp/data" CARLOS_IMDS_ENDPOINT=off \
  CARLOS_HEALTH_HEADER_TIMEOUT=300s \
  taskset -c $server_core "$bin" agent -http "127.0.0.1:$aport" 2>"$tmp/agent.log" &
pids+=($!)

# The same agent with metrics on, scraped every second (the scraper on the
# client's core, as a Prometheus elsewhere would be).
mport=$(freeport)
mhport=$(freeport)
mkdir -p "$tmp/mdata"
env -i PATH="$PATH" CARLOS_BOX_LABEL=bench-2 CARLOS_DATA_DIR="$tmp/mdata" CARLOS_IMDS_ENDPOINT=off \
  CARLOS_HEALTH_HEADER_TIMEOUT=300s \
  taskset -c $server_core "$bin" agent -http "127.0.0.1:$mhport" -metrics "127.0.0.1:$mport" \
  2>"$tmp/magent.log" &
pids+=($!)
(while sleep 1; do
  taskset -c $client_core curl -sf "http://127.0.0.1:$mport/metrics" > /dev/null && echo ok >> "$tmp/scrapes"
done) &
pids+=($!)

# nginx, one worker, on the same core.
nport=$(freeport)
cat > "$tmp/nginx.conf" <<CONF
worker_processes 1;
worker_cpu_affinity 01;
daemon off;
pid $tmp/nginx.pid;
error_log $tmp/nginx.err;
events { worker_connections 20000; }
http {
  access_log off;
  server { listen 127.0.0.1:$nport; location / { return 200 "hosting\n"; } }
}
CONF
taskset -c $server_core nginx -c "$tmp/nginx.conf" -p "$tmp" &
pids+=($!)
sleep 1

run() {  # name url [tag]: prints wrk's summary; with a tag, notes req/s and p99 under it
  echo "== $1"
  taskset -c $client_core wrk -t1 -c50 -d"${secs}s" --latency "$2" > "$tmp/wrk.out"
  awk '/Requests\/sec|Latency  |  50%|  99%|Non-2xx|Socket errors/' "$tmp/wrk.out"
  if [ -n "${3:-}" ]; then
    awk '/Requests\/sec/ {print $2}' "$tmp/wrk.out" >> "$tmp/$3.rps"
    awk '/  99%/ {v=$2; if (v ~ /us$/) v=v/1000; else if (v ~ /ms$/) v=v+0; else if (v ~ /s$/) v=v*1000; print v}' "$tmp/wrk.out" >> "$tmp/$3.p99"
  fi
}
# Both servers warm up first (code paged in, buffers grown), unmeasured.
for url in "http://127.0.0.1:$aport/_carlos/lb" "http://127.0.0.1:$mhport/_carlos/lb" \
  "http://127.0.0.1:$nport/_carlos/lb"; do
  taskset -c $client_core wrk -t1 -c50 -d2s "$url" > /dev/null
done
median() { sort -g "$1" | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
for r in $(seq "$rounds"); do
  run "round $r: carlos agent health check (1 core)" "http://127.0.0.1:$aport/_carlos/lb" agent
  run "round $r: carlos agent health check, metrics on and scraped every 1 s (1 core)" \
    "http://127.0.0.1:$mhport/_carlos/lb" metrics
  run "round $r: nginx return 200 (1 core)" "http://127.0.0.1:$nport/_carlos/lb" nginx
done
echo "== median of $rounds rounds: agent $(median "$tmp/agent.rps") req/s, p99 $(median "$tmp/agent.p99") ms;" \
  "agent with metrics scraped $(median "$tmp/metrics.rps") req/s, p99 $(median "$tmp/metrics.p99") ms" \
  "($(wc -l < "$tmp/scrapes") scrapes answered);" \
  "nginx $(median "$tmp/nginx.rps") req/s, p99 $(median "$tmp/nginx.p99") ms"

# 5,000 idle connections held open on the agent, then the same load.
python3 - "$aport" 5000 "$tmp/held" <<'PY' &
import socket, sys, time, os
port, n, flag = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
socks = []
for i in range(n):
    s = socket.socket(); s.connect(("127.0.0.1", port)); socks.append(s)
open(flag, "w").close()
time.sleep(600)
PY
pids+=($!)
for _ in $(seq 100); do [ -e "$tmp/held" ] && break; sleep 0.2; done
sleep 1
echo "open connections on the agent: $(ss -Htn state established "( sport = :$aport )" | wc -l)"
run "carlos agent health check with 5,000 idle connections held (1 core)" "http://127.0.0.1:$aport/_carlos/lb"
echo "agent VmRSS with them: $(awk '/VmRSS/ {print $2}' /proc/${pids[0]}/status) KiB"
