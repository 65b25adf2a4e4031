#!/usr/bin/env bash
# The fault soak (docs/protocol.md, "The fault soak"): runs a real region (`carlos dev
# region`: N agents, root's joins, an enroller) plus a second enroller, on
# the directory store or on Ceph RGW behind the fault proxy, injects faults
# at random moments from a seed, and checks from outside, sharing no code
# with the product's decisions, that no box answers 200 without an
# enrollment bound to its identity record, an armed guard for it and no
# retirement; and, once the faults stop, that every box that should host
# hosts within a bound.
#
# Usage: tests/soak/soak.sh [--store dir|s3|both] [--runs N] [--seed S]
#                           [--faults-for SECONDS] [--work DIR] [--keep]
#   --runs N          runs (default 3); run r uses seed S+r-1 (--seed, default:
#                     from the time); with --store both, runs alternate stores
#   --faults-for SEC  how long each run injects faults (default 20)
#   --skews LIST      the second enroller's clock offsets, in seconds, one
#                     drawn per run (default -240,-90,0,0,90,240; libfaketime)
#   --self-test       checks the checker: it is given another enrollment key,
#                     so every box that hosts must be reported (exit 1)
#   --work DIR        where runs keep their regions and logs (default
#                     build/soak); a passing run's directory is removed unless --keep
# Replay a failing run: --runs 1 --seed <its seed> --store <its store>.
# Environment: CARLOS_BIN (default build/carlos), CARLOS_SOAK_PROXY (default
# build/tests/soak/soak_fault_proxy), CARLOS_S3_ENV_FILE (an s3-server env
# file; without it --store s3 starts its own RGW under the work dir).
# Exit: 0 no violation and every box hosted in time; 1 a violation or a box
# that did not host (the seeds are printed); 2 usage or set-up error.
set -uo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
store=dir
runs=3
seed0=$(( $(date +%s) % 100000 ))
faults_for=20
work="$root/build/soak"
keep=0
self_test=0
skews="-240,-90,0,0,90,240"
while [ $# -gt 0 ]; do
  case "$1" in
    --store) store="$2"; shift 2 ;;
    --runs) runs="$2"; shift 2 ;;
    --seed) seed0="$2"; shift 2 ;;
    --faults-for) faults_for="$2"; shift 2 ;;
    --work) work="$2"; shift 2 ;;
    --keep) keep=1; shift ;;
    --self-test) self_test=1; shift ;;
    --skews) skews="$2"; shift 2 ;;
    -h|--help) sed -n '2,28p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "soak: unknown argument $1 (see --help)" >&2; exit 2 ;;
  esac
done
case "$store" in dir|s3|both) ;; *) echo "soak: --store is dir, s3 or both" >&2; exit 2 ;; esac
bin="${CARLOS_BIN:-$root/build/carlos}"
proxy_bin="${CARLOS_SOAK_PROXY:-$root/build/tests/soak/soak_fault_proxy}"
for t in "$bin" "$proxy_bin"; do
  [ -x "$t" ] || { echo "soak: $t is missing: build first (scripts/build.sh)" >&2; exit 2; }
done
[ -f /usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1 ] ||
  { echo "soak: libfaketime is missing (the faketime package: scripts/deps.sh)" >&2; exit 2; }
for t in curl jq sha256sum; do
  command -v "$t" >/dev/null || { echo "soak: $t is missing (scripts/deps.sh)" >&2; exit 2; }
done
[ "$(id -u)" -eq 0 ] || { echo "soak: run as root: carlos system join writes the root-owned guard" >&2; exit 2; }
mkdir -p "$work"
work="$(cd "$work" && pwd)"

# Bounds (docs/protocol.md, "The fault soak"): a box acts on a retirement or
# a changed guard at its next check (CARLOS_JOIN_EVERY, 200ms in the
# region); a store request may take up to the S3 store's deadline (20 s) to
# fail, and while the store cannot be read a hosting box keeps hosting
# (docs/agent.md, "Hosting"). Every box that should host does within
# HOST_BOUND after the faults stop.
GRACE_MS=2000
STORE_GRACE_MS=25000
HOST_BOUND_S=60

# ---------------------------------------------------------------- S3 server
s3_env="${CARLOS_S3_ENV_FILE:-}"
own_s3=""
s3_up() {
  if [ -n "$s3_env" ] && [ -f "$s3_env" ]; then return 0; fi
  own_s3="$work/s3-server"
  "$root/tests/harness/s3-server" up "$own_s3" "${CARLOS_SOAK_S3_PORT:-7680}" >"$work/s3-server.log" 2>&1 ||
    { echo "soak: the S3 server did not start: $work/s3-server.log" >&2; exit 2; }
  s3_env="$own_s3/env"
}
cleanup_all() {
  [ -n "$own_s3" ] && "$root/tests/harness/s3-server" down "$own_s3" >/dev/null 2>&1
}
trap cleanup_all EXIT

now_ms() { date +%s%3N; }

# -------------------------------------------------------------- the checker
# Reads a store key into a file: 0 present, 1 absent, 2 could not read.
get_key() {  # key out
  if [ "$run_store" = dir ]; then
    [ -f "$rdir/deployment/$1" ] || return 1
    cp "$rdir/deployment/$1" "$2" 2>/dev/null || return 2
    return 0
  fi
  local code
  code=$(curl -s -o "$2" -w '%{http_code}' --max-time 5 \
    --aws-sigv4 "aws:amz:${AWS_REGION}:s3" --user "${AWS_ACCESS_KEY_ID}:${AWS_SECRET_ACCESS_KEY}" \
    "${s3_direct}/${bucket}/$1") || return 2
  case "$code" in 200) return 0 ;; 404) return 1 ;; *) return 2 ;; esac
}
digest() { echo "sha256:$(sha256sum "$1" | cut -d' ' -f1)"; }
field() { jq -r "$1 // empty" "$2" 2>/dev/null; }

# Why box $1 may not host now, or nothing: "enrollment: ..." (never
# excusable), "guard: ..." or "retired: ..." (excusable for one check).
why_not() {
  local b="$1" t="$cdir/$1" rd gd
  get_key "control/boxes/$b.json" "$t.rec"; case $? in 1) echo "enrollment: no identity record"; return ;; 2) echo "store"; return ;; esac
  rd=$(digest "$t.rec")
  get_key "control/enrollments/$b.json" "$t.enr"; case $? in 1) echo "enrollment: none"; return ;; 2) echo "store"; return ;; esac
  [ "$(field .format "$t.enr")" = carlos.enrollment/v1 ] || { echo "enrollment: not an enrollment"; return; }
  [ "$(field .box "$t.enr")" = "$b" ] || { echo "enrollment: names another box"; return; }
  [ "$(field .signer "$t.enr")" = "$pubkey" ] || { echo "enrollment: not signed by the enrollment key"; return; }
  [ -n "$(field .signature "$t.enr")" ] || { echo "enrollment: unsigned"; return; }
  [ "$(field .record_digest "$t.enr")" = "$rd" ] || { echo "enrollment: bound to another record"; return; }
  local g="$rdir/boxes/$b/hostguard"
  [ -f "$g/guard.json" ] && [ -f "$g/armed.json" ] || { echo "guard: not installed or not armed"; return; }
  cp "$g/guard.json" "$t.guard" 2>/dev/null; cp "$g/armed.json" "$t.armed" 2>/dev/null
  gd=$(digest "$t.guard")
  [ "$(field .guard_digest "$t.armed")" = "$gd" ] || { echo "guard: armed for another guard"; return; }
  [ "$(field .record_digest "$t.guard")" = "$rd" ] || { echo "guard: bound to another record"; return; }
  [ "$(field .guard_digest "$t.enr")" = "$gd" ] || { echo "guard: the enrollment binds another guard"; return; }
  get_key "control/retired/$b.json" "$t.ret"
  case $? in
    0) if [ "$(field .record_digest "$t.ret")" = "$rd" ] && [ "$(field .signer "$t.ret")" = "$pubkey" ]; then
         echo "retired: $(field .retired_at "$t.ret")"; return
       fi ;;
    2) echo "store"; return ;;
  esac
}

# Polls every box until $rdir/stop-checker exists; writes "VIOLATION ..."
# lines to $rdir/violations and each box's health to $cdir/<box>.code.
checker() {
  declare -A bad_since
  while [ ! -e "$rdir/stop-checker" ]; do
    local b code why t
    for ((i = 1; i <= boxes; i++)); do
      b="box-$i"
      code=$(curl -s -o /dev/null -w '%{http_code}' --max-time 1 "http://127.0.0.1:$((base + i))/_carlos/lb")
      echo "$code" >"$cdir/$b.code"
      if [ "$code" != 200 ]; then unset "bad_since[$b]"; continue; fi
      why=$(why_not "$b")
      [ -z "$why" ] && { unset "bad_since[$b]"; continue; }
      [ "$why" = store ] && continue
      t=$(now_ms)
      case "$why" in
        enrollment:*) echo "VIOLATION $(date -u +%T.%3N) $b answers 200: $why" >>"$rdir/violations" ;;
        *)
          [ -n "${bad_since[$b]:-}" ] || bad_since[$b]=$t
          local fault_end; fault_end=$(cat "$rdir/store-fault-end" 2>/dev/null || echo 0)
          local allowed=$GRACE_MS
          [ $((t - fault_end)) -lt "$STORE_GRACE_MS" ] && allowed=$((STORE_GRACE_MS))
          local since=${bad_since[$b]}
          if [ $((t - since)) -gt "$allowed" ]; then
            echo "VIOLATION $(date -u +%T.%3N) $b answers 200 for $((t - since)) ms: $why" >>"$rdir/violations"
            bad_since[$b]=$t
          fi ;;
      esac
    done
    sleep 0.05
  done
}

# ------------------------------------------------------------------ faults
declare -A total
count() { total[$1]=$(( ${total[$1]:-0} + 1 )); run_faults="$run_faults $1"; }
rnd() { R=$(( RANDOM % $1 )); }  # R = 0..$1-1 from the run's seed (no subshell: RANDOM advances)

kill_pidfile() {  # file kind
  local p; p=$(cat "$1" 2>/dev/null) || return
  [ -n "$p" ] && kill -0 "$p" 2>/dev/null && kill -9 "$p" 2>/dev/null && count "$2"
}
# root's join runs for milliseconds: watch the region's children for one
# and kill it (by its pid: only processes this run started).
kill_join() {
  local deadline=$(( $(now_ms) + 3000 )) c t tasks args
  while [ "$(now_ms)" -lt $deadline ]; do
    for t in /proc/"$region_pid"/task/*/children; do
      mapfile -d ' ' tasks <"$t" 2>/dev/null || continue
      for c in "${tasks[@]}"; do
        c=${c// /}
        mapfile -d '' args <"/proc/$c/cmdline" 2>/dev/null || continue
        if [ "${args[1]:-}" = system ] && [ "${args[2]:-}" = join ]; then
          kill -9 "$c" 2>/dev/null && { count kill-join; return; }
        fi
      done
    done
  done
}
store_fault() {  # s3 only: a fault for 0.5-3 s
  local kinds=(500 503 409 lost500 reset hang) k
  rnd ${#kinds[@]}; k=${kinds[$R]}
  echo "$k" >"$rdir/proxy.control.tmp" && mv "$rdir/proxy.control.tmp" "$rdir/proxy.control"
  count "store-$k"
  rnd 2500; local ms=$((500 + R))
  sleep "$(printf '%d.%03d' $((ms / 1000)) $((ms % 1000)))"
  echo none >"$rdir/proxy.control.tmp" && mv "$rdir/proxy.control.tmp" "$rdir/proxy.control"
  now_ms >"$rdir/store-fault-end"
}
# IMDS failing for 0.5-3 s, every box's at once: the region's emulator reads
# the control file (docs/region.md, "IMDS faults").
imds_fault() {
  local kinds=(500 hang refuse) k
  rnd ${#kinds[@]}; k=${kinds[$R]}
  rnd 2500; local ms=$((500 + R))
  echo "$k $ms" >"$rdir/imds/fault.tmp" && mv "$rdir/imds/fault.tmp" "$rdir/imds/fault"
  count "imds-$k"
}
# The second enroller runs with its clock $skew seconds off the boxes'
# (libfaketime: the real binary, every clock it reads shifted). Preloaded
# through env, which execs the enroller itself: the pid recorded is the
# enroller's (the faketime wrapper forks, and killing it would leave the
# enroller running).
libfaketime=/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1
second_enroller() {  # restarted 1 s after it exits, until the run ends
  local ft=()
  [ "$skew" != 0 ] && ft=(env LD_PRELOAD="$libfaketime" FAKETIME="$(printf '%+ds' "$skew")"
                          FAKETIME_DONT_FAKE_MONOTONIC=1)
  while [ ! -e "$rdir/stop-checker" ]; do
    (set -a; . "$rdir/region.env"; set +a
     export CARLOS_INVITATION_LIFETIME="$lifetime"
     exec "${ft[@]}" "$bin" boxes auto-enroll --watch --every 1s) >>"$rdir/logs/enroller2.log" 2>&1 &
    echo $! >"$rdir/enroller2.pid"
    wait $! 2>/dev/null
    sleep 1
  done
}

# -------------------------------------------------------------------- a run
fail_seeds=()
viol_total=0
stuck_total=0
run_one() {  # seed store
  local seed="$1"
  run_store="$2"
  RANDOM=$seed
  rnd 3; boxes=$((3 + R))
  base=$((9000 + (seed % 40) * 200))
  rnd 8; lifetime="$((2 + R))s"   # both enrollers' invitations expire within seconds
  rdir="$work/$run_store-$seed"
  cdir="$rdir/checker"
  rm -rf "$rdir"; mkdir -p "$cdir"
  run_faults=""
  local skew_list; IFS=, read -r -a skew_list <<<"$skews"
  rnd ${#skew_list[@]}; skew=${skew_list[$R]}
  [ "$skew" != 0 ] && count "skew$(printf "%+d" "$skew")s"
  local region_env=(env CARLOS_INVITATION_LIFETIME="$lifetime")
  if [ "$run_store" = s3 ]; then
    s3_up
    set -a; . "$s3_env"; set +a
    s3_direct="$CARLOS_S3_ENDPOINT"
    bucket="soak-$seed-$$"
    echo none >"$rdir/proxy.control"
    "$proxy_bin" "${s3_direct##*:}" "$rdir/proxy.control" "$rdir/proxy.port" 2>>"$rdir/proxy.log" &
    proxy_pid=$!
    for _ in $(seq 50); do [ -s "$rdir/proxy.port" ] && break; sleep 0.1; done
    region_env+=(CARLOS_S3_ENDPOINT="http://127.0.0.1:$(cat "$rdir/proxy.port")")
  fi
  local args=(dev region --boxes "$boxes" --dir "$rdir" --base-port "$base" --table off)
  [ "$run_store" = s3 ] && args+=(--s3 "$bucket")
  setsid "${region_env[@]}" "$bin" "${args[@]}" >"$rdir/region.out" 2>&1 &
  region_pid=$!
  for _ in $(seq 100); do [ -f "$rdir/region.env" ] && [ -f "$rdir/enrollment.pub" ] && break; sleep 0.1; done
  if [ ! -f "$rdir/region.env" ]; then
    echo "soak: seed $seed: the region did not start: $rdir/region.out" >&2
    kill -TERM -- -"$region_pid" 2>/dev/null; [ -n "${proxy_pid:-}" ] && kill "$proxy_pid" 2>/dev/null
    return 2
  fi
  pubkey=$(tr -d ' \n' <"$rdir/enrollment.pub")
  if [ $self_test = 1 ]; then
    # The checker is told another enrollment key: every box that hosts is
    # then hosting without a valid enrollment, and must be reported.
    pubkey="ed25519:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA="
  fi
  checker &
  local checker_pid=$!
  second_enroller &
  local enroller2_loop=$!

  # Faults at random moments for faults_for seconds.
  local retired="" until=$(( $(now_ms) + faults_for * 1000 ))
  kill_join   # the boxes are joining now: root's join runs in these seconds
  while [ "$(now_ms)" -lt $until ]; do
    rnd 900; sleep "0.$((100 + R))"
    rnd 100; local k=$R
    if [ $k -lt 25 ]; then
      rnd "$boxes"; kill_pidfile "$rdir/run/box-$((1 + R)).agent.pid" kill-agent
    elif [ $k -lt 40 ]; then
      kill_join
    elif [ $k -lt 50 ]; then
      rnd 2
      if [ $R = 0 ]; then kill_pidfile "$rdir/run/enroller.pid" kill-enroller
      else kill_pidfile "$rdir/enroller2.pid" kill-enroller; fi
    elif [ $k -lt 53 ] && [ -z "$retired" ]; then
      rnd "$boxes"; retired="box-$((1 + R))"
      (set -a; . "$rdir/region.env"; set +a; "$bin" boxes retire "$retired" --reason "soak seed $seed") \
        >>"$rdir/logs/retire.log" 2>&1 && count retire
    elif [ $k -lt 80 ] && [ "$run_store" = s3 ]; then
      store_fault
    elif [ $k -ge 80 ] && [ $k -lt 90 ]; then
      imds_fault
    fi
  done
  # The faults have stopped: every box that is not retired hosts in time.
  local deadline=$(( $(now_ms) + HOST_BOUND_S * 1000 )) all=0 started=$(now_ms)
  while [ "$(now_ms)" -lt $deadline ]; do
    all=1
    for ((i = 1; i <= boxes; i++)); do
      [ "box-$i" = "$retired" ] && continue
      [ "$(cat "$cdir/box-$i.code" 2>/dev/null)" = 200 ] || { all=0; break; }
    done
    [ $all = 1 ] && break
    sleep 0.2
  done
  local settle=$(( $(now_ms) - started ))
  # The retired box must not host (checked by the checker) and must be down.
  sleep 1
  touch "$rdir/stop-checker"
  wait "$checker_pid" 2>/dev/null
  kill -TERM -- -"$region_pid" 2>/dev/null; wait "$region_pid" 2>/dev/null
  kill "$(cat "$rdir/enroller2.pid" 2>/dev/null)" 2>/dev/null; wait "$enroller2_loop" 2>/dev/null
  [ -n "${proxy_pid:-}" ] && { kill "$proxy_pid" 2>/dev/null; wait "$proxy_pid" 2>/dev/null; proxy_pid=""; }

  local v=0 stuck=""
  [ -f "$rdir/violations" ] && v=$(wc -l <"$rdir/violations")
  if [ $all != 1 ]; then
    for ((i = 1; i <= boxes; i++)); do
      [ "box-$i" = "$retired" ] && continue
      local c; c=$(cat "$cdir/box-$i.code" 2>/dev/null)
      [ "$c" = 200 ] || stuck="$stuck box-$i($(tail -n1 "$rdir/logs/box-$i.agent.log" 2>/dev/null | cut -c1-160))"
    done
  fi
  local summary; summary=$(echo "$run_faults" | tr ' ' '\n' | grep -v '^$' | sort | uniq -c | awk '{printf "%s=%s ", $2, $1}')
  printf 'run seed=%s store=%s boxes=%s lifetime=%s skew=%ss retired=%s faults: %s| violations=%s hosted-after=%sms%s\n' \
    "$seed" "$run_store" "$boxes" "$lifetime" "$skew" "${retired:-none}" "$summary" "$v" "$settle" \
    "${stuck:+ NOT HOSTING:$stuck}"
  [ "$v" -gt 0 ] && sed 's/^/  /' "$rdir/violations"
  viol_total=$((viol_total + v))
  if [ "$v" -gt 0 ] || [ -n "$stuck" ]; then
    [ -n "$stuck" ] && stuck_total=$((stuck_total + 1))
    fail_seeds+=("$seed/$run_store")
  elif [ $keep = 0 ]; then
    rm -rf "$rdir"
  fi
  return 0
}

start=$(date +%s)
for ((r = 0; r < runs; r++)); do
  s=$((seed0 + r))
  st=$store
  [ "$store" = both ] && { [ $((r % 2)) = 0 ] && st=dir || st=s3; }
  run_one "$s" "$st" || exit 2
done
echo "soak: $runs runs in $(( $(date +%s) - start ))s (store $store, seeds $seed0..$((seed0 + runs - 1)))"
printf 'soak: faults injected:'; for k in $(printf '%s\n' "${!total[@]}" | sort); do printf ' %s=%s' "$k" "${total[$k]}"; done; echo
echo "soak: violations: $viol_total; runs where a box did not host within ${HOST_BOUND_S}s of the faults stopping: $stuck_total"
if [ ${#fail_seeds[@]} -gt 0 ]; then
  echo "soak: FAILED seeds (replay: tests/soak/soak.sh --runs 1 --seed SEED --store STORE --keep): ${fail_seeds[*]}"
  exit 1
fi
exit 0
