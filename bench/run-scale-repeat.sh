#!/usr/bin/env bash
# Issue 28's "every layout starts, computes right and exits 0, 10 runs of 10": runs
# tests/multihost/c/scale.c (barrier, broadcast, sum, fcollect and alltoall of 8 B and 4 KiB
# on the world team, a strided split with a collective in it and its destroy, each result
# checked) RUNS times in each layout's simulated hosts (tests/multihost/with-hosts.sh,
# FSH_HOST_CPUS=split, UCX over TCP), release build, each job under JOB_LIMIT. Prints one line
# per job and a count per layout; exits 1 if any job failed (its output's end is kept in
# target/bench/scale-repeat-LAYOUT-RUN.err).
# Usage (after `cargo build --release`; root): bench/run-scale-repeat.sh
# Environment: RUNS (10), JOB_LIMIT (300 s), LAYOUTS (8, 16, 32, 64 hosts x 1 PE, 32 x 2 and
# the test run's 48 ragged hosts, as with-hosts.sh takes them).
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
OUT=$here/target/bench
mkdir -p "$OUT"
RUNS=${RUNS:-10} JOB_LIMIT=${JOB_LIMIT:-300}
ones() { python3 -c "import sys; n=int(sys.argv[1]); p=sys.argv[2]; print(f'{n}:' + ','.join([p]*n))" "$1" "$2"; }
ragged="48:$(for _ in 1 2 3 4; do printf '1,1,1,2,1,1,1,1,2,1,3,1,'; done | sed 's/,$//')"
LAYOUTS=${LAYOUTS:-"$(ones 8 1) $(ones 16 1) $(ones 32 1) $(ones 64 1) $(ones 32 2) $ragged"}

if [ "${1:-}" = "--inner" ]; then
    name=$2
    args=$(echo " $FSH_MPIRUN_ARGS" | sed 's/ --host [^ ]*//')
    n=$(echo "$FSH_HOSTLIST" | tr ',' '\n' | cut -d: -f2 | paste -sd+ | bc)
    for i in $(seq 1 "$RUNS"); do
        set +e
        out=$(OSHRUN_MPIRUN_ARGS="$args" UCX_TLS=tcp,self UCX_NET_DEVICES=eth0 timeout -k 10 "$JOB_LIMIT" \
            "$here/target/release/oshrun" -n "$n" --host "$FSH_HOSTLIST" "$OUT/scale" </dev/null 2>&1)
        rc=$?
        set -e
        echo "$name run $i: exit $rc $(echo "$out" | grep -m1 'scale: ok' || true)"
        [ $rc = 0 ] || echo "$out" | tail -40 >"$OUT/scale-repeat-$name-$i.err"
    done
    exit 0
fi

[ -x "$here/target/release/oshcc" ] || { echo "run-scale-repeat: cargo build --release first" >&2; exit 1; }
"$here/target/release/oshcc" -O2 "$here/tests/multihost/c/scale.c" -o "$OUT/scale"
log=$OUT/scale-repeat.txt
: >"$log"
for layout in $LAYOUTS; do
    nh=${layout%%:*}
    per=$(echo "${layout#*:}" | tr ',' '\n' | sort -u | paste -sd-)
    name="${nh}x${per}"
    FSH_HOST_CPUS=split timeout -k 30 $(((JOB_LIMIT + 30) * RUNS + 120)) \
        "$here/tests/multihost/with-hosts.sh" "$layout" -- env RUNS="$RUNS" JOB_LIMIT="$JOB_LIMIT" \
        "$here/bench/run-scale-repeat.sh" --inner "$name" 2>/dev/null | tee -a "$log" ||
        echo "$name: with-hosts.sh failed" | tee -a "$log"
done
echo
awk '{total[$1]++; if ($5 == "0") ok[$1]++} END {for (l in total) printf "%s: %d of %d exited 0 with every result right\n", l, ok[l], total[l]}' "$log" | sort -n
! grep -q -v ': exit 0 scale: ok' "$log"
