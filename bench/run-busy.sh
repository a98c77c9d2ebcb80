#!/bin/sh
# Speed on a busy machine (issue 31): bench/c/busy_bench.c built with ferroshmem's oshcc and
# with Open MPI's (Debian packages openmpi-bin libopenmpi-dev), run at 2 and 4 PEs with 0, 2
# and 4 busy loops (`while :; do :; done` in sh) competing for the cores, the two libraries
# alternating (order rotated from round to round), ROUNDS rounds. Writes
#   target/bench/busy.md        per figure, PE count and load: each library's median of the
#                               rounds' medians (us), ferroshmem / Open MPI, and ferroshmem's
#                               slowest batch of any round against its quiet median (issue 31's
#                               targets: ratio <= 1.5, slowest <= 20 x quiet)
#   target/bench/busy-raw.txt   every line of every run ("IMPL LOAD busy NAME NPES MEDIAN WORST";
#                               a job that did not end within JOB_LIMIT gives "IMPL LOAD timeout N")
#   target/bench/busy.png       each figure against the busy loops, both libraries at each PE
#                               count (if a python3 with matplotlib is found: Debian's
#                               python3-matplotlib)
# Usage (after `cargo build --release`): bench/run-busy.sh; bench/run-busy.sh --report writes the
# table and the plot again from the raw file.
# Environment: ROUNDS (3), LOADS ("0 2 4"), PES ("2 4"), SCALE (1: operations per batch x it),
# JOB_LIMIT (120 s).
set -eu
ROUNDS=${ROUNDS:-3}
LOADS=${LOADS:-"0 2 4"}
PES=${PES:-"2 4"}
SCALE=${SCALE:-1}
JOB_LIMIT=${JOB_LIMIT:-120}
OUT=target/bench
RAW="$OUT/busy-raw.txt"
mkdir -p "$OUT"
. "$(dirname "$0")/plot-python.sh"
if [ "${1:-}" != "--report" ]; then
target/release/oshcc -O2 bench/c/busy_bench.c -o "$OUT/busy_ferro"
/usr/bin/oshcc -O2 bench/c/busy_bench.c -o "$OUT/busy_ompi"
: > "$RAW"
. "$(dirname "$0")/busy-loops.sh"
run_job() { # IMPL N LOAD
    case $1 in
        ferroshmem) out=$(timeout "$JOB_LIMIT" target/release/oshrun -n "$2" "$OUT/busy_ferro" "$SCALE" 2>/dev/null) || true ;;
        openmpi) out=$(OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_osc='^rdma' \
            timeout "$JOB_LIMIT" /usr/bin/oshrun -np "$2" --oversubscribe "$OUT/busy_ompi" "$SCALE" 2>/dev/null) || true ;;
    esac
    lines=$(printf '%s\n' "$out" | grep '^busy ' || true)
    if [ "$(printf '%s\n' "$lines" | grep -c '^busy ')" -lt 5 ]; then
        echo "$1 $3 timeout $2" >> "$RAW"
    fi
    printf '%s\n' "$lines" | grep '^busy ' | sed "s/^/$1 $3 /" >> "$RAW" || true
}
for load in $LOADS; do
    start_busy "$load"
    for r in $(seq 1 "$ROUNDS"); do
        if [ $((r % 2)) = 1 ]; then order="ferroshmem openmpi"; else order="openmpi ferroshmem"; fi
        for n in $PES; do
            for impl in $order; do
                run_job "$impl" "$n" "$load"
            done
        done
    done
done
stop_busy
fi
"$PY" - "$RAW" "$OUT/busy.md" "$OUT/busy.png" <<'EOF'
import sys, statistics, collections
raw, out = sys.argv[1], sys.argv[2]
med, worst, timeouts = collections.defaultdict(list), collections.defaultdict(float), collections.Counter()
for line in open(raw):
    f = line.split()
    if f[2] == "timeout":
        timeouts[(f[0], int(f[1]), int(f[3]))] += 1
        continue
    impl, load, name, n, m, w = f[0], int(f[1]), f[3], int(f[4]), float(f[5]), float(f[6])
    med[(impl, load, name, n)].append(m)
    worst[(impl, load, name, n)] = max(worst[(impl, load, name, n)], w)
names = ["barrier_all", "team_sync", "pingpong", "fcollect8", "put_test"]
loads = sorted({k[1] for k in med} | {k[1] for k in timeouts})
pes = sorted({k[3] for k in med} | {k[2] for k in timeouts})
rows = ["| figure | PEs | busy loops | ferroshmem (us) | Open MPI (us) | ratio | ferroshmem slowest batch / quiet |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: |"]
for name in names:
    for n in pes:
        quiet = med.get(("ferroshmem", 0, name, n))
        for load in loads:
            f, o = med.get(("ferroshmem", load, name, n)), med.get(("openmpi", load, name, n))
            fm = statistics.median(f) if f else None
            om = statistics.median(o) if o else None
            cell = lambda v, impl: (f"{v:.3f}" if v is not None else "-") + (
                f" ({timeouts[(impl, load, n)]} timed out)" if timeouts[(impl, load, n)] else "")
            ratio = f"{fm / om:.2f}" if fm and om else "-"
            slow = f"{worst[('ferroshmem', load, name, n)] / statistics.median(quiet):.1f}" if f and quiet else "-"
            rows.append(f"| {name} | {n} | {load} | {cell(fm, 'ferroshmem')} | {cell(om, 'openmpi')} | {ratio} | {slow} |")
text = "\n".join(rows) + "\n"
open(out, "w").write(text)
print(text)
try:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
except ImportError:
    print("matplotlib not installed: no plot", file=sys.stderr)
    sys.exit(0)
fig, axes = plt.subplots(1, len(names), figsize=(20, 4.2))
for ax, name in zip(axes, names):
    for impl, color in (("ferroshmem", "tab:blue"), ("openmpi", "tab:orange")):
        for n, style in zip(pes, ("-o", "--s", ":^")):
            pts = [(load, statistics.median(med[(impl, load, name, n)])) for load in loads if med.get((impl, load, name, n))]
            if pts:
                ax.plot([p[0] for p in pts], [p[1] for p in pts], style, color=color, label=f"{impl} {n} PEs")
    ax.set_yscale("log")
    ax.set_xticks(loads)
    ax.set_title(name)
    ax.set_xlabel("busy loops")
    ax.grid(True, which="both", alpha=0.3)
axes[0].set_ylabel("us (median of the rounds)")
axes[0].legend(fontsize=8)
fig.tight_layout()
fig.savefig(sys.argv[3], dpi=100)
print(f"wrote {sys.argv[3]}", file=sys.stderr)
EOF
