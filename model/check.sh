#!/usr/bin/env bash
# Checks the join protocol's model (model/carlos.pml, docs/protocol.md "The
# model") with SPIN: each property, each deliberately broken variant, and
# the findings the model exposes in the product as it is. Prints one line a
# check (states, time) and fails when a property that must hold fails, when
# a broken variant is not caught, or when a finding is no longer
# reproduced (then the product changed: update the model and this list).
# Usage: model/check.sh [-q]   (CARLOS_MODEL_WORK: where pan is built;
# default a temporary directory). Needs spin and gcc (scripts/deps.sh).
# Time: about 3 minutes on 2 cores; memory: under 2 GiB.
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
for t in spin gcc; do
  command -v "$t" >/dev/null || { echo "model/check.sh: $t is missing: run scripts/deps.sh" >&2; exit 2; }
done
work="${CARLOS_MODEL_WORK:-$(mktemp -d)}"
mkdir -p "$work"
failed=0

# check NAME EXPECT MODE CLAIM "SPIN -D FLAGS" [PAN FLAGS]
#   EXPECT: holds | violated; MODE: safety | bitstate | liveness
check() {
  local name="$1" expect="$2" mode="$3" claim="$4" defs="$5" panflags="${6:-}"
  local dir="$work/$name"
  rm -rf "$dir"; mkdir -p "$dir"; cp "$here/carlos.pml" "$dir/"
  local cc=(-O2 -w -DNFAIR=4) run=(./pan -N "$claim" -m3000000)
  case "$mode" in
    safety) cc+=(-DSAFETY -DCOLLAPSE) ;;
    bitstate) cc+=(-DSAFETY -DBITSTATE) ;;
    liveness) cc+=(-DCOLLAPSE); run+=(-a -f) ;;
  esac
  # shellcheck disable=SC2086
  if ! (cd "$dir" && spin $defs -a carlos.pml >spin.out 2>&1 && gcc "${cc[@]}" -o pan pan.c >cc.out 2>&1); then
    echo "FAIL  $name: the model does not compile ($dir/spin.out, $dir/cc.out)"; failed=1; return
  fi
  # shellcheck disable=SC2086
  (cd "$dir" && "${run[@]}" $panflags >pan.out 2>&1)
  local errors states secs extra=""
  errors=$(sed -nE 's/.*errors: ([0-9]+).*/\1/p' "$dir/pan.out" | tail -1)
  states=$(sed -nE 's/^ *([0-9.e+]+) states, stored.*/\1/p' "$dir/pan.out" | tail -1)
  secs=$(sed -nE 's/^pan: elapsed time ([0-9.e+]+) seconds.*/\1/p' "$dir/pan.out" | tail -1)
  [ "$mode" = bitstate ] && extra=", hash factor $(sed -nE 's/^hash factor: ([0-9.e+]+).*/\1/p' "$dir/pan.out")"
  grep -q "max search depth too small" "$dir/pan.out" && extra="$extra, DEPTH TRUNCATED"
  if [ -z "$errors" ]; then
    echo "FAIL  $name: pan did not finish ($dir/pan.out)"; failed=1; return
  fi
  local got=holds
  [ "$errors" != 0 ] && got=violated
  local verdict=ok
  [ "$got" != "$expect" ] && { verdict=FAIL; failed=1; }
  printf '%-5s %-34s %-9s %-8s (expected %s) %12s states, %6s s%s\n' \
    "$verdict" "$name" "$claim" "$got" "$expect" "${states:-?}" "${secs:-?}" "$extra"
  if [ "$verdict" = FAIL ] && [ "$got" = violated ]; then
    echo "      counterexample: (cd $dir && $here/trail.sh $defs)"
  fi
}

echo "model/check.sh: SPIN $(spin -V | sed -E 's/Spin Version ([0-9.]+).*/\1/'), work in $work"
# The properties, exhaustively for one box (every actor but the boxes: two
# enrollers, the operator, another machine, time), and for three boxes by
# bitstate (a hashed, partial search: the exhaustive one does not fit).
check safety-K1                holds    safety   safety "-DK=1"
check safety-K3-bitstate       holds    bitstate safety "-DK=3" "-w24"
check stops-K1                 holds    liveness stops  "-DK=1"
check live-K1-no-findings      holds    liveness live   "-DK=1 -DNO_JOIN_CRASH -DONE_ENROLLER"
# Deliberately broken variants: each must be caught.
check broken-no-guard-check    violated safety   safety "-DK=1 -DBROKEN_NO_GUARD"
check broken-no-retired-check  violated safety   safety "-DK=1 -DBROKEN_NO_RETIRED"
check broken-put-invitation    violated safety   safety "-DK=1 -DBROKEN_PUT_INVITATION"
check broken-put-enrollment    violated safety   safety "-DK=1 -DBROKEN_PUT_ENROLLMENT"
check broken-put-record        violated safety   safety "-DK=1 -DBROKEN_PUT_RECORD"
# What the product does today (docs/protocol.md, "Findings"):
# a box acts on a retirement or a changed guard at its next check, not at once;
check finding-next-check       violated safety   safety "-DK=1 -DSTRICT"
# root's join killed between installing and arming leaves the box at
# guard-installed, where the agent never asks root again;
check finding-join-crash       violated liveness live   "-DK=1 -DONE_ENROLLER"
# two enrollers: one re-invites (the invitation expired) while the other
# enrolls; the box re-arms for the new invitation and stays guard-ready.
check finding-two-enrollers    violated liveness live   "-DK=1 -DNO_JOIN_CRASH"

if [ $failed != 0 ]; then
  echo "model/check.sh: FAILED (see above)"
  exit 1
fi
echo "model/check.sh: every property holds, every broken variant is caught, every finding reproduced"
