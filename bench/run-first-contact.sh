#!/usr/bin/env bash
# The first contact across many simulated hosts (issue 28; docs/ARCHITECTURE.md, "PEs silent
# for seconds on 48 simulated hosts"): the first transfers between every pair of PEs make
# their connections. Per round, each job in hosts of its own (tests/multihost/with-hosts.sh,
# UCX over TCP), in this order:
#   ferroshmem_alltoall  bench/c/first_contact.c alltoall (three 4 KiB alltoalls)
#   ferroshmem_puts      bench/c/first_contact.c puts (every PE puts 4 KiB to every other)
#   mpi_alltoall         bench/c/first_contact_mpi.c (three 4 KiB MPI_Alltoall), Open MPI's
#                        mpirun with the simulated hosts' arguments and mpi_yield_when_idle
# A sampler beside each job notes the longest time a plain sleeping thread was not run (it
# wakes every 10 ms): "gap_ms". Prints one line per job and the medians at the end:
#   JOB round R: first S s, then S S s, gap_ms G
# Usage (after `cargo build --release`; root):
#   bench/run-first-contact.sh          # ROUNDS=3, LAYOUT the test run's 48 ragged hosts
# Environment: ROUNDS (3), LAYOUT (as with-hosts.sh takes it), JOB_LIMIT (300 s per job).
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
OUT=$here/target/bench
mkdir -p "$OUT"
ROUNDS=${ROUNDS:-3} JOB_LIMIT=${JOB_LIMIT:-300}
LAYOUT=${LAYOUT:-"48:$(for _ in 1 2 3 4; do printf '1,1,1,2,1,1,1,1,2,1,3,1,'; done | sed 's/,$//')"}

if [ "${1:-}" = "--inner" ]; then
    job=$2
    args=$(echo " $FSH_MPIRUN_ARGS" | sed 's/ --host [^ ]*//')
    n=$(echo "$FSH_HOSTLIST" | tr ',' '\n' | cut -d: -f2 | paste -sd+ | bc)
    case $job in
        ferroshmem_alltoall | ferroshmem_puts)
            cmd=(env OSHRUN_MPIRUN_ARGS="$args" UCX_TLS=tcp,self UCX_NET_DEVICES=eth0
                "$here/target/release/oshrun" -n "$n" --host "$FSH_HOSTLIST" "$OUT/first_contact" "${job#ferroshmem_}") ;;
        mpi_alltoall)
            # shellcheck disable=SC2206
            cmd=(mpirun $FSH_MPIRUN_ARGS --mca mpi_yield_when_idle 1 -np "$n" "$OUT/first_contact_mpi") ;;
        *) echo "run-first-contact: unknown job $job" >&2; exit 2 ;;
    esac
    timeout -k 10 "$JOB_LIMIT" "${cmd[@]}" </dev/null
    exit
fi

for c in mpicc mpirun bc python3; do
    command -v $c >/dev/null || { echo "run-first-contact: $c not found" >&2; exit 1; }
done
[ -x "$here/target/release/oshcc" ] || { echo "run-first-contact: cargo build --release first" >&2; exit 1; }
"$here/target/release/oshcc" -O2 "$here/bench/c/first_contact.c" -o "$OUT/first_contact"
mpicc -O2 "$here/bench/c/first_contact_mpi.c" -o "$OUT/first_contact_mpi"
RAW=$OUT/first-contact-raw.txt
: >"$RAW"
# The sampler: the longest gap between two wake-ups of a thread that sleeps 10 ms at a time.
sampler() {
    exec python3 -c '
import time, signal, sys
worst = 0.0
signal.signal(signal.SIGTERM, lambda *a: (print(f"{worst * 1000:.0f}"), sys.exit(0)))
last = time.monotonic()
while True:
    time.sleep(0.01)
    now = time.monotonic()
    worst = max(worst, now - last - 0.01)
    last = now'
}
for r in $(seq 1 "$ROUNDS"); do
    for job in ferroshmem_alltoall ferroshmem_puts mpi_alltoall; do
        gapfile=$(mktemp)
        sampler >"$gapfile" &
        sp=$!
        set +e
        line=$(timeout -k 30 $((JOB_LIMIT + 60)) "$here/tests/multihost/with-hosts.sh" "$LAYOUT" -- \
            env JOB_LIMIT="$JOB_LIMIT" "$here/bench/run-first-contact.sh" --inner "$job" 2>"$OUT/first-contact-$job-$r.err" |
            grep 'ok, slowest:')
        rc=$?
        set -e
        kill -TERM $sp; wait $sp 2>/dev/null || true
        gap=$(cat "$gapfile"); rm -f "$gapfile"
        if [ $rc = 0 ]; then
            set -- $(echo "$line" | sed 's/.*slowest: //; s/ s$//')
            echo "$job round $r: first $1 s, then $2 $3 s, gap_ms $gap" | tee -a "$RAW"
        else
            echo "$job round $r: failed (see $OUT/first-contact-$job-$r.err), gap_ms $gap" | tee -a "$RAW"
        fi
    done
done
python3 - "$RAW" <<'PY'
import sys, statistics, collections
first, later, gap = collections.defaultdict(list), collections.defaultdict(list), collections.defaultdict(list)
for line in open(sys.argv[1]):
    f = line.split()
    if "first" in f:
        first[f[0]].append(float(f[4])); later[f[0]] += [float(f[7]), float(f[8])]; gap[f[0]].append(float(f[11]))
print("\n| job | first (median, range) s | later ones (median) s | longest gap of a sleeper (median) ms |")
print("| --- | ---: | ---: | ---: |")
for j in first:
    print(f"| {j} | {statistics.median(first[j]):.2f} ({min(first[j]):.2f}-{max(first[j]):.2f}) | {statistics.median(later[j]):.3f} | {statistics.median(gap[j]):.0f} |")
PY
