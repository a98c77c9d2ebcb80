#!/usr/bin/env bash
# Jobs of many simulated hosts (issue 28): ferroshmem against Open MPI's MPI in the same hosts
# and the same minute, for 8, 16, 32 and 64 hosts x 1 PE and 32 hosts x 2 PEs.
#
# It runs bench/run-multihost-coll.sh (see there: each job in hosts of its own, the
# implementations alternating and rotated from round to round, medians of ROUNDS rounds,
# FSH_HOST_CPUS=split) with these layouts and, per job:
#   ferroshmem       bench/c/coll_bench.c: the slowest PE's shmem_init ("init"), barrier_all,
#                    team_sync, broadcast, sum reduction (float), fcollect and alltoall of 8 B to
#                    4 KiB on SHMEM_TEAM_WORLD
#   ferroshmem_team  bench/c/team_create_bench.c: split_strided + destroy, split_2d + destroy
#   mpi              bench/c/mpi_coll_bench.c: the slowest rank's MPI_Init, Barrier, Bcast,
#                    Allreduce, Allgather, Alltoall of 8 B and 4 KiB
#   floor            bench/c/net_floor.c: a barrier and an 8-byte sum over plain TCP sockets,
#                    no library in the timed loop (the best of two algorithms and two ways to
#                    wait): the floor of these hosts on this machine, in the growth table as
#                    "floor" rows
# (Open MPI's OSHMEM is left out: it has no teams, and at these sizes of job it does not start
# within its limit on this machine.) Then it writes, under target/bench/:
#   multihost-scale.md           run-multihost-coll's tables for these layouts, then the growth
#                                table: each figure against the hosts, ferroshmem / MPI at each
#                                count of hosts, and the growth from 8 to 64 hosts (target <= 2.5
#                                for barrier, broadcast and all-reduce; log growth gives 2)
#   multihost-scale-raw.txt      every figure of every job
#   multihost-scale-hosts.png    time against hosts, per operation (if matplotlib is installed)
# Usage (after `cargo build --release`; root): bench/run-multihost-scale.sh
# Environment: ROUNDS (3), REPS (5), LAYOUTS (the five above, as with-hosts.sh takes them),
# IMPLS ("ferroshmem ferroshmem_team mpi floor"), JOB_LIMIT (300 s per job).
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
ones() { python3 -c "import sys; n=int(sys.argv[1]); p=sys.argv[2]; print(f'{n}:' + ','.join([p]*n))" "$1" "$2"; }
export NAME=multihost-scale
export LAYOUTS=${LAYOUTS:-"$(ones 8 1) $(ones 16 1) $(ones 32 1) $(ones 64 1) $(ones 32 2)"}
export IMPLS=${IMPLS:-"ferroshmem ferroshmem_team mpi floor"}
export MAX_BYTES=4096 MPI_SIZES="8 4096"
export ROUNDS=${ROUNDS:-3} REPS=${REPS:-5} JOB_LIMIT=${JOB_LIMIT:-300}
if [ "${1:-}" != "--report" ]; then
    "$here/bench/run-multihost-coll.sh"
fi
. "$here/bench/plot-python.sh"
"$PY" - "$here/target/bench/multihost-scale-raw.txt" "$here/target/bench" <<'PY'
import sys, statistics, collections
raw, out = sys.argv[1], sys.argv[2]
vals = collections.defaultdict(list)
for line in open(raw):
    f = line.split()
    if len(f) == 6 and f[0] in ("ferroshmem", "ferroshmem_team", "mpi", "floor"):
        vals[(f[0], f[1], f[2], int(f[3]))].append(float(f[5]))
med = {k: statistics.median(v) for k, v in vals.items()}
# The floor of an operation: the lowest median among net_floor's algorithms and waits for it.
for (impl, lay, name, size), v in list(med.items()):
    for prefix, op in (("floor_barrier_", "barrier_all"), ("floor_sum_", "reduce_sum_float")):
        if impl == "floor" and name.startswith(prefix):
            key = ("floor", lay, op, size)
            med[key] = min(med.get(key, v), v)
def shape(lay):
    nh, _, ppn = lay.partition(":")
    ps = ppn.split(",")
    return int(nh), (ps[0] if len(set(ps)) == 1 else "ragged")
layouts = sorted({k[1] for k in med}, key=lambda l: (shape(l)[1] != "1", shape(l)[0]))
ones = [l for l in layouts if shape(l)[1] == "1"]
rows = ["", "## Growth with the hosts", "",
        "Medians of the rounds, µs; in parentheses ferroshmem / MPI (target ≤ 0.75; init ≤ 1.0).", "",
        "| operation | bytes | " + " | ".join(f"{shape(l)[0]}×{shape(l)[1]}" for l in layouts) + " | growth 8→64 hosts (×1) |",
        "| --- | ---: | " + " | ".join("---:" for _ in layouts) + " | ---: |"]
ops = [("init", 0), ("barrier_all", 0), ("team_sync", 0)] + [(o, s) for o in ("broadcast", "reduce_sum_float", "fcollect", "alltoall") for s in (8, 4096)]
ops += [("split_strided_destroy", 0), ("split_2d_destroy", 0)]
rows_of = [("ferroshmem_team" if op.startswith("split") else "ferroshmem", op, size) for op, size in ops]
rows_of += [("floor", "barrier_all", 0), ("floor", "reduce_sum_float", 8)]
for impl, op, size in rows_of:
    cells = []
    for l in layouts:
        f, m = med.get((impl, l, op, size)), med.get(("mpi", l, op, size))
        if f is None:
            cells.append("-")
            continue
        txt = f"{f:.0f}" if f >= 100 else f"{f:.1f}"
        if m:
            txt += f" ({f / m:.2f})"
        cells.append(txt)
    lo = [l for l in ones if shape(l)[0] == 8]
    hi = [l for l in ones if shape(l)[0] == 64]
    growth = "-"
    if lo and hi and med.get((impl, lo[0], op, size)) and med.get((impl, hi[0], op, size)):
        growth = f"{med[(impl, hi[0], op, size)] / med[(impl, lo[0], op, size)]:.2f}"
        mlo, mhi = med.get(("mpi", lo[0], op, size)), med.get(("mpi", hi[0], op, size))
        if mlo and mhi:
            growth += f" (MPI {mhi / mlo:.2f})"
    cells.append(growth)
    title = f"{op}, floor (no library; in parentheses floor / MPI)" if impl == "floor" else op
    rows.append(f"| {title} | {size} | " + " | ".join(cells) + " |")
text = "\n".join(rows) + "\n"
with open(f"{out}/multihost-scale.md", "a") as fh:
    fh.write(text)
print(text)
try:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
except ImportError:
    print("matplotlib not installed: no plot", file=sys.stderr)
    sys.exit(0)
plot = [("init", 0), ("barrier_all", 0), ("broadcast", 8), ("reduce_sum_float", 8), ("fcollect", 4096), ("alltoall", 8)]
fig, axes = plt.subplots(1, len(plot), figsize=(20, 4.2))
for ax, (op, size) in zip(axes, plot):
    for impl, color in (("ferroshmem", "tab:blue"), ("mpi", "tab:orange"), ("floor", "tab:gray")):
        pts = [(shape(l)[0], med[(impl, l, op, size)]) for l in ones if (impl, l, op, size) in med]
        if pts:
            ax.plot([p[0] for p in pts], [p[1] for p in pts], "-o", color=color, label=impl)
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_title(f"{op} {size} B" if size else op)
    ax.set_xlabel("hosts (1 PE each)")
    ax.grid(True, which="both", alpha=0.3)
axes[0].set_ylabel("µs (median)")
axes[1].legend()  # the barrier: ferroshmem, MPI and the floor
fig.tight_layout()
fig.savefig(f"{out}/multihost-scale-hosts.png", dpi=100)
print(f"wrote {out}/multihost-scale-hosts.png")
PY
