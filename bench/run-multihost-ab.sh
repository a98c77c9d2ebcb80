#!/usr/bin/env bash
# A/B of two builds of ferroshmem across simulated hosts (tests/multihost/with-hosts.sh; root):
# bench/c/coll_bench.c (the team collectives of SHMEM_TEAM_WORLD, 8 B to MAX bytes, and the
# slowest shmem_init) built with each tree's own oshcc and run by its own `oshrun --host`, the
# two builds alternating ROUNDS times in an order that swaps each round, each job in hosts of
# its own, UCX over TCP between them, FSH_HOST_CPUS=split. Prints a table of medians (base,
# new, new / base) and writes target/bench/multihost-ab-raw.txt.
# Usage: bench/run-multihost-ab.sh BASE_TREE [LAYOUT...]   (trees built with
#   `cargo build --release`; the new tree is this repository; layouts as with-hosts.sh takes
#   them, default "2:1,1 2:2,2 4:2,2,2,2"). Environment: ROUNDS (4), MAX (4096), REPS (5).
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
base=$(cd "$1" && pwd); shift
layouts=("$@"); [ ${#layouts[@]} -gt 0 ] || layouts=(2:1,1 2:2,2 4:2,2,2,2)
ROUNDS=${ROUNDS:-4} MAX=${MAX:-4096} REPS=${REPS:-5}
out=$here/target/bench; mkdir -p "$out"; raw=$out/multihost-ab-raw.txt; : > "$raw"
export FSH_HOST_CPUS=split
"$base/target/release/oshcc" -O2 -o "$out/coll_bench_ab_base" "$here/bench/c/coll_bench.c"
"$here/target/release/oshcc" -O2 -o "$out/coll_bench_ab_new" "$here/bench/c/coll_bench.c"
run() { # run SIDE TREE LAYOUT
    local side=$1 tree=$2 layout=$3
    local n; n=$(python3 -c "import sys; print(sum(int(x) for x in sys.argv[1].split(':')[1].split(',')))" "$layout")
    "$here/tests/multihost/with-hosts.sh" "$layout" -- bash -c '
        args=""; skip=0
        for w in $FSH_MPIRUN_ARGS; do
            if [ $skip = 1 ]; then skip=0; continue; fi
            if [ "$w" = --host ]; then skip=1; continue; fi
            args="$args $w"
        done
        export OSHRUN_MPIRUN_ARGS="$args" UCX_TLS=tcp,self UCX_NET_DEVICES=eth0 UCX_WARN_UNUSED_ENV_VARS=n
        timeout 300 "$1/target/release/oshrun" -n "$2" --host "$FSH_HOSTLIST" "$3" "$4" "$5"
    ' -- "$tree" "$n" "$out/coll_bench_ab_$side" "$MAX" "$REPS" 2>/dev/null \
        | awk -v s="$side" -v l="$layout" '/^coll/ {print s, l, $2, $3, $5}' >> "$raw"
}
for r in $(seq "$ROUNDS"); do
    for layout in "${layouts[@]}"; do
        if [ $((r % 2)) = 1 ]; then run base "$base" "$layout"; run new "$here" "$layout"
        else run new "$here" "$layout"; run base "$base" "$layout"; fi
    done
done
python3 - "$raw" <<'PY'
import sys, statistics, collections
v = collections.defaultdict(list)
for line in open(sys.argv[1]):
    f = line.split()
    if len(f) == 5:
        v[(f[1], f[2], int(f[3]), f[0])].append(float(f[4]))
print("| layout | operation | bytes | base µs | new µs | new / base |")
print("| --- | --- | ---: | ---: | ---: | ---: |")
for k in sorted({k[:3] for k in v}):
    b, n = v.get(k + ("base",)), v.get(k + ("new",))
    if b and n:
        mb, mn = statistics.median(b), statistics.median(n)
        print(f"| {k[0]} | {k[1]} | {k[2]} | {mb:.1f} | {mn:.1f} | {mn / mb:.2f} |")
PY
