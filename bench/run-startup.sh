#!/bin/sh
# Start-up of jobs of many PEs (issue 12.3): `oshrun -n N bench/c/startup.c` (shmem_init, one
# printf, shmem_finalize) for N in $PES (default 64 128 256 512 1024), ROUNDS times (default 3),
# with the heap of $SHMEM_SYMMETRIC_SIZE (default: the library's, 512M). Every run has a time
# limit (LIMIT seconds, default 100); a run that passes it, ends with a failure, or lacks a
# PE's line counts as failed. Prints one line per run and, per N, the median of the rounds:
#   n  total s (oshrun start to end)  last PE in main s  last PE out of shmem_init s
# Usage: bench/run-startup.sh   (from the repository root, after `cargo build --release`).
set -eu
PES=${PES:-"64 128 256 512 1024"}
ROUNDS=${ROUNDS:-3}
LIMIT=${LIMIT:-100}
OUT=target/bench
mkdir -p "$OUT"
target/release/oshcc -O2 bench/c/startup.c -o "$OUT/startup"
RAW="$OUT/startup-raw.txt"
: > "$RAW"
for r in $(seq 1 "$ROUNDS"); do
    for n in $PES; do
        start=$(date +%s.%N)
        status=0
        timeout "$LIMIT" target/release/oshrun -n "$n" "$OUT/startup" > "$OUT/startup-out.txt" || status=$?
        end=$(date +%s.%N)
        awk -v s="$start" -v e="$end" -v n="$n" -v st="$status" -v r="$r" '
            $1 == "startup" { lines++; if ($4 > main) main = $4; if ($5 > init) init = $5 }
            END {
                ok = (st == 0 && lines == n)
                if (ok) printf "run %d n %d total %.2f main %.2f init %.2f\n", r, n, e - s, main - s, init - s
                else printf "run %d n %d FAILED (status %d, %d of %d lines, %.1f s)\n", r, n, st, lines, n, e - s
            }' "$OUT/startup-out.txt" | tee -a "$RAW"
        # Nothing of the job may be left behind.
        if pgrep -f "$OUT/startup" > /dev/null; then echo "PEs left behind after -n $n" >&2; exit 1; fi
    done
done
echo "n total_s main_s init_s (medians of $ROUNDS rounds; heap ${SHMEM_SYMMETRIC_SIZE:-default})"
for n in $PES; do
    awk -v n="$n" '$4 == n && $5 == "total" { print $6, $8, $10 }' "$RAW" | sort -n | awk -v n="$n" '
        { t[NR] = $1; m[NR] = $2; i[NR] = $3 }
        END { if (NR == 0) { print n, "failed"; exit } k = int((NR + 1) / 2); printf "%d %.2f %.2f %.2f (%d runs)\n", n, t[k], m[k], i[k], NR }'
done
