#!/usr/bin/env bash
# Installs every Debian bookworm package the project builds, tests and
# benchmarks with. Idempotent: a no-op when everything is present. Needs
# root (or sudo) only when something is missing.
set -euo pipefail

packages=(
  # Build
  cmake ninja-build g++ pkg-config clang clang-format libclang-rt-14-dev
  # Libraries (README, "Dependencies", says why each)
  libcurl4-openssl-dev libssl-dev libsodium-dev nlohmann-json3-dev libcli11-dev libfmt-dev
  libspdlog-dev
  libboost-dev libboost-system-dev
  # Tests and benchmarks
  libgtest-dev libgmock-dev googletest libbenchmark-dev
  # The real S3-compatible server the S3 backend is tested against (Ceph RGW)
  radosgw ceph-mon ceph-osd uuid-runtime curl
  # The S3 server that answers as AWS documents (tests/harness/aws-s3-server),
  # and the thread-safety check, which reads the build's compile_commands.json
  python3
  # The end-to-end test's load balancer, the health-check benchmark's load
  # generator and the web server it is compared with
  haproxy wrk nginx-light
  # The protocol's model checker (model/check.sh) and the soak's checker;
  # faketime (libfaketime) skews the soak's second enroller's clock
  spin jq faketime
  # Packaging checks; the man page (help2man, from --help-all)
  lintian systemd dpkg-dev help2man
  # The system test (tests/system/run.sh): boxes are systemd-nspawn
  # containers booted from a bookworm rootfs that mmdebstrap builds; iproute2
  # makes its network namespaces and bridge, util-linux's nsenter enters them
  systemd-container mmdebstrap iproute2 util-linux
  # Prometheus: promtool checks each metrics endpoint's output, and a real server
  # scrapes an agent and the enroller (tests/metrics)
  prometheus
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi
echo "deps: installing ${missing[*]}" >&2
sudo=""
[ "$(id -u)" -eq 0 ] || sudo=sudo
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
