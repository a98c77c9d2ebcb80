#!/bin/sh
# A/B of two builds of ferroshmem on one host, in one run: the one-host figures of
# docs/PERFORMANCE.md (shmem-bench, team-bench, and bench/c/coll_bench.c's team collectives at
# 2, 4 and 8 PEs), the two builds alternating ROUNDS times in an order that swaps each round,
# each figure's median over the rounds.
# GB/s figures are better higher, the others lower.
# Usage: bench/run-ab.sh BASE_TREE [NEW_TREE]   (trees built with `cargo build --release`;
#   NEW_TREE defaults to this repository). Writes target/bench/ab.md (table: base, new,
#   new/base) and target/bench/ab-raw.txt. Environment: ROUNDS (5), MAX (65536: coll_bench's
#   largest size), PES ("2 4 8").
set -eu
BASE=$(cd "$1" && pwd)
NEW=$(cd "${2:-$(dirname "$0")/..}" && pwd)
ROUNDS=${ROUNDS:-5}
MAX=${MAX:-65536}
PES=${PES:-"2 4 8"}
OUT=$NEW/target/bench
mkdir -p "$OUT"
RAW=$OUT/ab-raw.txt
: > "$RAW"
for side in base new; do
    tree=$BASE; [ "$side" = new ] && tree=$NEW
    "$tree/target/release/oshcc" -O2 "$NEW/bench/c/coll_bench.c" -o "$OUT/coll_bench_$side"
done
# One build's jobs at N PEs; every figure line becomes "SIDE N NAME... VALUE UNIT".
run_side() {
    side=$1; n=$2
    tree=$BASE; [ "$side" = new ] && tree=$NEW
    for bench in shmem-bench team-bench; do
        "$tree/target/release/oshrun" -n "$n" "$tree/target/release/$bench" |
            awk -v s="$side" -v n="$n" -v b="$bench" '$NF ~ /^(ns|GB\/s)$/ && $(NF-1) ~ /^[0-9.]+$/ {
                name = $1; for (i = 2; i <= NF - 2; i++) name = name " " $i
                print s, n, b " " name "|" $(NF-1), $NF }' >> "$RAW"
    done
    "$tree/target/release/oshrun" -n "$n" "$OUT/coll_bench_$side" "$MAX" |
        awk -v s="$side" -v n="$n" '$1 == "coll" { print s, n, "coll", $2 " " $3 " B|" $5, "us" }' >> "$RAW"
}
for r in $(seq 1 "$ROUNDS"); do
    for n in $PES; do
        if [ $((r % 2)) = 1 ]; then run_side base "$n"; run_side new "$n"; else run_side new "$n"; run_side base "$n"; fi
    done
done
python3 - "$RAW" > "$OUT/ab.md" <<'PY'
import sys, statistics, collections
vals = collections.defaultdict(lambda: {"base": [], "new": []})
order = []
for line in open(sys.argv[1]):
    side, n, rest = line.split(" ", 2)
    name, tail = rest.rsplit("|", 1)
    v, unit = tail.split()
    key = (int(n), name.strip(), unit)
    if key not in vals:
        order.append(key)
    vals[key][side].append(float(v))
# The machine's state (how fast a hand-off between its CPUs is) can change between two
# rounds and moves both builds alike: the last column is the median over the rounds of each
# round's new / base (the two jobs of a round ran one after the other).
print("| PEs | figure | base | new | new / base | median of the rounds' new / base |")
print("| ---: | --- | ---: | ---: | ---: | ---: |")
for key in order:
    n, name, unit = key
    b, w = vals[key]["base"], vals[key]["new"]
    if not b or not w:
        continue
    mb, mw = statistics.median(b), statistics.median(w)
    ratio = mw / mb if mb else float("nan")
    paired = statistics.median([y / x for x, y in zip(b, w) if x])
    print(f"| {n} | {name} | {mb:.3f} {unit} | {mw:.3f} {unit} | {ratio:.2f} | {paired:.2f} |")
PY
cat "$OUT/ab.md"
