#!/usr/bin/env bash
# Prints the steps of a SPIN counterexample that change what the protocol
# shares (the store, the boxes' disks, the health check) or decide, so
# that a trail reads as a story. Usage: model/trail.sh [spin -D options]
# (run where pan wrote carlos.pml.trail).
set -euo pipefail
spin "$@" -t -p carlos.pml 2>&1 |
  grep -E '\[(rec|inv|inv_rec|inv_exp|enr_g|enr_inv|enr_rec|ret_rec|rep_g|rep_armed|g_inv|armed|marker|hosting|saw_ret|crashes|faults|d|mode)\[?[^]=]*\]? = |\[\(\(enr_g\[i\]==0\)\)\]|\[\(\(inv\[i\]==' |
  grep -v ' = 0\]$' | sed -E 's/^ *([0-9]+):\s+proc +[0-9]+ \(([A-Za-z:]+)[^)]*\) [^ ]+ \(state [0-9]+\)\s+/\1 \2 /'
