#!/bin/sh
# Put message rate on a quiet and on a busy machine (issue 31): bench/c/put_rate.c built with
# ferroshmem's oshcc and with Open MPI's (Debian packages openmpi-bin libopenmpi-dev), 2 PEs,
# with 0 and 2 busy loops (`while :; do :; done` in sh) beside them, the two libraries
# alternating (order swapped from round to round), ROUNDS rounds. Writes
#   target/bench/put-rate.md       per size and load: each library's median of the rounds
#                                  (messages per second) and ferroshmem / Open MPI (issue 31's
#                                  target: >= 1.0)
#   target/bench/put-rate-raw.txt  every line ("IMPL LOAD put_rate BYTES NPES RATE")
# Usage (after `cargo build --release`): bench/run-put-rate.sh
# Environment: ROUNDS (3), LOADS ("0 2"), WINDOWS (50: windows of 64 puts per batch).
set -eu
ROUNDS=${ROUNDS:-3}
LOADS=${LOADS:-"0 2"}
WINDOWS=${WINDOWS:-50}
OUT=target/bench
mkdir -p "$OUT"
target/release/oshcc -O2 bench/c/put_rate.c -o "$OUT/put_rate_ferro"
/usr/bin/oshcc -O2 bench/c/put_rate.c -o "$OUT/put_rate_ompi"
RAW="$OUT/put-rate-raw.txt"
: > "$RAW"
. "$(dirname "$0")/busy-loops.sh"
for load in $LOADS; do
    start_busy "$load"
    for r in $(seq 1 "$ROUNDS"); do
        if [ $((r % 2)) = 1 ]; then order="ferroshmem openmpi"; else order="openmpi ferroshmem"; fi
        for impl in $order; do
            case $impl in
                ferroshmem) out=$(timeout 120 target/release/oshrun -n 2 "$OUT/put_rate_ferro" "$WINDOWS" 2>/dev/null) || true ;;
                openmpi) out=$(SMA_SYMMETRIC_SIZE=64M OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
                    OMPI_MCA_osc='^rdma' timeout 120 /usr/bin/oshrun -np 2 --oversubscribe "$OUT/put_rate_ompi" \
                    "$WINDOWS" 2>/dev/null) || true ;;
            esac
            printf '%s\n' "$out" | grep '^put_rate ' | sed "s/^/$impl $load /" >> "$RAW" || true
        done
    done
done
stop_busy
python3 - "$RAW" "$OUT/put-rate.md" <<'PY'
import collections, statistics, sys
raw, out = sys.argv[1], sys.argv[2]
vals = collections.defaultdict(list)
for line in open(raw):
    f = line.split()
    if len(f) == 6:
        vals[(f[0], int(f[1]), int(f[3]))].append(float(f[5]))
rows = ["| bytes | busy loops | ferroshmem (msg/s) | Open MPI (msg/s) | ferroshmem / Open MPI |",
        "| ---: | ---: | ---: | ---: | ---: |"]
for load, size in sorted({(k[1], k[2]) for k in vals}):
    a, b = vals.get(("ferroshmem", load, size)), vals.get(("openmpi", load, size))
    ma = statistics.median(a) if a else None
    mb = statistics.median(b) if b else None
    ratio = f"{ma / mb:.2f}" if ma and mb else "-"
    fmt = lambda v: f"{v:.0f}" if v else "-"
    rows.append(f"| {size} | {load} | {fmt(ma)} | {fmt(mb)} | {ratio} |")
open(out, "w").write("\n".join(rows) + "\n")
print("\n".join(rows))
PY
