#!/usr/bin/env bash
# What a box at rest costs the store: store requests per minute of one
# agent, read from its own metrics (carlos_store_requests_total, counted by
# the measured store, src/metrics/measured_store.h), with the production
# timings (CARLOS_JOIN_EVERY=15s, CARLOS_JOIN_NUDGE_EVERY=1m,
# CARLOS_HOSTING_REPORT_EVERY=30s), in `carlos dev region --boxes 1 --metrics`:
#   joining  waiting to be invited (--no-enroller): measured from 75 s after
#            the start (past the fast poll after its record, docs/agent.md)
#            for SECONDS;
#   hosting  enrolled by the region's enroller: measured from 20 s after it
#            first answers 200, for SECONDS.
# Prints "rest <store> <state>: <n> requests in <s> s = <r>/min (get <g>,
# of them not modified <m>; put <p>; list <l>)".
#
# Usage: bench/agent_rest.sh [--build DIR] [--store dir|s3|both]
#                            [--state joining|hosting|both] [--seconds S]
#                            [--s3-port PORT] [--base-port PORT]
# Defaults: build/, both, both, 60 s, RGW on 7791, ports from 8700. As root.
set -euo pipefail
cd "$(dirname "$0")/.."
build=build store=both state=both secs=60 s3_port=7791 base_port=8700
while [ $# -gt 0 ]; do
  case "$1" in
  --build) build=$2; shift 2 ;;
  --store) store=$2; shift 2 ;;
  --state) state=$2; shift 2 ;;
  --seconds) secs=$2; shift 2 ;;
  --s3-port) s3_port=$2; shift 2 ;;
  --base-port) base_port=$2; shift 2 ;;
  -h | --help) sed -n '2,21p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
  *) echo "agent_rest.sh: unknown argument $1 (see -h)" >&2; exit 2 ;;
  esac
done
carlos=$(cd "$build" && pwd)/carlos
[ -x "$carlos" ] || { echo "agent_rest.sh: $carlos not found" >&2; exit 2; }
metrics_url="http://127.0.0.1:$((base_port + 201))/metrics"

# Sums carlos_store_requests_total lines matching $1 (a regex on the labels).
count() { curl -s "$metrics_url" | awk -v pat="$1" '/^carlos_store_requests_total\{/ && $0 ~ pat {s += $NF} END {printf "%d", s}'; }
snapshot() { echo "$(count '') $(count 'operation="get"') $(count 'outcome="not_modified"') $(count 'operation="put"') $(count 'operation="list"')"; }

run() {
  local kind=$1 st=$2 tmp extra=() pid
  tmp=$(mktemp -d /tmp/carlos-rest.XXXXXX)
  if [ "$kind" = s3 ]; then
    tests/harness/s3-server up "$tmp/s3" "$s3_port" >/dev/null || { rm -rf "$tmp"; return 1; }
    set -a; . "$tmp/s3/env"; set +a
    extra=(--s3 "rest-$$-$RANDOM")
  fi
  [ "$st" = joining ] && extra+=(--no-enroller)
  export CARLOS_JOIN_EVERY=15s CARLOS_JOIN_NUDGE_EVERY=1m CARLOS_HOSTING_REPORT_EVERY=30s CARLOS_DRAIN=1s
  "$carlos" dev region --boxes 1 --dir "$tmp/region" --table off --metrics --base-port "$base_port" \
    "${extra[@]}" >"$tmp/region.out" 2>&1 &
  pid=$!
  if [ "$st" = joining ]; then
    sleep 75
  else
    local waited=0
    until [ "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$((base_port + 1))/_carlos/lb")" = 200 ]; do
      sleep 0.5; waited=$((waited + 1))
      [ "$waited" -lt 600 ] || { echo "agent_rest.sh: the box did not host within 300 s" >&2; break; }
    done
    sleep 20
  fi
  local a b
  a=($(snapshot))
  sleep "$secs"
  b=($(snapshot))
  kill -INT "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
  local n=$((b[0] - a[0]))
  echo "rest $kind $st: $n requests in $secs s = $(awk -v n="$n" -v s="$secs" 'BEGIN{printf "%.1f", n*60/s}')/min (get $((b[1] - a[1])), of them not modified $((b[2] - a[2])); put $((b[3] - a[3])); list $((b[4] - a[4])))"
  if [ "$kind" = s3 ]; then tests/harness/s3-server down "$tmp/s3" >/dev/null 2>&1 || true; fi
  rm -rf "$tmp"
}

stores=$store; [ "$store" = both ] && stores="dir s3"
states=$state; [ "$state" = both ] && states="joining hosting"
for k in $stores; do for s in $states; do run "$k" "$s"; done; done
