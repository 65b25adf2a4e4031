#!/usr/bin/env bash
# The system test: the project's Debian package on real boxes, under real
# systemd (PID 1 in systemd-nspawn containers), through the whole lifecycle
# docs/operator.md describes, against a real Ceph RGW, the enroller and
# HAProxy. Every step the operator's guide gives is done here as written
# there; every check prints its value, every lifecycle step its time.
#
#   sudo tests/system/run.sh [BUILD_DIR]        (default BUILD_DIR: ./build)
#
# What it makes (test-made only; nothing else on the network is touched):
#   - a bookworm rootfs (mmdebstrap: systemd + the package's Depends), cached
#     in $CARLOS_SYSTEM_CACHE (default /var/tmp/carlos-system) under a hash
#     of its package list, so it is rebuilt only when that list changes;
#   - the .deb (cpack -G DEB in BUILD_DIR);
#   - network namespace "<pfx>-hub" with bridge br0 (10.231.79.1/24), one
#     namespace per box (box<i> = 10.231.79.1<i>) veth'd to the bridge;
#   - in the hub namespace: Ceph RGW (tests/harness/s3-server, answering on
#     10.231.79.1:7480), the IMDS emulator (`carlos dev imds`, box i on
#     10.231.79.1:810<i>), the enroller (`carlos boxes auto-enroll --watch`)
#     and HAProxy checking each box's /_carlos/lb on :80;
#   - three box containers (overlays over the rootfs), booted with systemd.
#
# Why the IMDS emulator rather than CARLOS_IMDS_ENDPOINT=off: with it each box
# is attested (a signed instance identity document, its own instance id), so
# the enroller verifies the document against the emulator's certificate and
# `carlos system join` binds the guard to the instance and checks the
# region: the path a box on EC2 takes. "off" would skip all of that.
#
# The last line is "N passed, M failed"; the exit status is 0 only when
# nothing failed. Environment: CARLOS_SYSTEM_CACHE (above), KEEP_RUN=1 keeps
# the run directory (logs, overlays), REBUILD_ROOTFS=1.
set -uo pipefail

SRC=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=$(cd "${1:-$SRC/build}" 2>/dev/null && pwd) || { echo "no build directory ${1:-$SRC/build}; run scripts/build.sh" >&2; exit 2; }
CACHE=${CARLOS_SYSTEM_CACHE:-/var/tmp/carlos-system}
RUN=$CACHE/run.$$
KEEP_RUN=${KEEP_RUN:-0}
REBUILD_ROOTFS=${REBUILD_ROOTFS:-0}
NBOX=3
PFX=cst$$                   # netns and cgroup names of this run
NET=10.231.79               # configured only inside this run's namespaces
HUB=$PFX-hub
S3_PORT=7480
IMDS_BASE=8101              # box i's IMDS emulator port is IMDS_BASE + i - 1
BUCKET=carlos-system
CARLOS=$BUILD/carlos

T_START=$EPOCHREALTIME
PASS=0
FAIL=0
declare -A NSPID LEADER TBOOT

since() { awk -v a="$1" -v b="$EPOCHREALTIME" 'BEGIN{printf "%.2f", b-a}'; }
log() { printf '[%7ss] %s\n' "$(since "$T_START")" "$*"; }
die() {
  log "FATAL: $*"
  FAIL=$((FAIL + 1))
  exit 1
}
ok() {
  PASS=$((PASS + 1))
  log "PASS: $*"
}
bad() {
  FAIL=$((FAIL + 1))
  log "FAIL: $*"
}
# check WHAT CMD...: passes when CMD succeeds.
check() {
  local what=$1
  shift
  if "$@" >/dev/null 2>&1; then ok "$what"; else bad "$what"; fi
}
# expect WHAT GOT WANT: passes when the value is the right one; prints both.
expect() {
  if [ "$2" = "$3" ]; then ok "$1: $2"; else bad "$1: got '$2', want '$3'"; fi
}
# waitfor SECONDS CMD...: polls CMD every 0.1 s.
waitfor() {
  local end
  end=$(awk -v t="$1" -v n="$EPOCHREALTIME" 'BEGIN{printf "%.6f", n+t}')
  shift
  while :; do
    "$@" >/dev/null 2>&1 && return 0
    awk -v e="$end" -v n="$EPOCHREALTIME" 'BEGIN{exit !(n>e)}' && return 1
    sleep 0.1
  done
}
# cx BOX CMD...: runs CMD inside the box (all its namespaces, its own binaries).
cx() {
  local n=$1
  shift
  nsenter -t "${LEADER[$n]}" -a \
    env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8 TERM=dumb SYSTEMD_COLORS=0 "$@"
}
hub() { ip netns exec "$HUB" "$@"; }

[ "$(id -u)" = 0 ] || die "must run as root (it boots containers and makes network namespaces)"
for cmd in systemd-nspawn mmdebstrap nsenter ip haproxy cpack dpkg-deb curl; do
  command -v "$cmd" >/dev/null || die "$cmd is missing; run scripts/deps.sh"
done
[ -x "$CARLOS" ] || die "$CARLOS is missing; run scripts/build.sh"
mkdir -p "$CACHE" "$RUN"

# ------------------------------------------------------------ cleanup (always)
MEMROOT=/sys/fs/cgroup/memory$(awk -F: '$2=="memory"{print $3}' /proc/self/cgroup)
HUB_PIDS=()
cleanup() {
  set +e
  local n p
  # Every box powers off at once (one SIGTERM each; a second would kill it).
  for n in "${!NSPID[@]}"; do kill -TERM "${NSPID[$n]}" 2>/dev/null; done
  for n in "${!NSPID[@]}"; do stop_box "$n" quiet nosignal; done
  # The enroller and the IMDS emulator first, while the store still answers.
  for p in "${HUB_PIDS[@]}"; do kill -TERM "$p" 2>/dev/null; done
  for p in "${HUB_PIDS[@]}"; do
    waitfor 5 sh -c "! kill -0 $p 2>/dev/null" || {
      log "pid $p ($(tr '\0' ' ' </proc/$p/cmdline | cut -c1-60)) did not end 5 s after SIGTERM; SIGKILL"
      kill -KILL "$p" 2>/dev/null
    }
    wait "$p" 2>/dev/null
  done
  [ -f "$RUN/haproxy.pid" ] && kill -TERM "$(cat "$RUN/haproxy.pid")" 2>/dev/null
  [ -d "$RUN/s3" ] && "$SRC/tests/harness/s3-server" down "$RUN/s3" >/dev/null 2>&1
  for i in $(seq 1 "$NBOX"); do
    n=box$i
    mountpoint -q "$RUN/$n/root" && umount "$RUN/$n/root"
    ip netns del "$PFX-$n" 2>/dev/null
  done
  ip netns del "$HUB" 2>/dev/null
  for h in systemd unified; do
    [ -d "/sys/fs/cgroup/$h/$PFX" ] && find "/sys/fs/cgroup/$h/$PFX" -depth -type d -exec rmdir {} \; 2>/dev/null
  done
  [ -d "$MEMROOT/$PFX" ] && find "$MEMROOT/$PFX" -depth -type d -exec rmdir {} \; 2>/dev/null
  if [ "$KEEP_RUN" = 1 ]; then log "kept $RUN"; else rm -rf --one-file-system "$RUN"; fi
  log "total $(since "$T_START")s"
  echo "$PASS passed, $FAIL failed"
  [ "$FAIL" = 0 ]
}
trap 'cleanup; exit $?' EXIT
trap 'exit 130' INT TERM

# ------------------------------------------------------------ 1. the package
t=$EPOCHREALTIME
(cd "$BUILD" && cmake --build . --target carlos >/dev/null && cpack -G DEB >"$RUN/cpack.log" 2>&1) ||
  {
    tail -20 "$RUN/cpack.log"
    die "cpack -G DEB failed"
  }
DEB=$(ls -t "$BUILD"/carlos_*.deb | head -1)
log "built $(basename "$DEB") in $(since "$t")s"

# ------------------------------------------------------------ 2. the rootfs (cached by package list)
# The box's packages: systemd as PID 1, and the .deb's Depends (without
# versions; bookworm's are the ones the package was built against).
deps=$(dpkg-deb -f "$DEB" Depends | tr ',' '\n' | sed 's/(.*)//; s/|.*//; s/ //g' | grep -v '^$')
PKGS=$(printf '%s\n' systemd systemd-sysv dbus $deps | sort -u | paste -sd, -)
# The recipe's options are part of the key: a change to them rebuilds too.
MMDEBSTRAP_OPTS=(--variant=minbase
  --dpkgopt='path-exclude=/usr/share/man/*' --dpkgopt='path-include=/usr/share/man/man1/carlos.1.gz'
  --dpkgopt='path-exclude=/usr/share/locale/*'
  --dpkgopt='path-exclude=/usr/share/doc/*' --dpkgopt='path-include=/usr/share/doc/carlos/*'
  --customize-hook='rm -f "$1/etc/hostname"; : > "$1/etc/machine-id"; mkdir -p "$1/usr/share/man/man1"')
KEY=$(printf '%s\n' bookworm "$PKGS" "${MMDEBSTRAP_OPTS[@]}" | sha256sum | cut -c1-16)
ROOTFS=$CACHE/rootfs-$KEY
# One builder at a time (two clones on one machine share the cache).
exec 9>"$CACHE/rootfs.lock"
flock 9
if [ "$REBUILD_ROOTFS" = 1 ] || [ ! -x "$ROOTFS/usr/lib/systemd/systemd" ]; then
  t=$EPOCHREALTIME
  log "building rootfs $ROOTFS (bookworm minbase + $PKGS)"
  rm -rf "$ROOTFS.new"
  mmdebstrap --quiet "${MMDEBSTRAP_OPTS[@]}" --include="$PKGS" bookworm "$ROOTFS.new" >"$RUN/mmdebstrap.log" 2>&1 ||
    {
      tail -20 "$RUN/mmdebstrap.log"
      die "mmdebstrap failed"
    }
  rm -rf "$ROOTFS"
  mv "$ROOTFS.new" "$ROOTFS"
  # Older rootfs (another package list) go, unless a run still boots from one.
  for old in "$CACHE"/rootfs-*; do
    [ "$old" = "$ROOTFS" ] || grep -q "lowerdir=$old[,:]" /proc/mounts || rm -rf --one-file-system "$old"
  done
  log "rootfs built in $(since "$t")s ($(du -sh "$ROOTFS" | cut -f1))"
else
  log "reusing rootfs $ROOTFS ($(du -sh "$ROOTFS" | cut -f1)); REBUILD_ROOTFS=1 rebuilds it"
fi
exec 9>&-

# ------------------------------------------------------------ 3. the network
t=$EPOCHREALTIME
ip netns add "$HUB" || die "ip netns add $HUB"
ip -n "$HUB" link add br0 type bridge
ip -n "$HUB" link set lo up
ip -n "$HUB" addr add "$NET.1/24" dev br0
ip -n "$HUB" link set br0 up
for i in $(seq 1 "$NBOX"); do
  n=box$i
  ns=$PFX-$n
  ip netns add "$ns"
  ip -n "$HUB" link add "v-$n" type veth peer name eth0 netns "$ns"
  ip -n "$HUB" link set "v-$n" master br0 up
  ip -n "$ns" link set lo up
  ip -n "$ns" addr add "$NET.1$i/24" dev eth0
  ip -n "$ns" link set eth0 up
done
log "network: $HUB with br0 $NET.1/24, boxes $NET.11-1$NBOX, in $(since "$t")s"

# ------------------------------------------------------------ 4. the deployment: Ceph RGW, IMDS, enroller, HAProxy
t=$EPOCHREALTIME
hub "$SRC/tests/harness/s3-server" up "$RUN/s3" "$S3_PORT" "$NET.1" >"$RUN/s3-up.log" 2>&1 ||
  {
    cat "$RUN/s3-up.log"
    die "Ceph RGW did not start"
  }
empty_sha=e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855
code=$(hub curl -s -o /dev/null -w '%{http_code}' -X PUT --aws-sigv4 "aws:amz:us-east-1:s3" \
  -u TESTKEY:TESTSECRET -H "x-amz-content-sha256: $empty_sha" "http://$NET.1:$S3_PORT/$BUCKET")
expect "Ceph RGW on the bridge ($NET.1:$S3_PORT) made bucket $BUCKET (HTTP)" "$code" 200
log "Ceph RGW up in $(since "$t")s"

STORE_ENV=(CARLOS_DEPLOYMENT_BUCKET=$BUCKET CARLOS_S3_ENDPOINT=http://$NET.1:$S3_PORT
  AWS_REGION=us-east-1 AWS_ACCESS_KEY_ID=TESTKEY AWS_SECRET_ACCESS_KEY=TESTSECRET)
PUBKEY=$("$CARLOS" boxes keygen --out "$RUN/enrollment.key" 2>/dev/null) || die "carlos boxes keygen"
# Started with ip netns exec directly (not through the hub function), so $!
# is the process itself (ip execs it) and cleanup can end it by its pid.
ip netns exec "$HUB" "$CARLOS" dev imds --boxes "$NBOX" --host "$NET.1" --base-port "$IMDS_BASE" --region us-east-1 \
  --cert "$RUN/imds-cert.pem" --key "$RUN/imds-key.pem" >"$RUN/imds.log" 2>&1 &
HUB_PIDS+=($!)
waitfor 10 grep -q "box $((NBOX - 1)):" "$RUN/imds.log" || die "IMDS emulator: $(cat "$RUN/imds.log")"
ip netns exec "$HUB" env "${STORE_ENV[@]}" CARLOS_ENROLLMENT_KEY="$RUN/enrollment.key" \
  CARLOS_AWS_IID_CERT="$RUN/imds-cert.pem" CARLOS_REGION=us-east-1 \
  "$CARLOS" boxes auto-enroll --watch --every 200ms >"$RUN/enroller.log" 2>&1 &
HUB_PIDS+=($!)

{
  cat <<EOF
defaults
  mode http
  timeout connect 1s
  timeout client 5s
  timeout server 5s
  timeout check 500ms
frontend stats
  bind 127.0.0.1:8404
  stats enable
  stats uri /stats
frontend web
  bind $NET.1:8080
  default_backend boxes
backend boxes
  option httpchk GET /_carlos/lb
  http-check expect status 200
  default-server inter 200ms fastinter 200ms downinter 200ms fall 1 rise 1
EOF
  for i in $(seq 1 "$NBOX"); do echo "  server box$i $NET.1$i:80 check"; done
} >"$RUN/haproxy.cfg"
hub haproxy -D -p "$RUN/haproxy.pid" -f "$RUN/haproxy.cfg" >"$RUN/haproxy.log" 2>&1 || die "haproxy: $(cat "$RUN/haproxy.log")"
# lb BOX: HAProxy's view of the box (UP, DOWN, ...), from its CSV stats
# (those of the current probe round when LBCSV is set).
lb() {
  local csv=${LBCSV:-$(hub curl -s "http://127.0.0.1:8404/stats;csv")}
  awk -F, -v s="$1" '$1=="boxes" && $2==s {print $18}' <<<"$csv"
}
lb_is() { [ "$(lb "$1")" = "$2" ]; }
# lb_code BOX: the HTTP status of HAProxy's last check of the box.
lb_code() {
  local csv=${LBCSV:-$(hub curl -s "http://127.0.0.1:8404/stats;csv")}
  awk -F, -v s="$1" '$1=="boxes" && $2==s {print $38}' <<<"$csv"
}
waitfor 5 lb_is box1 DOWN || die "HAProxy did not come up: $(cat "$RUN/haproxy.log")"
log "deployment up (RGW, IMDS emulator, enroller, HAProxy) in $(since "$t")s"

# ------------------------------------------------------------ 5. boxes
start_box() { # overlay over the rootfs, own cgroup dir, own netns
  local n=$1 d=$RUN/$1 h
  mkdir -p "$d/upper" "$d/work" "$d/root"
  mountpoint -q "$d/root" || mount -t overlay overlay \
    -o "lowerdir=$ROOTFS,upperdir=$d/upper,workdir=$d/work" "$d/root" || return 1
  echo "$n" >"$d/root/etc/hostname"
  # A box's machine id is made once and kept across reboots, as on a real
  # box (the rootfs leaves /etc/machine-id empty for this).
  [ -s "$d/root/etc/machine-id" ] || cat /proc/sys/kernel/random/uuid | tr -d '-' >"$d/root/etc/machine-id"
  # nspawn --keep-unit makes <own cgroup>/supervisor and /payload: each
  # container needs its own cgroup dir in both hierarchies.
  for h in systemd unified; do mkdir -p "/sys/fs/cgroup/$h/$PFX/$n"; done
  mkdir -p "$MEMROOT/$PFX/$n" 2>/dev/null
  TBOOT[$n]=$EPOCHREALTIME
  (
    for h in systemd unified; do echo "$BASHPID" >"/sys/fs/cgroup/$h/$PFX/$n/cgroup.procs"; done
    [ -d "$MEMROOT/$PFX/$n" ] && echo "$BASHPID" >"$MEMROOT/$PFX/$n/cgroup.procs"
    exec systemd-nspawn --boot --directory="$d/root" --machine="$PFX-$n" \
      --register=no --keep-unit --console=pipe --link-journal=no \
      --network-namespace-path="/run/netns/$PFX-$n"
  ) >>"$d/nspawn.log" 2>&1 </dev/null &
  NSPID[$n]=$!
}
find_leader() { # the container's PID 1: nspawn's child whose innermost pid is 1
  local n=$1 c
  for c in $(pgrep -P "${NSPID[$n]}"); do
    [ "$(awk '/^NSpid:/{print $NF}' "/proc/$c/status" 2>/dev/null)" = 1 ] && {
      LEADER[$n]=$c
      return 0
    }
  done
  return 1
}
booted() {
  local s
  s=$(cx "$1" systemctl is-system-running 2>/dev/null)
  [ "$s" = running ] || [ "$s" = degraded ]
}
wait_boot() {
  local n=$1
  waitfor 60 find_leader "$n" || {
    bad "$n: no container PID 1 ($(tail -3 "$RUN/$n/nspawn.log"))"
    return 1
  }
  if waitfor 60 booted "$n"; then
    ok "$n booted to '$(cx "$n" systemctl is-system-running)' in $(since "${TBOOT[$n]}")s"
  else
    bad "$n did not boot: $(cx "$n" systemctl is-system-running 2>&1)"
    return 1
  fi
}
stop_box() { # SIGTERM: nspawn asks the container's systemd to power off
  local n=$1 p=${NSPID[$1]:-} t=$EPOCHREALTIME h
  [ -n "$p" ] || return 0
  [ "${3:-}" = nosignal ] || kill -TERM "$p" 2>/dev/null
  waitfor 30 sh -c "! kill -0 $p" || {
    kill -TERM "$p" 2>/dev/null
    waitfor 5 sh -c "! kill -0 $p" || kill -KILL "$p"
  }
  wait "$p" 2>/dev/null
  # nspawn gone, its container's PID 1 not (nspawn was killed): end the
  # container's pid namespace.
  [ -n "${LEADER[$n]:-}" ] && kill -KILL "${LEADER[$n]}" 2>/dev/null
  [ "${2:-}" = quiet ] || log "$n powered off in $(since "$t")s"
  unset "NSPID[$n]" "LEADER[$n]"
  for h in systemd unified; do
    [ -d "/sys/fs/cgroup/$h/$PFX/$n" ] && find "/sys/fs/cgroup/$h/$PFX/$n" -mindepth 1 -depth -type d -exec rmdir {} \; 2>/dev/null
  done
  return 0
}

t=$EPOCHREALTIME
for i in $(seq 1 "$NBOX"); do start_box "box$i" || die "start box$i"; done
for i in $(seq 1 "$NBOX"); do wait_boot "box$i" || die "box$i did not boot"; done
log "$NBOX boxes booted in $(since "$t")s"

# ------------------------------------------------------------ 6. install (docs/operator.md, "Install")
# stat_of BOX PATH: "user:group mode".
stat_of() { cx "$1" stat -c '%U:%G %a' "$2" 2>&1; }
install_deb() {
  local n=$1 t=$EPOCHREALTIME
  cp "$DEB" "$RUN/$n/root/root/"
  if cx "$n" dpkg -i "/root/$(basename "$DEB")" >"$RUN/$n/dpkg.log" 2>&1; then
    ok "$n: dpkg -i $(basename "$DEB") in $(since "$t")s"
  else
    bad "$n: dpkg -i: $(tail -5 "$RUN/$n/dpkg.log")"
    return 1
  fi
}
for i in $(seq 1 "$NBOX"); do
  n=box$i
  install_deb "$n" || die "nothing more to check on $n without the package"
  expect "$n: the carlos user (home, shell)" "$(cx "$n" getent passwd carlos | cut -d: -f6,7)" "/data:/usr/sbin/nologin"
  uid=$(cx "$n" id -u carlos)
  check "$n: carlos is a system user (uid $uid < 1000)" test "${uid:-1000}" -lt 1000
  expect "$n: /data" "$(stat_of "$n" /data)" "carlos:carlos 755"
  expect "$n: /data/hostguard" "$(stat_of "$n" /data/hostguard)" "root:root 755"
  expect "$n: carlos(1)" "$(stat_of "$n" /usr/share/man/man1/carlos.1.gz)" "root:root 644"
  expect "$n: nothing enabled by the package" "$(cx "$n" systemctl is-enabled carlos-edge.service carlos-system-join.path | paste -sd' ')" "disabled disabled"
done

# ------------------------------------------------------------ 7. configure and enable (docs/operator.md, "Configure", "Enable")
configure() { # configure BOX I [extra host.env lines...]: fills /etc/carlos/host.env as the guide says
  local n=$1 i=$2
  shift 2
  cx "$n" install -d -m 0755 /etc/carlos &&
    cx "$n" install -m 0640 -g carlos /usr/share/doc/carlos/host.env.example /etc/carlos/host.env ||
    bad "$n: the guide's install of /etc/carlos/host.env"
  {
    echo "# --- set by tests/system/run.sh (docs/operator.md, \"Configure\")"
    echo "CARLOS_HOST_CLAIM=1"
    echo "CARLOS_REGION_HA=1"
    echo "CARLOS_REGION=us-east-1"
    echo "CARLOS_BOX_LABEL=$n"
    echo "CARLOS_ENROLLMENT_PUBKEY=$PUBKEY"
    echo "CARLOS_IMDS_ENDPOINT=http://$NET.1:$((IMDS_BASE + i - 1))"
    # Test timings (host.env.example, "Timings"): the lifecycle in seconds.
    echo "CARLOS_JOIN_EVERY=200ms"
    echo "CARLOS_JOIN_NUDGE_EVERY=1s"
    echo "CARLOS_DRAIN=1s"
    printf '%s\n' "$@"
  } >>"$RUN/$n/root/etc/carlos/host.env"
}
for i in $(seq 1 "$NBOX"); do
  configure "box$i" "$i" "${STORE_ENV[@]}"
  expect "box$i: /etc/carlos/host.env" "$(stat_of "box$i" /etc/carlos/host.env)" "root:carlos 640"
done

# The lifecycle, watched: each step's first sighting, per box, from the
# journal (the lines docs/operator.md lists), the guard's files and HAProxy.
STEPS=(joining lb-down-503 invited join-ran armed guard-ready enrolled restarted as-carlos lb-up)
declare -A SEEN
probe() { # probe BOX: prints the steps reached so far
  local n=$1 j
  j=$(cx "$n" journalctl -q -b -o cat -u carlos-edge.service -u carlos-system-join.service 2>/dev/null)
  grep -q "agent: $n is joining" <<<"$j" && echo joining
  # DOWN because the joining agent answers its health check 503.
  [ "$(lb "$n")" = DOWN ] && [ "$(lb_code "$n")" = 503 ] && echo lb-down-503
  grep -q "agent: joining: $n: invited" <<<"$j" && echo invited
  grep -q "carlos system join: $n: the guard is installed and armed" <<<"$j" && echo join-ran
  [ "$(stat_of "$n" /data/hostguard/armed.json)" = "root:root 644" ] && echo armed
  grep -q "agent: joining: $n: guard-ready" <<<"$j" && echo guard-ready
  grep -q "agent: joining: $n is enrolled and its guard is armed; restarting as the claim agent" <<<"$j" && echo enrolled
  grep -q "carlos system guard-exec: the guard is armed for $n and its enrollment sha256:.* matches it; starting /usr/bin/carlos" <<<"$j" && echo restarted
  local pid
  pid=$(cx "$n" systemctl show -P MainPID carlos-edge.service)
  [ "${pid:-0}" != 0 ] && [ "$(cx "$n" stat -c %U "/proc/$pid")" = carlos ] &&
    grep -q restarted <<<"${SEEN[$n.steps]:-}" && echo as-carlos
  [ "$(lb "$n")" = UP ] && grep -q restarted <<<"${SEEN[$n.steps]:-}" && echo lb-up
}

t=$EPOCHREALTIME
for i in $(seq 1 "$NBOX"); do
  cx "box$i" systemctl enable --now carlos-system-join.path carlos-edge.service >"$RUN/box$i/enable.log" 2>&1 ||
    bad "box$i: systemctl enable --now: $(cat "$RUN/box$i/enable.log")"
done
T_ENABLE=$EPOCHREALTIME
log "enabled carlos-system-join.path and carlos-edge.service on $NBOX boxes"
deadline=$(awk -v n="$EPOCHREALTIME" 'BEGIN{printf "%.6f", n+90}')
while :; do
  done_all=1
  LBCSV=$(hub curl -s "http://127.0.0.1:8404/stats;csv")
  for i in $(seq 1 "$NBOX"); do
    n=box$i
    for s in $(probe "$n"); do
      if [ -z "${SEEN[$n.$s]:-}" ]; then
        SEEN[$n.$s]=$(since "$T_ENABLE")
        SEEN[$n.steps]="${SEEN[$n.steps]:-} $s"
      fi
    done
    [ -n "${SEEN[$n.lb-up]:-}" ] || done_all=0
  done
  [ "$done_all" = 1 ] && break
  awk -v e="$deadline" -v n="$EPOCHREALTIME" 'BEGIN{exit !(n>e)}' && break
  sleep 0.1
done
LBCSV=
for i in $(seq 1 "$NBOX"); do
  n=box$i
  line="$n:"
  for s in "${STEPS[@]}"; do line="$line $s=${SEEN[$n.$s]:-never}"; done
  log "lifecycle (s after enable) $line"
  for s in "${STEPS[@]}"; do
    if [ -n "${SEEN[$n.$s]:-}" ]; then ok "$n: $s at ${SEEN[$n.$s]}s"; else bad "$n: $s never seen"; fi
  done
done
log "lifecycle of $NBOX boxes: all hosting in $(since "$T_ENABLE")s"

# journal_ts BOX UNIT PATTERN: the first matching line's time (seconds, float).
journal_ts() {
  cx "$1" journalctl -q -b -o short-unix -u "$2" 2>/dev/null | grep -m1 -- "$3" | awk '{print $1}'
}
for i in $(seq 1 "$NBOX"); do
  n=box$i
  a=$(journal_ts "$n" carlos-edge.service "restarting as the claim agent")
  b=$(journal_ts "$n" carlos-edge.service "its enrollment sha256:.* matches it")
  if [ -n "$a" ] && [ -n "$b" ]; then
    gap=$(awk -v a="$a" -v b="$b" 'BEGIN{printf "%.3f", b-a}')
    check "$n: joining -> hosting hand-over in ${gap}s (< 1 s: in place through guard-exec, docs/agent.md)" awk -v g="$gap" 'BEGIN{exit !(g<1)}'
  else
    bad "$n: hand-over lines not found in the journal"
  fi
  expect "$n: carlos-system-join.service result" "$(cx "$n" systemctl show -P Result carlos-system-join.service)" success
  j=$(cx "$n" journalctl -q -b -o cat -u carlos-system-join.service | grep -c "carlos system join: $n: ")
  check "$n: carlos-system-join.service ran (started by the path unit), $j line(s)" test "$j" -ge 1
  expect "$n: what triggered it" "$(cx "$n" systemctl show -P Triggers carlos-system-join.path)" carlos-system-join.service
  expect "$n: guard-status armed" "$(cx "$n" carlos system guard-status | awk '$1=="armed:"{print $2}')" yes
done

# ------------------------------------------------------------ 8. kill -9 of a hosting agent
n=box1
pid=$(cx "$n" systemctl show -P MainPID carlos-edge.service)
r0=$(cx "$n" systemctl show -P NRestarts carlos-edge.service)
health() { [ "$(hub curl -s -o /dev/null -m 1 -w '%{http_code}' "http://$1/_carlos/lb")" = 200 ]; }
new_main() { local p; p=$(cx "$n" systemctl show -P MainPID carlos-edge.service); [ "${p:-0}" != 0 ] && [ "$p" != "$pid" ]; }
t=$EPOCHREALTIME
# (A MainPID of 0 would make "kill -9 0" kill this script's process group.)
[[ "$pid" =~ ^[1-9][0-9]*$ ]] && cx "$n" bash -c "kill -9 $pid"
if [[ "$pid" =~ ^[1-9][0-9]*$ ]] && waitfor 10 new_main && waitfor 10 health "$NET.11"; then
  back=$(since "$t")
  check "$n: kill -9 of the hosting agent: hosting again (/_carlos/lb 200) in ${back}s (< 2 s)" awk -v g="$back" 'BEGIN{exit !(g<2)}'
else
  bad "$n: not hosting again 10 s after kill -9"
fi
check "$n: HAProxy UP again after the kill" waitfor 3 lb_is "$n" UP
expect "$n: NRestarts after the kill" "$(cx "$n" systemctl show -P NRestarts carlos-edge.service)" "$((r0 + 1))"

# ------------------------------------------------------------ 9. a container reboot
n=box2
before=$(cx "$n" carlos system guard-status --json | grep -E '"(armed_at|guard_digest)"' | paste -sd' ')
enrollment() { cx "$n" journalctl -q -b -o cat -u carlos-edge.service | grep -o "its enrollment sha256:[0-9a-f]*" | tail -1; }
enrollment_before=$(enrollment)
stop_box "$n"
t=$EPOCHREALTIME
start_box "$n" && wait_boot "$n"
if [ -n "${LEADER[$n]:-}" ]; then
  if waitfor 30 lb_is "$n" UP; then ok "$n after reboot: HAProxy UP $(since "$t")s after the container started"; else bad "$n after reboot: not UP"; fi
  j=$(cx "$n" journalctl -q -b -o cat -u carlos-edge.service -u carlos-system-join.service)
  check "$n after reboot: guard-exec started the claim agent (enrollment matches)" grep -q "its enrollment sha256:.* matches it; starting" <<<"$j"
  check "$n after reboot: not joining again" bash -c '! grep -q "is joining" <<<"$1"' _ "$j"
  expect "$n after reboot: carlos-system-join.service runs this boot" "$(cx "$n" journalctl -q -b -o cat -u carlos-system-join.service | grep -c 'carlos system join:')" 0
  expect "$n after reboot: the guard (armed_at, digest) unchanged" "$(cx "$n" carlos system guard-status --json | grep -E '"(armed_at|guard_digest)"' | paste -sd' ')" "$before"
  expect "$n after reboot: the same enrollment (not admitted again)" "$(enrollment)" "$enrollment_before"
fi

# ------------------------------------------------------------ 10. a retired box stops being restarted
n=box3
t=$EPOCHREALTIME
hub env "${STORE_ENV[@]}" CARLOS_ENROLLMENT_KEY="$RUN/enrollment.key" \
  "$CARLOS" boxes retire "$n" --reason "system test" >"$RUN/retire.log" 2>&1 || bad "carlos boxes retire $n: $(cat "$RUN/retire.log")"
unit_failed() { [ "$(cx "$n" systemctl show -P ActiveState carlos-edge.service)" = failed ]; }
if waitfor 30 unit_failed; then
  ok "$n retired: carlos-edge.service failed $(since "$t")s after the retirement"
else
  bad "$n retired: carlos-edge.service is $(cx "$n" systemctl show -P ActiveState carlos-edge.service), not failed"
fi
expect "$n retired: guard-exec's exit status" "$(cx "$n" systemctl show -P ExecMainStatus carlos-edge.service)" 3
r1=$(cx "$n" systemctl show -P NRestarts carlos-edge.service)
sleep 2
expect "$n retired: no restart in the next 2 s (NRestarts)" "$(cx "$n" systemctl show -P NRestarts carlos-edge.service)" "$r1"
check "$n retired: the journal says why and that it is not restarted" \
  bash -c 'grep -q "refusing to start /usr/bin/carlos: .*retired.*does not restart it" <<<"$1"' _ \
  "$(cx "$n" journalctl -q -b -o cat -u carlos-edge.service)"
check "$n retired: HAProxy DOWN" waitfor 3 lb_is "$n" DOWN

# ------------------------------------------------------------ 11. dpkg --purge, then decommission (docs/operator.md, "Decommission")
t=$EPOCHREALTIME
if cx "$n" dpkg --purge carlos >"$RUN/$n/purge.log" 2>&1; then ok "$n: dpkg --purge carlos in $(since "$t")s"; else bad "$n: dpkg --purge: $(tail -5 "$RUN/$n/purge.log")"; fi
expect "$n purged: carlos-edge.service" "$(cx "$n" systemctl is-enabled carlos-edge.service 2>&1)" "Failed to get unit file state for carlos-edge.service: No such file or directory"
expect "$n purged: carlos units or links left in /etc/systemd/system" "$(cx "$n" find /etc/systemd/system -name 'carlos*' | paste -sd' ')" ""
expect "$n purged: dangling links in /etc/systemd/system" "$(cx "$n" find /etc/systemd/system -xtype l | paste -sd' ')" ""
expect "$n purged: processes of the carlos user" "$(cx "$n" find /proc -maxdepth 1 -regex '/proc/[0-9]+' -user carlos | paste -sd' ')" ""
expect "$n purged: kept (the box's identity): /data/box.key" "$(stat_of "$n" /data/box.key)" "carlos:carlos 600"
cx "$n" sh -c 'rm -rf /data /etc/carlos && userdel carlos' || bad "$n: decommission commands"
check "$n decommissioned: no carlos user" bash -c '! nsenter -t '"${LEADER[$n]}"' -a getent passwd carlos'
check "$n decommissioned: no /data" bash -c '! nsenter -t '"${LEADER[$n]}"' -a test -e /data'

# ------------------------------------------------------------ 12. a /data that is someone else's is not taken over
cx "$n" sh -c 'mkdir -m 0700 /data && chown nobody:nogroup /data'
install_deb "$n"
expect "$n: a pre-existing /data (nobody, 0700) after install" "$(stat_of "$n" /data)" "nobody:nogroup 700"
expect "$n: /data/hostguard in it" "$(stat_of "$n" /data/hostguard)" "root:root 755"
cx "$n" systemd-tmpfiles --create >/dev/null 2>&1
expect "$n: the same /data after systemd-tmpfiles --create (as at boot)" "$(stat_of "$n" /data)" "nobody:nogroup 700"
# The operator hands it over (docs/operator.md, "Install").
cx "$n" chown carlos:carlos /data

# ------------------------------------------------------------ 13. a directory store under ProtectSystem=strict
configure "$n" 3 CARLOS_DEPLOYMENT_DIR=/srv/carlos/deployment
cx "$n" install -d -o carlos -g carlos -m 0750 /srv/carlos/deployment
# Only this step's lines (box3's journal also holds its first life's).
SINCE=$(cx "$n" date +%s)
cx "$n" systemctl enable --now carlos-system-join.path carlos-edge.service >/dev/null 2>&1
edge_log() { cx "$n" journalctl -q -o cat --since "@$SINCE" -u carlos-edge.service; }
says() { edge_log | grep -q -- "$1"; }
if waitfor 15 says "ReadWritePaths=/srv/carlos/deployment"; then
  ok "$n: without the drop-in the agent names the setting: $(edge_log | grep -m1 'ReadWritePaths=/srv/carlos/deployment' | cut -c1-200)"
else
  bad "$n: without the drop-in, no line names ReadWritePaths: $(edge_log | tail -3)"
fi
cx "$n" mkdir -p /etc/systemd/system/carlos-edge.service.d
printf '[Service]\nReadWritePaths=/srv/carlos/deployment\n' >"$RUN/$n/root/etc/systemd/system/carlos-edge.service.d/store.conf"
cx "$n" systemctl daemon-reload
SINCE=$(cx "$n" date +%s)
cx "$n" systemctl restart carlos-edge.service
if waitfor 15 says "agent: joining: $n: recorded"; then
  ok "$n: with the drop-in the agent recorded itself in the directory store"
else
  bad "$n: with the drop-in, not recorded: $(edge_log | tail -3)"
fi
expect "$n: its identity record in /srv/carlos/deployment" \
  "$(cx "$n" find /srv/carlos/deployment -path "*$n*" -type f | head -1 | grep -c .)" 1
