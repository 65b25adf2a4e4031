#!/usr/bin/env bash
# A real Prometheus (Debian's prometheus package) scrapes a small region's
# agents and enroller on loopback (`carlos dev region --metrics`): promtool
# accepts each endpoint's text, and queries through Prometheus's HTTP API
# show box-1 joining and then hosting, and the enroller's decisions
# (docs/operator.md, "Metrics").
# Usage: prometheus_test.sh CARLOS_BIN [BASE_PORT]
set -euo pipefail
bin=$1
base=${2:-19400}
for tool in prometheus promtool curl python3; do
  command -v "$tool" >/dev/null || { echo "FAIL: $tool is missing: run scripts/deps.sh" >&2; exit 1; }
done
tmp=$(mktemp -d)
prom_pid="" region_pid=""
cleanup() {
  [ -n "$region_pid" ] && kill "$region_pid" 2>/dev/null && wait "$region_pid" 2>/dev/null || true
  [ -n "$prom_pid" ] && kill "$prom_pid" 2>/dev/null && wait "$prom_pid" 2>/dev/null || true
  rm -rf "$tmp"
}
trap cleanup EXIT
fail() {
  echo "FAIL: $*" >&2
  echo "--- region log" >&2; tail -n 40 "$tmp/region.out" >&2 || true
  echo "--- prometheus log" >&2; tail -n 20 "$tmp/prom.log" >&2 || true
  exit 1
}

enroller=127.0.0.1:$((base + 200))
box1=127.0.0.1:$((base + 201))
prom=127.0.0.1:$((base + 199))

cat >"$tmp/prometheus.yml" <<YML
global:
  scrape_interval: 100ms
  scrape_timeout: 100ms
scrape_configs:
  - job_name: carlos-agent
    static_configs:
      - targets: ['$box1']
        labels: {box: box-1}
  - job_name: carlos-enroller
    static_configs:
      - targets: ['$enroller']
YML
prometheus --config.file="$tmp/prometheus.yml" --storage.tsdb.path="$tmp/tsdb" \
  --web.listen-address="$prom" >"$tmp/prom.log" 2>&1 &
prom_pid=$!

# Prometheus scrapes from before the boxes start, every 100 ms, so it sees
# them joining (a joining agent on a dev region lives about a second).
for _ in $(seq 1 60); do
  curl -fsS "http://$prom/-/ready" >/dev/null 2>&1 && break
  sleep 0.5
done
curl -fsS "http://$prom/-/ready" >/dev/null || fail "prometheus did not become ready"
# Its scrape loops start only after target discovery (up to 5 s later):
# wait until it has tried both targets (down, since nothing listens yet).
tried() {
  curl -fsS "http://$prom/api/v1/targets" | python3 -c '
import json, sys
t = json.load(sys.stdin)["data"]["activeTargets"]
print("yes" if len(t) == 2 and all(x["health"] != "unknown" for x in t) else "no")'
}
for _ in $(seq 1 60); do
  [ "$(tried)" = "yes" ] && break
  sleep 0.5
done
[ "$(tried)" = "yes" ] || fail "prometheus did not start scraping its targets"

"$bin" dev region --boxes 1 --dir "$tmp/region" --base-port "$base" --table off --metrics \
  >"$tmp/region.out" 2>&1 &
region_pid=$!

query() {  # query PROMQL -> the first result's value, or "" when none
  curl -fsS --get "http://$prom/api/v1/query" --data-urlencode "query=$1" |
    python3 -c 'import json,sys; r=json.load(sys.stdin)["data"]["result"]; print(r[0]["value"][1] if r else "")'
}

# Box 1 hosts (its hosting agent's mode gauge, as Prometheus stored it).
hosting=""
for _ in $(seq 1 180); do
  hosting=$(query 'carlos_box_mode{job="carlos-agent",mode="hosting"} == 1' || true)
  [ "$hosting" = "1" ] && break
  sleep 0.5
done
[ "$hosting" = "1" ] || fail "prometheus never saw box-1 hosting"

# promtool accepts each endpoint's exposition.
curl -fsS "http://$box1/metrics" >"$tmp/agent.prom" || fail "GET $box1/metrics"
curl -fsS "http://$enroller/metrics" >"$tmp/enroller.prom" || fail "GET $enroller/metrics"
promtool check metrics <"$tmp/agent.prom" || fail "promtool rejects the agent's metrics"
promtool check metrics <"$tmp/enroller.prom" || fail "promtool rejects the enroller's metrics"

# The stage change joining -> hosting, as Prometheus recorded it: box-1 was
# joining (its joining agent was scraped) and is now hosting.
joined=$(query 'max_over_time(carlos_box_mode{job="carlos-agent",mode="joining"}[10m])')
[ "$joined" = "1" ] || { curl -sS --get "http://$prom/api/v1/query" --data-urlencode "query=carlos_box_mode{job=\"carlos-agent\"}[10m]" >&2; curl -sS "http://$prom/api/v1/targets" >&2; fail "prometheus has no sample of box-1 joining (got '$joined')"; }
stage=$(query 'carlos_box_stage{job="carlos-agent",stage="hosting"}')
[ "$stage" = "1" ] || fail "box-1's stage gauge is not hosting (got '$stage')"

# The enroller invited and enrolled box-1, and Prometheus has it.
invited=$(query 'max_over_time(carlos_enroll_decisions_total{kind="invited"}[10m])')
enrolled=$(query 'max_over_time(carlos_enroll_decisions_total{kind="enrolled"}[10m])')
[ "$invited" = "1" ] || fail "no invited decision in prometheus (got '$invited')"
[ "$enrolled" = "1" ] || fail "no enrolled decision in prometheus (got '$enrolled')"
reads=$(query 'sum(carlos_store_requests_total{job="carlos-enroller",operation="get",outcome="ok"})')
[ -n "$reads" ] && [ "$reads" != "0" ] || fail "no store reads counted at the enroller"
echo "PASS: prometheus saw box-1 joining then hosting; enroller invited=$invited enrolled=$enrolled"
