#!/bin/sh
# Builds bench/c/coll_bench.c with ferroshmem's oshcc and with Open MPI's (Debian packages
# openmpi-bin libopenmpi-dev), runs both (ferroshmem twice: the team forms, and with
# COLL_ACTIVE_SETS=1 the deprecated active-set forms) at 2, 4 and 8 PEs in this one session (alternating in rotated order,
# ROUNDS times, keeping each figure's median), and writes
#   target/bench/coll-comparison.md   (markdown table: both columns and the ratio)
#   target/bench/coll-raw.txt         (every "coll" line of every run)
#   target/bench/coll-latency.png     (latency against message size, if matplotlib is there)
#   target/bench/machine-floor.txt    (bench/c/machine_floor.c, once a round: the best this
#                                      machine allows for a sync of N PEs and for an alltoall's
#                                      copies, with no library; the table uses the best round)
#   target/bench/coll-comparison-by-state.md  (the medians again, over the rounds in which the
#                                      hand-off between CPUs 0 and 1 was near its fastest and
#                                      over the others: this machine's host changes state)
# Usage: bench/run-comparison.sh [max_bytes]   (default 65536). Run from the repository root
# after `cargo build --release`.
set -eu
MAX=${1:-65536}
ROUNDS=${ROUNDS:-3}
OUT=target/bench
mkdir -p "$OUT"
target/release/oshcc -O2 bench/c/coll_bench.c -o "$OUT/coll_bench_ferro"
/usr/bin/oshcc -O2 bench/c/coll_bench.c -o "$OUT/coll_bench_ompi"
cc -O2 bench/c/machine_floor.c -o "$OUT/machine_floor"
RAW="$OUT/coll-raw.txt"
FLOOR="$OUT/machine-floor.txt"
: > "$RAW"
: > "$FLOOR"
# One job of each kind at N PEs: run_job KIND N.
run_job() {
    case $1 in
        team) target/release/oshrun -n "$2" "$OUT/coll_bench_ferro" "$MAX" | sed 's/^coll /ferroshmem /' >> "$RAW" ;;
        # The deprecated active-set forms (pSync) of the same library, over all PEs.
        active) COLL_ACTIVE_SETS=1 target/release/oshrun -n "$2" "$OUT/coll_bench_ferro" "$MAX" |
            sed 's/^coll /ferroshmem-active /' >> "$RAW" ;;
        # Open MPI's OSHMEM crashes at exit after printing: keep its output, ignore its status.
        openmpi) OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_osc='^rdma' \
            timeout 600 /usr/bin/oshrun -np "$2" --oversubscribe "$OUT/coll_bench_ompi" "$MAX" 2>/dev/null |
            grep '^coll ' | sed 's/^coll /openmpi /' >> "$RAW" || true ;;
    esac
}
# The three jobs of a PE count run in an order rotated from round to round, so that no kind
# keeps one place: ferroshmem's first job at 4 PEs after the 2-PE jobs took 15-19 us for the
# 64 KiB alltoall in 3 of 5 trials and 9 us in the others, a second job 9 us in 10 of 10
# (after ferroshmem's first or after Open MPI's), and Open MPI's first 11-12 us, its usual.
for r in $(seq 1 "$ROUNDS"); do
    "$OUT/machine_floor" 2 4 8 >> "$FLOOR"
    case $((r % 3)) in
        1) order="team active openmpi" ;;
        2) order="active openmpi team" ;;
        *) order="openmpi team active" ;;
    esac
    for n in 2 4 8; do
        for kind in $order; do
            run_job "$kind" "$n"
        done
    done
done
python3 - "$RAW" "$OUT" "$FLOOR" <<'EOF'
import sys, statistics, collections
raw, out, floor_file = sys.argv[1], sys.argv[2], sys.argv[3]
floor = {}
for line in open(floor_file):
    f = line.split()
    if f[1] == "pingpong":
        continue
    # alltoall_copy lines carry the block size too: keyed (kind, npes, bytes).
    key = (f[1], int(f[-2]), int(f[2])) if f[1] == "alltoall_copy" else (f[1], int(f[-2])) if len(f) > 3 else (f[1], 0)
    floor[key] = min(floor.get(key, float("inf")), float(f[-1]))
floor_rows = [f"best switch between two processes on one core: {floor[('switch', 0)]:.0f} ns"]
for key, v in sorted(floor.items()):
    kind, n = key[0], key[1]
    if kind == "sync":
        floor_rows.append(f"floor of a sync of {n} PEs (ceil(n / cores) - 1 switches per core): {v:.3f} us")
    elif kind == "barrier":
        floor_rows.append(f"a bare central barrier of {n} processes (no library, spin then yield): {v:.3f} us")
    elif kind == "alltoall_copy":
        floor_rows.append(f"floor of the copies of a {key[2]}-byte alltoall among {n} PEs: {v:.3f} us")
open(f"{out}/machine-floor.md", "w").write("\n".join(floor_rows) + "\n")
print("\n".join(floor_rows))
d = collections.defaultdict(list)
for line in open(raw):
    impl, name, size, n, us = line.split()
    d[(impl, name, int(size), int(n))].append(float(us))
med = {k: statistics.median(v) for k, v in d.items()}
# The machine's state in each round (machine_floor's pingpong, measured at the start of the
# round): rounds whose hand-off between CPUs 0 and 1 took more than twice the fastest round's
# are "far" (the vCPUs on two physical cores, as far as this machine shows), the others "near".
# Each figure's list holds one value per round, in round order.
pingpong = [float(l.split()[2]) for l in open(floor_file) if l.startswith("floor pingpong ")]
if pingpong:
    near = [p <= 2 * min(pingpong) for p in pingpong]
    rows = [f"pingpong per round (ns): {' '.join(f'{p:.0f}' for p in pingpong)}; near: at most twice the run's fastest "
            f"({min(pingpong):.0f} ns), {sum(near)} of {len(near)} rounds (on this project's VM 20-50 ns with the "
            "two vCPUs on one physical core, 170-190 ns on two)",
            "",
            "| operation | bytes | PEs | ferroshmem near | Open MPI near | ferroshmem far | Open MPI far |",
            "| --- | ---: | ---: | ---: | ---: | ---: | ---: |"]
    def split_med(vals, want):
        picked = [v for v, s in zip(vals, near) if s == want]
        return f"{statistics.median(picked):.3f}" if picked else ""
    for (impl, name, size, n) in sorted(k for k in d if k[0] == "ferroshmem"):
        o = d.get(("openmpi", name, size, n), [])
        f = d[(impl, name, size, n)]
        if len(f) != len(near) or len(o) != len(near):
            continue
        rows.append(f"| {name} | {size} | {n} | {split_med(f, True)} | {split_med(o, True)} | {split_med(f, False)} | {split_med(o, False)} |")
    open(f"{out}/coll-comparison-by-state.md", "w").write("\n".join(rows) + "\n")
keys = sorted({(k[1], k[2], k[3]) for k in med}, key=lambda k: (k[0] not in ("barrier_all", "team_sync"), k[0], k[1], k[2]))
rows = ["| operation | bytes | PEs | ferroshmem µs | Open MPI µs | ratio | machine floor µs | active-set form µs | / team form |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
for name, size, n in keys:
    f, o = med.get(("ferroshmem", name, size, n)), med.get(("openmpi", name, size, n))
    a = med.get(("ferroshmem-active", name, size, n))
    if f is None or o is None:
        continue
    active = f"| {a:.3f} | {a / f:.2f} |" if a is not None and name not in ("barrier_all", "team_sync") else "| | |"
    # Every PE must run once per synchronising operation; an alltoall must also copy its
    # bytes, on the same cores: with more PEs than cores its floor is the sum of the two (with
    # a core each, the larger).
    lo = floor.get(("sync", n), 0.0) if name != "broadcast" else 0.0
    if name == "alltoall":
        copies = floor.get(("alltoall_copy", n, size), 0.0)
        lo = lo + copies if lo else copies
    rows.append(f"| {name} | {size} | {n} | {f:.3f} | {o:.3f} | {f / o:.2f} | {f'{lo:.3f}' if lo else ''} " + active)
open(f"{out}/coll-comparison.md", "w").write("\n".join(rows) + "\n")
print("\n".join(rows))
try:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
except ImportError:
    print("matplotlib not installed: no plot", file=sys.stderr)
    sys.exit(0)
ops = ["broadcast", "reduce_sum_float", "fcollect", "alltoall"]
fig, axes = plt.subplots(1, 4, figsize=(18, 4.5), sharey=True)
for ax, op in zip(axes, ops):
    for impl, style in (("ferroshmem", "-o"), ("ferroshmem-active", ":^"), ("openmpi", "--s")):
        for n in (2, 4, 8):
            pts = sorted((s, v) for (i, name, s, m), v in med.items() if i == impl and name == op and m == n)
            if pts:
                ax.plot([p[0] for p in pts], [p[1] for p in pts], style, label=f"{impl} {n} PEs")
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_title(op)
    ax.set_xlabel("bytes per PE")
    ax.grid(True, which="both", alpha=0.3)
axes[0].set_ylabel("latency (µs, median)")
axes[-1].legend(fontsize=7)
fig.tight_layout()
fig.savefig(f"{out}/coll-latency.png", dpi=110)
print(f"wrote {out}/coll-latency.png")
EOF
