#!/usr/bin/env bash
# Collectives across simulated hosts (network namespaces, tests/multihost/with-hosts.sh; root
# needed): ferroshmem's team collectives against Open MPI's MPI collectives and Open MPI's
# OSHMEM, in one run, alternating ROUNDS times (default 3) and keeping each figure's median.
#
# For each layout (default 2 hosts x 2 PEs "2:2,2" and 4 hosts x 2 PEs "4:2,2,2,2"), each round
# runs these jobs, each in hosts of its own (a fresh with-hosts.sh: nothing one job leaves
# running can slow the next), in an order rotated from round to round:
#   ferroshmem       bench/c/coll_bench.c built with target/release/oshcc, run by
#                    `target/release/oshrun --host`, UCX forced onto TCP between the hosts
#                    (UCX_TLS=tcp,self UCX_NET_DEVICES=eth0); sizes 8 B to 64 KiB
#   ferroshmem_team  bench/c/team_create_bench.c (split_strided + destroy, split_2d + destroy,
#                    team_sync, barrier_all), same launch
#   mpi              bench/c/mpi_coll_bench.c built with mpicc (Barrier, Bcast, Allreduce,
#                    Allgather, Alltoall at 8 B, 512 B, 4 KiB, 64 KiB), `mpirun $FSH_MPIRUN_ARGS`
#                    (--mca btl tcp,vader,self, btl_tcp_if_include the hosts' subnet)
#   floor            bench/c/net_floor.c built with mpicc, same mpirun: no library in the timed
#                    loop, a barrier and an 8-byte sum over plain TCP sockets between the
#                    ranks (two algorithms each, sleeping or polling waits): what the machine
#                    allows in these hosts (issue 28's targets are judged against it)
#   oshmem           bench/c/coll_bench.c built with /usr/bin/oshcc (Open MPI's OSHMEM, the
#                    OpenSHMEM 1.4 active-set forms), same mpirun, under OSHM_LIMIT: what it
#                    printed is kept, what it did not print is reported as not finished
# Both Open MPI jobs run with `--mca mpi_yield_when_idle 1`: the simulated hosts declare 2 slots
# each, so Open MPI does not know that all their PEs share this machine's 2 cores and would
# busy-poll (in one trial, an MPI_Barrier across 2 x 2: 8 ms so, 83 us yielding); Open MPI sets it
# itself when it knows that it oversubscribes.
# Every job runs under `timeout` (JOB_LIMIT, OSHM_LIMIT); with-hosts.sh removes the hosts and
# whatever still runs in them after each job.
# The simulated hosts get a share of the machine's CPUs each (FSH_HOST_CPUS=split, see
# with-hosts.sh: across 2 hosts one CPU each, across 4 hosts hosts 1 and 3 on CPU 0, 2 and 4
# on CPU 1), as real hosts have cores of their own; FSH_HOST_CPUS=shared lets the kernel place
# every PE of every host on either CPU (the runs before 2026-11-26). Every
# implementation runs in the same kind of hosts.
#
# Writes, under target/bench/:
#   multihost-coll.md            the tables (the slowest PE's shmem_init or MPI_Init: "init") (medians of the rounds; ratio ferroshmem / MPI and
#                                its target: <= 0.75 up to 4 KiB, <= 1.0 above; split + destroy
#                                against barrier_all, target <= 2), the jobs' outcomes
#   multihost-coll-raw.txt       every figure of every job, and one status line per job
#   multihost-coll-log.txt       the jobs' stderr
#   multihost-coll-latency.png   latency against size per operation, one line per
#                                implementation and layout (if matplotlib is installed)
# Usage (repository root or anywhere, after `cargo build --release`):
#   bench/run-multihost-coll.sh
# Environment: ROUNDS (3), REPS (5: operations per batch, 15 batches per figure), TEAM_REPS
# (10), JOB_LIMIT (300 s per ferroshmem or MPI job), OSHM_LIMIT (90 s per OSHMEM job),
# LAYOUTS ("2:2,2 4:2,2,2,2"), IMPLS ("ferroshmem ferroshmem_team mpi oshmem"), FSH_HOST_CPUS
# (split).
# Exit status: 0; 77 if hosts cannot be simulated here; non-zero if a build step failed.
set -eu
ROUNDS=${ROUNDS:-3}
REPS=${REPS:-5}
TEAM_REPS=${TEAM_REPS:-10}
JOB_LIMIT=${JOB_LIMIT:-300}
OSHM_LIMIT=${OSHM_LIMIT:-90}
LAYOUTS=${LAYOUTS:-"2:2,2 4:2,2,2,2"}
IMPLS=${IMPLS:-"ferroshmem ferroshmem_team mpi oshmem"}
export FSH_HOST_CPUS=${FSH_HOST_CPUS:-split}
MPI_SIZES=${MPI_SIZES:-"8 512 4096 65536"}
MAX_BYTES=${MAX_BYTES:-65536}
# The output files: target/bench/$NAME.md, $NAME-raw.txt, $NAME-log.txt, $NAME-latency.png.
NAME=${NAME:-multihost-coll}
here=$(cd "$(dirname "$0")/.." && pwd)
OUT=$here/target/bench

# ------------------------------------------------------------ inner mode
# run-multihost-coll.sh --inner IMPL LAYOUT ROUND: runs inside with-hosts.sh, prints
#   IMPL LAYOUT NAME BYTES NPES MICROSECONDS    for each figure
#   status IMPL LAYOUT ROUND STATE SECONDS LOAD1 LINES    once (STATE: ok, timeout, exit=N)
if [ "${1:-}" = "--inner" ]; then
    impl=$2 layout=$3 round=$4
    args=$(echo " $FSH_MPIRUN_ARGS" | sed 's/ --host [^ ]*//')
    n=$(echo "$FSH_HOSTLIST" | tr ',' '\n' | cut -d: -f2 | paste -sd+ | bc)
    ompi_args="$FSH_MPIRUN_ARGS --mca mpi_yield_when_idle 1"
    case " $FSH_MPIRUN_ARGS " in
        *" --mca btl tcp,vader,self "*) ;;
        *) ompi_args="$ompi_args --mca btl tcp,vader,self" ;;
    esac
    limit=$JOB_LIMIT
    case $impl in
        ferroshmem)
            cmd=(env OSHRUN_MPIRUN_ARGS="$args" UCX_TLS=tcp,self UCX_NET_DEVICES=eth0
                "$here/target/release/oshrun" -n "$n" --host "$FSH_HOSTLIST" "$OUT/coll_bench_ferro" "$MAX_BYTES" "$REPS") ;;
        ferroshmem_team)
            cmd=(env OSHRUN_MPIRUN_ARGS="$args" UCX_TLS=tcp,self UCX_NET_DEVICES=eth0
                "$here/target/release/oshrun" -n "$n" --host "$FSH_HOSTLIST" "$OUT/team_create_bench" "$TEAM_REPS") ;;
        mpi)
            # shellcheck disable=SC2206
            cmd=(mpirun $ompi_args -np "$n" "$OUT/mpi_coll_bench" "$REPS" $MPI_SIZES) ;;
        floor)
            # shellcheck disable=SC2206
            cmd=(mpirun $ompi_args -np "$n" "$OUT/net_floor" "$REPS") ;;
        oshmem)
            # shellcheck disable=SC2206
            cmd=(mpirun $ompi_args -np "$n" "$OUT/coll_bench_oshmem" "$MAX_BYTES" "$REPS")
            limit=$OSHM_LIMIT ;;
        *) echo "run-multihost-coll: unknown implementation $impl" >&2; exit 2 ;;
    esac
    tmp=$(mktemp)
    load=$(cut -d' ' -f1 /proc/loadavg)
    echo "=== $impl $layout round $round: ${cmd[*]}" >&2
    t0=$(date +%s.%N)
    set +e
    timeout -k 10 "$limit" "${cmd[@]}" </dev/null >"$tmp"
    rc=$?
    set -e
    secs=$(echo "$(date +%s.%N) - $t0" | bc)
    case $rc in
        0) state=ok ;;
        124 | 137) state=timeout ;;
        *) state=exit=$rc ;;
    esac
    lines=$(grep -c '^coll ' "$tmp" || true)
    grep '^coll ' "$tmp" | sed "s/^coll /$impl $layout /" || true
    printf 'status %s %s %s %s %.1f %s %s\n' "$impl" "$layout" "$round" "$state" "$secs" "$load" "$lines"
    rm -f "$tmp"
    exit 0
fi

report() { # report RAW: the tables and the plot from a raw file, next to it
    python3 - "$1" "$(dirname "$1")" "$OSHM_LIMIT" "$JOB_LIMIT" "$MPI_SIZES" "$NAME" <<'PY'
import sys, statistics, collections
raw, out, oshm_limit, job_limit, mpi_sizes, name = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5], sys.argv[6]
table_sizes = [int(s) for s in mpi_sizes.split()]
vals = collections.defaultdict(list)
status = collections.defaultdict(list)  # (impl, layout) -> [(round, state, secs, load, lines)]
header = ""
layouts = []
for line in open(raw):
    f = line.split()
    if not f:
        continue
    if f[0] == "run":
        header = line.strip()
        kv = dict(zip(f[1::2], f[2::2]))  # the limits of the run that wrote the file
        oshm_limit = int(kv.get("oshm_limit", oshm_limit))
        job_limit = int(kv.get("job_limit", job_limit))
    elif f[0] == "status":
        status[(f[1], f[2])].append((f[3], f[4], f[5], f[6], f[7]))
        if f[2] not in layouts:
            layouts.append(f[2])
    elif len(f) == 6:
        vals[(f[0], f[1], f[2], int(f[3]))].append(float(f[5]))
med = {k: statistics.median(v) for k, v in vals.items()}
npes = {}
for line in open(raw):
    f = line.split()
    if len(f) == 6 and f[0] != "status":
        npes[f[1]] = int(f[4])
for lay in layouts:
    if lay not in npes:
        nh, _, ppn = lay.partition(":")
        npes[lay] = sum(int(p) for p in ppn.split(",")) if ppn else 2 * int(nh)

def label(lay):
    nh, _, ppn = lay.partition(":")
    ps = ppn.split(",") if ppn else ["2"] * int(nh)
    return f"{nh}×{ps[0]}" if len(set(ps)) == 1 else lay

def us(x):
    return f"{x:.0f}" if x >= 100 else f"{x:.1f}"

def cell(impl, lay, name, size):
    """Median, with the count of runs when some did not print it, or why there is none."""
    v = vals.get((impl, lay, name, size))
    st = status.get((impl, lay), [])
    runs = len(st)
    limit = oshm_limit if impl == "oshmem" else job_limit
    timeouts = sum(1 for s in st if s[1] == "timeout")
    if v:
        txt = us(statistics.median(v))
        if len(v) > 1:
            txt += f" ({us(min(v))}-{us(max(v))})"
        if len(v) < runs:
            txt += f" ({len(v)} of {runs} runs; " + (f"the others did not finish within {limit} s)" if timeouts else "the others printed nothing)")
        return txt
    if not st:
        return "not run"
    if timeouts:
        return f"did not finish within {limit} s" + (f" ({timeouts} of {runs} runs)" if timeouts < runs else "")
    states = sorted({s[1] for s in st})
    return "printed nothing (" + ", ".join(states) + ")"

ops = ["init", "barrier_all", "team_sync", "broadcast", "reduce_sum_float", "fcollect", "alltoall"]
rows = [header.replace("run ", "Run ", 1), "",
        "Medians of the rounds, in parentheses the lowest and highest round.", "",
        "| operation | bytes | PEs (hosts × PEs) | ferroshmem µs | MPI µs | OSHMEM µs | ferroshmem / MPI | target | met? |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | :---: |"]
met_count = [0, 0]
for lay in layouts:
    for op in ops:
        for size in ([0] if op in ("init", "barrier_all", "team_sync") else table_sizes):
            f, m = med.get(("ferroshmem", lay, op, size)), med.get(("mpi", lay, op, size))
            target = 1.0 if op == "init" else 0.75 if size <= 4096 else 1.0
            ratio, met = "-", "-"
            if f is not None and m is not None and m > 0:
                ratio = f"{f / m:.2f}"
                ok = f / m <= target
                met = "yes" if ok else "no"
                met_count[0] += ok
                met_count[1] += 1
            rows.append(f"| {op} | {size} | {npes[lay]} ({label(lay)}) | {cell('ferroshmem', lay, op, size)} | "
                        f"{cell('mpi', lay, op, size)} | {cell('oshmem', lay, op, size)} | {ratio} | ≤ {target:g} | {met} |")
rows.append("")
rows.append(f"Targets met: {met_count[0]} of {met_count[1]} rows.")
rows.append("")
rows.append("Team creation (bench/c/team_create_bench.c, ferroshmem; target: split + destroy ≤ 2 × barrier_all across the same hosts):")
rows.append("")
rows.append("| PEs (hosts × PEs) | barrier_all µs | team_sync µs | split_strided + destroy µs | / barrier_all | split_2d + destroy µs | / barrier_all | target | met? |")
rows.append("| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | :---: |")
ratio_lines = []
for lay in layouts:
    g = lambda name: med.get(("ferroshmem_team", lay, name, 0))
    b, s, ss, s2 = g("barrier_all"), g("team_sync"), g("split_strided_destroy"), g("split_2d_destroy")
    fmt = lambda name: cell("ferroshmem_team", lay, name, 0)
    r1 = f"{ss / b:.2f}" if ss and b else "-"
    r2 = f"{s2 / b:.2f}" if s2 and b else "-"
    met = "-" if r1 == "-" else ("yes" if ss / b <= 2 else "no")
    rows.append(f"| {npes[lay]} ({label(lay)}) | {fmt('barrier_all')} | {fmt('team_sync')} | {fmt('split_strided_destroy')} | {r1} | "
                f"{fmt('split_2d_destroy')} | {r2} | ≤ 2 | {met} |")
    if r1 != "-":
        ratio_lines.append(f"split_strided + destroy / barrier_all across {label(lay)}: {r1} (target ≤ 2: {met}); "
                           f"split_2d + destroy / barrier_all: {r2}")
rows.append("")
rows += ratio_lines
rows.append("")
rows.append("Jobs (state per round, seconds, 1-minute load average of the machine when the job started):")
rows.append("")
rows.append("| implementation | layout | rounds |")
rows.append("| --- | --- | --- |")
for (impl, lay), st in sorted(status.items(), key=lambda kv: (layouts.index(kv[0][1]), kv[0][0])):
    rows.append(f"| {impl} | {label(lay)} | " + "; ".join(f"{s[1]} {s[2]} s load {s[3]}" + (f" ({s[4]} figures)" if s[1] != "ok" else "") for s in st) + " |")
open(f"{out}/{name}.md", "w").write("\n".join(rows) + "\n")
print("\n".join(rows))

try:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
except ImportError:
    print("matplotlib not installed: no plot", file=sys.stderr)
    sys.exit(0)
plot_ops = ["broadcast", "reduce_sum_float", "fcollect", "alltoall"]
colors = {"ferroshmem": "tab:blue", "mpi": "tab:orange", "oshmem": "tab:green"}
names = {"ferroshmem": "ferroshmem", "mpi": "Open MPI (MPI)", "oshmem": "Open MPI OSHMEM"}
styles = ["-o", "--s", ":^", "-.v"]
fig, axes = plt.subplots(1, 4, figsize=(18, 4.8), sharey=True)
for ax, op in zip(axes, plot_ops):
    for impl in ("ferroshmem", "mpi", "oshmem"):
        for li, lay in enumerate(layouts):
            pts = sorted((s, v) for (i, l, name, s), v in med.items() if i == impl and l == lay and name == op)
            if pts:
                ax.plot([p[0] for p in pts], [p[1] for p in pts], styles[li % len(styles)], color=colors[impl],
                        label=f"{names[impl]} {label(lay)}")
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_title(op)
    ax.set_xlabel("bytes per PE")
    ax.grid(True, which="both", alpha=0.3)
axes[0].set_ylabel("latency (µs, median), simulated hosts")
axes[-1].legend(fontsize=7)
fig.tight_layout()
fig.savefig(f"{out}/{name}-latency.png", dpi=110)
print(f"wrote {out}/{name}-latency.png")
PY
}

# ------------------------------------------------------------ outer mode
if [ "${1:-}" = "--report" ]; then report "$2"; exit 0; fi
[ "$(id -u)" = 0 ] || { echo "run-multihost-coll: needs root (network namespaces)" >&2; exit 77; }
for c in mpicc mpirun bc python3; do
    command -v "$c" >/dev/null 2>&1 || { echo "run-multihost-coll: '$c' not found" >&2; exit 77; }
done
[ -x "$here/target/release/oshcc" ] && [ -x "$here/target/release/oshrun" ] ||
    { echo "run-multihost-coll: run 'cargo build --release' first" >&2; exit 1; }
mkdir -p "$OUT"
"$here/target/release/oshcc" -O2 "$here/bench/c/coll_bench.c" -o "$OUT/coll_bench_ferro"
"$here/target/release/oshcc" -O2 "$here/bench/c/team_create_bench.c" -o "$OUT/team_create_bench"
mpicc -O2 "$here/bench/c/mpi_coll_bench.c" -o "$OUT/mpi_coll_bench"
mpicc -O2 "$here/bench/c/net_floor.c" -o "$OUT/net_floor"
if [ -x /usr/bin/oshcc ]; then
    /usr/bin/oshcc -O2 "$here/bench/c/coll_bench.c" -o "$OUT/coll_bench_oshmem"
else
    echo "run-multihost-coll: /usr/bin/oshcc not found: no OSHMEM column" >&2
    IMPLS=$(echo " $IMPLS " | sed 's/ oshmem / /')
fi
RAW=$OUT/$NAME-raw.txt
LOG=$OUT/$NAME-log.txt
: >"$RAW"
: >"$LOG"
commit=$(git -C "$here" rev-parse --short HEAD 2>/dev/null || echo unknown)
dirty=$(git -C "$here" status --porcelain --untracked-files=no 2>/dev/null | grep -q . && echo " (with uncommitted changes)" || true)
echo "run $(date -u +%Y-%m-%dT%H:%M:%SZ) commit $commit$dirty rounds $ROUNDS reps $REPS team_reps $TEAM_REPS job_limit $JOB_LIMIT oshm_limit $OSHM_LIMIT cores $(nproc) host_cpus $FSH_HOST_CPUS" >>"$RAW"

read -r -a impls <<<"$IMPLS"
for r in $(seq 1 "$ROUNDS"); do
    # Rotate the order of the implementations from round to round.
    k=$(((r - 1) % ${#impls[@]}))
    order=("${impls[@]:k}" "${impls[@]:0:k}")
    for layout in $LAYOUTS; do
        for impl in "${order[@]}"; do
            limit=$JOB_LIMIT
            [ "$impl" = oshmem ] && limit=$OSHM_LIMIT
            echo "round $r/$ROUNDS  $layout  $impl" >&2
            set +e
            # with-hosts.sh itself under a time limit too (it is stopped by SIGTERM, and cleans up).
            timeout -k 30 $((limit + 60)) "$here/tests/multihost/with-hosts.sh" "$layout" -- \
                "$0" --inner "$impl" "$layout" "$r" >>"$RAW" 2>>"$LOG"
            rc=$?
            set -e
            if [ $rc = 77 ]; then
                echo "run-multihost-coll: hosts cannot be simulated here (see $LOG)" >&2
                exit 77
            fi
            [ $rc = 0 ] || echo "status $impl $layout $r with-hosts=$rc 0 - 0" >>"$RAW"
        done
    done
done
report "$RAW"
