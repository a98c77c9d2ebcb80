#!/bin/bash
# A/B of two builds of the library on a busy machine (issue 31): bench/c/busy_bench.c, built
# once with this tree's oshcc, run by this tree's oshrun against each build's libraries in turn
# (LD_LIBRARY_PATH), beside 0, 2 or 4 busy loops (bench/busy-loops.sh), the order of the builds
# rotated from round to round. The libraries of a build are its target/release/libferroshmem.so
# and libferroshmem_wire.so, copied into a directory of their own (a tree rebuilt since would
# otherwise be measured under the old name).
# Usage (after `cargo build --release`): bench/run-busy-ab.sh DIR_A DIR_B
#   e.g. mkdir -p /tmp/ab/base && cp target/release/libferroshmem*.so /tmp/ab/base/
# Environment: ROUNDS (3), LOADS ("2 4"), PES ("4"), JOB_LIMIT (60 s per job).
# Writes target/bench/busy-ab-raw.txt ("DIR LOAD busy NAME NPES MEDIAN WORST" per line) and
# prints, per figure, PE count and load: each build's median of the rounds' medians (µs), the
# rounds' range, the slowest batch of any round, and B / A.
set -eu
[ $# -eq 2 ] || { sed -n '2,12p' "$0" >&2; exit 2; }
A=$(cd "$1" && pwd)
B=$(cd "$2" && pwd)
ROUNDS=${ROUNDS:-3}
LOADS=${LOADS:-"2 4"}
PES=${PES:-"4"}
JOB_LIMIT=${JOB_LIMIT:-60}
OUT=target/bench
RAW="$OUT/busy-ab-raw.txt"
mkdir -p "$OUT"
target/release/oshcc -O2 bench/c/busy_bench.c -o "$OUT/busy_ab"
: > "$RAW"
. "$(dirname "$0")/busy-loops.sh"
libs=("$A" "$B")
for load in $LOADS; do
    start_busy "$load"
    for r in $(seq 1 "$ROUNDS"); do
        k=$(((r - 1) % 2))
        for n in $PES; do
            for lib in "${libs[@]:k}" "${libs[@]:0:k}"; do
                LD_LIBRARY_PATH=$lib timeout "$JOB_LIMIT" target/release/oshrun -n "$n" "$OUT/busy_ab" 2>/dev/null |
                    grep '^busy ' | sed "s|^|$lib $load |" >> "$RAW" || true
            done
        done
    done
done
stop_busy
python3 - "$RAW" "$A" "$B" <<'EOF'
import collections, statistics, sys
raw, a, b = sys.argv[1:]
v = collections.defaultdict(list)
for line in open(raw):
    f = line.split()
    if len(f) == 7:
        v[(f[3], int(f[4]), int(f[1]), f[0])].append((float(f[5]), float(f[6])))
for key in sorted({k[:3] for k in v}):
    cells, medians = [], []
    for lib in (a, b):
        runs = v.get(key + (lib,), [])
        if not runs:
            cells.append("-")
            continue
        m = statistics.median(x for x, _ in runs)
        medians.append(m)
        cells.append(f"{m:.3f} ({min(x for x, _ in runs):.3f}-{max(x for x, _ in runs):.3f}, slowest {max(w for _, w in runs):.2f})")
    ratio = f"{medians[1] / medians[0]:.2f}" if len(medians) == 2 and medians[0] else "-"
    print(f"{key[0]} {key[1]} PEs, {key[2]} busy loops: A {cells[0]}  B {cells[1]}  B/A {ratio}")
EOF
