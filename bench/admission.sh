#!/usr/bin/env bash
# Admission time: a region of N boxes (`carlos dev region`) with the
# production timings (CARLOS_JOIN_EVERY=15s, which is also the enroller's
# --every; CARLOS_JOIN_NUDGE_EVERY=1m; CARLOS_HOSTING_REPORT_EVERY=30s;
# CARLOS_DRAIN=10s), from the region's start to every box hosting, on the
# directory store and on Ceph RGW (tests/harness/s3-server), with the time
# of each step per box, in seconds after the start:
#   recorded  the identity record's created_at        (control/boxes/<box>.json)
#   invited   the invitation's issued_at               (control/invitations/<box>.json)
#   armed     the guard's armed_at                     (<data dir>/hostguard/armed.json)
#   reported  when the guard-ready report was first seen (polled every 0.1 s)
#   enrolled  the enrollment's enrolled_at             (control/enrollments/<box>.json)
#   hosting   when its health check first answered 200 (polled every 0.1 s)
# The start is taken just before `carlos dev region` runs, so it includes
# the region's own setup (keys, the IMDS emulator: well under 0.5 s).
#
# Usage: bench/admission.sh [--boxes N] [--store dir|s3|both] [--build DIR]
#                           [--timeout SECONDS] [--s3-port PORT] [--base-port PORT]
#                           [--enroller-every DURATION]
# Defaults: 3 boxes, both stores, build/, 300 s, RGW on 7790, health ports
# from 8601, the enroller at the production 15s. --enroller-every 1s runs
# the enroller's passes every second instead (`carlos dev region
# --enroller-every`): the boxes' side alone, with an enroller that answers
# within about a second. Run as root (root's join writes the guard). Prints one table per
# store and a summary line "admission <store> <N> boxes: all hosting after
# <s> s (median box <s> s)".
set -euo pipefail
cd "$(dirname "$0")/.."
boxes=3 store=both build=build timeout=300 s3_port=7790 base_port=8600 enroller_every=
while [ $# -gt 0 ]; do
  case "$1" in
  --boxes) boxes=$2; shift 2 ;;
  --store) store=$2; shift 2 ;;
  --build) build=$2; shift 2 ;;
  --timeout) timeout=$2; shift 2 ;;
  --s3-port) s3_port=$2; shift 2 ;;
  --base-port) base_port=$2; shift 2 ;;
  --enroller-every) enroller_every=$2; shift 2 ;;
  -h | --help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;;
  *) echo "admission.sh: unknown argument $1 (see -h)" >&2; exit 2 ;;
  esac
done
carlos=$(cd "$build" && pwd)/carlos
[ -x "$carlos" ] || { echo "admission.sh: $carlos not found: build first (scripts/build.sh)" >&2; exit 2; }

now_ns() { date +%s%N; }
# Seconds from the start to an RFC 3339 time, with millisecond precision.
since() { [ -n "$1" ] && [ "$1" != null ] && echo "$(( ($(date -d "$1" +%s%N) - t0) / 1000000 ))" | awk '{printf "%.2f", $1/1000}' || echo "-"; }
ms_since() { awk -v a="$1" -v t="$t0" 'BEGIN{ if (a=="") print "-"; else printf "%.2f", (a-t)/1e9 }'; }

run_store() {
  local kind=$1 tmp region pid bucket=""
  tmp=$(mktemp -d /tmp/carlos-admission.XXXXXX)
  region=$tmp/region
  local extra=()
  if [ "$kind" = s3 ]; then
    tests/harness/s3-server up "$tmp/s3" "$s3_port" >/dev/null || { rm -rf "$tmp"; return 1; }
    set -a; . "$tmp/s3/env"; set +a
    bucket=admission-$$-$RANDOM
    extra=(--s3 "$bucket")
  else
    unset CARLOS_S3_ENDPOINT AWS_ACCESS_KEY_ID AWS_SECRET_ACCESS_KEY AWS_REGION || true
  fi
  export CARLOS_JOIN_EVERY=15s CARLOS_JOIN_NUDGE_EVERY=1m CARLOS_HOSTING_REPORT_EVERY=30s CARLOS_DRAIN=10s
  t0=$(now_ns)
  "$carlos" dev region --boxes "$boxes" --dir "$region" --table off --base-port "$base_port" ${enroller_every:+--enroller-every "$enroller_every"} \
    "${extra[@]}" >"$tmp/region.out" 2>&1 &
  pid=$!
  # The store's documents, read as the operator would (carlos store get).
  # On the directory store the files themselves: a poll of 50 boxes must
  # not take seconds.
  get() {
    if [ "$kind" = dir ]; then cat "$region/deployment/$1" 2>/dev/null || true; return; fi
    (set -a; . "$region/region.env"; set +a; "$carlos" store get "$1" 2>/dev/null) || true
  }
  declare -A reported=() hosting=()
  local polls=0 n_hosting=0 deadline=$(( t0 + timeout * 1000000000 ))
  while [ "$n_hosting" -lt "$boxes" ] && [ "$(now_ns)" -lt "$deadline" ]; do
    local args=() i
    for i in $(seq 1 "$boxes"); do args+=(-o /dev/null "http://127.0.0.1:$((base_port + i))/_carlos/lb"); done
    local codes t
    codes=$(curl -s -m 1 -w '%{http_code}\n' "${args[@]}" || true)
    t=$(now_ns)
    i=0
    while read -r code; do
      i=$((i + 1))
      if [ "$code" = 200 ] && [ -z "${hosting[box-$i]:-}" ]; then hosting[box-$i]=$t; n_hosting=$((n_hosting + 1)); fi
    done <<<"$codes"
    for i in $(seq 1 "$boxes"); do
      local b=box-$i
      # Only between armed and hosting: the report is looked for then.
      if [ -z "${reported[$b]:-}" ] && [ -z "${hosting[$b]:-}" ] && [ -e "$region/boxes/$b/hostguard/armed.json" ]; then
        if get "status/boxes/$b.json" | jq -e '.guard.armed == true' >/dev/null 2>&1; then reported[$b]=$(now_ns); fi
      fi
    done
    sleep 0.1
    polls=$((polls + 1))
  done
  local total_ns=$(( $(now_ns) - t0 ))
  local poll_every
  poll_every=$(awk -v n="$total_ns" -v p="$polls" 'BEGIN{printf "%.2f", n/1e9/(p ? p : 1)}')
  kill -INT "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
  echo "== $kind store, $boxes boxes, enroller every ${enroller_every:-15s} ($(date -u +%FT%TZ), $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)); reported and hosting polled every ${poll_every} s"
  printf '%-7s %9s %9s %9s %9s %9s %9s\n' box recorded invited armed reported enrolled hosting
  local hostings=()
  for i in $(seq 1 "$boxes"); do
    local b=box-$i rec inv arm enr
    rec=$(get "control/boxes/$b.json" | jq -r .created_at 2>/dev/null || true)
    inv=$(get "control/invitations/$b.json" | jq -r .issued_at 2>/dev/null || true)
    arm=$(jq -r .armed_at "$region/boxes/$b/hostguard/armed.json" 2>/dev/null || true)
    enr=$(get "control/enrollments/$b.json" | jq -r .enrolled_at 2>/dev/null || true)
    printf '%-7s %9s %9s %9s %9s %9s %9s\n' "$b" "$(since "$rec")" "$(since "$inv")" "$(since "$arm")" \
      "$(ms_since "${reported[$b]:-}")" "$(since "$enr")" "$(ms_since "${hosting[$b]:-}")"
    [ -n "${hosting[$b]:-}" ] && hostings+=("$(ms_since "${hosting[$b]}")")
  done
  local median last
  median=$(printf '%s\n' "${hostings[@]:-}" | sort -n | awk '{a[NR]=$1} END{ if (NR) print a[int((NR+1)/2)]; else print "-" }')
  if [ "$n_hosting" -eq "$boxes" ]; then
    last=$(printf '%s\n' "${hostings[@]}" | sort -n | tail -1)
    echo "admission $kind $boxes boxes (enroller every ${enroller_every:-15s}): all hosting after $last s (median box $median s)"
  else
    echo "admission $kind $boxes boxes (enroller every ${enroller_every:-15s}): only $n_hosting hosting after $(awk -v n="$total_ns" 'BEGIN{printf "%.1f", n/1e9}') s (timeout)"
  fi
  if [ "$kind" = s3 ]; then tests/harness/s3-server down "$tmp/s3" >/dev/null 2>&1 || true; fi
  rm -rf "$tmp"
}

case "$store" in
dir | s3) run_store "$store" ;;
both) run_store dir; run_store s3 ;;
*) echo "admission.sh: --store is dir, s3 or both" >&2; exit 2 ;;
esac
