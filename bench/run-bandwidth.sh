#!/bin/sh
# Builds bench/c/put_bw.c with ferroshmem's oshcc and with Open MPI's (Debian packages
# openmpi-bin libopenmpi-dev) and runs both at 2 and 8 PEs, alternating, ROUNDS times (default
# 3), in this one session; each run also times a plain memcpy of the same sizes in the same
# process. Writes
#   target/bench/bandwidth.md        (medians of the rounds: put and get of both libraries,
#                                     memcpy, and the ratios the targets are about)
#   target/bench/bandwidth-raw.txt   (every "bw" line of every run)
#   target/bench/bandwidth.png       (bandwidth against size, if matplotlib is there)
# Usage: bench/run-bandwidth.sh [max_bytes]   (default 64 MiB). Run from the repository root
# after `cargo build --release`.
set -eu
MAX=${1:-67108864}
ROUNDS=${ROUNDS:-3}
OUT=target/bench
mkdir -p "$OUT"
target/release/oshcc -O2 bench/c/put_bw.c -o "$OUT/put_bw_ferro"
/usr/bin/oshcc -O2 bench/c/put_bw.c -o "$OUT/put_bw_ompi"
RAW="$OUT/bandwidth-raw.txt"
: > "$RAW"
for r in $(seq 1 "$ROUNDS"); do
    for n in 2 8; do
        SHMEM_SYMMETRIC_SIZE=1G target/release/oshrun -n "$n" "$OUT/put_bw_ferro" "$MAX" |
            sed 's/^bw /ferroshmem /' >> "$RAW"
        # Open MPI's OSHMEM crashes at exit after printing: keep its output, ignore its status.
        OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_osc='^rdma' SHMEM_SYMMETRIC_SIZE=1G \
            timeout 600 /usr/bin/oshrun -np "$n" --oversubscribe "$OUT/put_bw_ompi" "$MAX" 2>/dev/null |
            grep '^bw ' | sed 's/^bw /openmpi /' >> "$RAW" || true
    done
done
python3 - "$RAW" "$OUT" <<'EOF'
import sys, statistics, collections
raw, out = sys.argv[1], sys.argv[2]
d = collections.defaultdict(list)
for line in open(raw):
    impl, what, size, n, gbs = line.split()
    # memcpy is timed in both libraries' runs: it is the machine's, keep all its figures.
    key = ("memcpy" if what == "memcpy" else impl, what, int(size), int(n))
    d[key].append(float(gbs))
med = {k: statistics.median(v) for k, v in d.items()}
rows = ["| PEs | bytes | memcpy GB/s | ferroshmem put | Open MPI put | put / memcpy | put / Open MPI | ferroshmem get | Open MPI get | get / memcpy | get / Open MPI |",
        "| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
for n in sorted({k[3] for k in med}):
    for size in sorted({k[2] for k in med if k[3] == n}):
        m = med.get(("memcpy", "memcpy", size, n))
        fp, op = med.get(("ferroshmem", "put", size, n)), med.get(("openmpi", "put", size, n))
        fg, og = med.get(("ferroshmem", "get", size, n)), med.get(("openmpi", "get", size, n))
        f = lambda v: f"{v:.1f}" if v is not None else "-"
        r = lambda a, b: f"{a / b:.2f}" if a is not None and b else "-"
        rows.append(f"| {n} | {size} | {f(m)} | {f(fp)} | {f(op)} | {r(fp, m)} | {r(fp, op)} | {f(fg)} | {f(og)} | {r(fg, m)} | {r(fg, og)} |")
open(f"{out}/bandwidth.md", "w").write("\n".join(rows) + "\n")
print("\n".join(rows))
try:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
except ImportError:
    print("matplotlib not installed: no plot", file=sys.stderr)
    sys.exit(0)
fig, axes = plt.subplots(1, 2, figsize=(13, 4.5), sharey=True)
for ax, what in zip(axes, ("put", "get")):
    for impl, style in (("ferroshmem", "-o"), ("openmpi", "--s"), ("memcpy", ":^")):
        for n in (2, 8):
            w = "memcpy" if impl == "memcpy" else what
            pts = sorted((s, v) for (i, x, s, m), v in med.items() if i == impl and x == w and m == n)
            if pts:
                ax.plot([p[0] for p in pts], [p[1] for p in pts], style, label=f"{impl} {n} PEs")
    ax.set_xscale("log", base=2)
    ax.set_title(what)
    ax.set_xlabel("bytes")
    ax.grid(True, which="both", alpha=0.3)
axes[0].set_ylabel("bandwidth (GB/s, median)")
axes[-1].legend(fontsize=7)
fig.tight_layout()
fig.savefig(f"{out}/bandwidth.png", dpi=110)
print(f"wrote {out}/bandwidth.png")
EOF
