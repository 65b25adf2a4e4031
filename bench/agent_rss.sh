#!/usr/bin/env bash
# Resident memory and idle CPU of a joining `carlos agent` (default timings:
# it checks its mode every 15 s), on a directory store, IMDS off.
# Usage: bench/agent_rss.sh [BUILD_DIR] [SECONDS]   (default build, 60)
set -euo pipefail
cd "$(dirname "$0")/.."
bin="${1:-build}/carlos"
secs="${2:-60}"
tmp=$(mktemp -d)
mkdir -p "$tmp/store" "$tmp/data"
echo 0123456789abcdef > "$tmp/machine-id"
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
env CARLOS_HOST_CLAIM=1 CARLOS_REGION_HA=1 CARLOS_BOX_LABEL=bench-1 CARLOS_REGION=eu-1 \
  CARLOS_DATA_DIR="$tmp/data" CARLOS_DEPLOYMENT_DIR="$tmp/store" \
  CARLOS_ENROLLMENT_PUBKEY=ed25519:11qYAYKxCrfVS/7TyWQHOg7hcvPapiMlrwIaaPcHURo= \
  CARLOS_IMDS_ENDPOINT=off CARLOS_MACHINE_ID_FILE="$tmp/machine-id" \
  "$bin" agent -http "127.0.0.1:$port" 2>"$tmp/agent.log" &
pid=$!
trap 'kill $pid 2>/dev/null; wait $pid 2>/dev/null; rm -rf "$tmp"' EXIT
sleep 3
ticks() { awk '{print $14 + $15}' "/proc/$pid/stat"; }
hz=$(getconf CLK_TCK)
t0=$(ticks)
sleep "$secs"
t1=$(ticks)
rss=$(awk '/VmRSS/ {print $2}' "/proc/$pid/status")
hwm=$(awk '/VmHWM/ {print $2}' "/proc/$pid/status")
threads=$(awk '/Threads/ {print $2}' "/proc/$pid/status")
code=$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/_carlos/lb")
echo "joining agent: VmRSS ${rss} KiB, VmHWM ${hwm} KiB, ${threads} threads, health ${code}"
# Where the resident pages are: the agent's own memory (anonymous: heap,
# stacks) against the file pages of the binary and the shared libraries it
# maps, which other processes using the same libraries share (Pss splits
# them), and the largest mappings by resident size.
awk '/^(Pss|Private_Clean|Private_Dirty|Anonymous):/ {v[$1]=$2}
  END {printf "Pss %d KiB, private %d KiB, anonymous %d KiB\n", v["Pss:"], v["Private_Clean:"] + v["Private_Dirty:"], v["Anonymous:"]}' \
  "/proc/$pid/smaps_rollup"
awk '/^[0-9a-f]+-[0-9a-f]+ / {name = (NF >= 6 ? $6 : "[anonymous]")} /^Rss:/ {rss[name] += $2}
  END {for (n in rss) print rss[n], n}' "/proc/$pid/smaps" | sort -rn | head -12 |
  awk '{sub(".*/", "", $2); printf "  %6d KiB %s\n", $1, $2}'
floor_bin="$(dirname "$bin")/bench/library_floor"
if [ -x "$floor_bin" ]; then
  if floor=$("$floor_bin" 2>/dev/null) && [ -n "$floor" ]; then
    echo "the libraries alone (bench/library_floor): VmRSS ${floor} KiB; the agent beyond them: $((rss - floor)) KiB"
  else
    echo "bench/library_floor failed (run $floor_bin to see why); no floor printed"
  fi
fi
echo "CPU over ${secs}s idle: $(( (t1 - t0) * 1000 / hz )) ms ($(awk -v t=$((t1-t0)) -v hz=$hz -v s=$secs 'BEGIN{printf "%.3f", 100*t/hz/s}')% of a core)"
