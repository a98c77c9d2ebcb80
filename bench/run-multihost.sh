#!/usr/bin/env bash
# Across two simulated hosts (network namespaces, tests/multihost/with-hosts.sh; root needed),
# in one run and alternating ROUNDS times (default 3), keeping each figure's median:
#   - ucx_perftest between the two hosts (tests/multihost/ucx-perftest.sh: ucp_put_lat,
#     ucp_get, ucp_fadd, ucp_put_bw of 1 MiB), UCX forced onto TCP as for the PEs;
#   - bench/c/net_bench.c built with ferroshmem's oshcc, 1 PE per host and 2 PEs per host;
#   - the same program built with Open MPI's OSHMEM (Debian), under a time limit (OSHM_LIMIT,
#     default 60 s): it reports what it printed, or that it printed nothing.
# Writes target/bench/net-comparison.md and target/bench/net-raw.txt.
# Usage: bench/run-multihost.sh [iterations]   (default 1000), after `cargo build --release`.
# Each simulated host gets its own share of the CPUs (FSH_HOST_CPUS=split, as real hosts have
# cores of their own); FSH_HOST_CPUS=shared lets them share every CPU.
set -eu
export FSH_HOST_CPUS=${FSH_HOST_CPUS:-split}
ROUNDS=${ROUNDS:-3}
OSHM_LIMIT=${OSHM_LIMIT:-60}
here=$(cd "$(dirname "$0")/.." && pwd)
OUT=$here/target/bench
# Runs inside with-hosts.sh: $1 = what to run (perftest | ferro | ompi), $2 = PEs.
if [ "${FSH_RUNID:-}" != "" ] && [ "${NET_BENCH_INNER:-}" != "" ]; then
    args=$(echo " $FSH_MPIRUN_ARGS" | sed 's/ --host [^ ]*//')
    n=$(echo "$FSH_HOSTLIST" | tr ',' '\n' | cut -d: -f2 | paste -sd+ | bc)
    case $1 in
        ferro)
            OSHRUN_MPIRUN_ARGS="$args" UCX_TLS=tcp,self UCX_NET_DEVICES=eth0 \
                timeout 300 "$here/target/release/oshrun" -n "$n" --host "$FSH_HOSTLIST" "$OUT/net_bench_ferro" "$NET_BENCH_ITERS" |
                grep '^net ' | sed "s/^net /ferroshmem $n /" ;;
        ompi)
            # shellcheck disable=SC2086
            out=$(timeout "$OSHM_LIMIT" mpirun $FSH_MPIRUN_ARGS -np "$n" -x UCX_TLS=tcp,self -x UCX_NET_DEVICES=eth0 \
                "$OUT/net_bench_ompi" "$NET_BENCH_ITERS" 2>/dev/null | grep '^net ' || true)
            if [ -z "$out" ]; then echo "openmpi $n nothing_printed_within_s $OSHM_LIMIT"; else echo "$out" | sed "s/^net /openmpi $n /"; fi ;;
        perftest)
            "$here/tests/multihost/ucx-perftest.sh" | sed 's/^/perftest /' ;;
    esac
    exit 0
fi

export NET_BENCH_ITERS=${1:-1000}
mkdir -p "$OUT"
"$here/target/release/oshcc" -O2 "$here/bench/c/net_bench.c" -o "$OUT/net_bench_ferro"
if [ -x /usr/bin/oshcc ]; then /usr/bin/oshcc -O2 "$here/bench/c/net_bench.c" -o "$OUT/net_bench_ompi"; fi
RAW=$OUT/net-raw.txt
: > "$RAW"

for r in $(seq 1 "$ROUNDS"); do
    NET_BENCH_INNER=1 "$here/tests/multihost/with-hosts.sh" 2:1,1 -- "$0" perftest 2 >> "$RAW"
    NET_BENCH_INNER=1 "$here/tests/multihost/with-hosts.sh" 2:1,1 -- "$0" ferro 2 >> "$RAW"
    NET_BENCH_INNER=1 "$here/tests/multihost/with-hosts.sh" 2:2,2 -- "$0" ferro 4 >> "$RAW"
    if [ -x "$OUT/net_bench_ompi" ] && [ "$r" = 1 ]; then
        NET_BENCH_INNER=1 "$here/tests/multihost/with-hosts.sh" 2:1,1 -- "$0" ompi 2 >> "$RAW"
        NET_BENCH_INNER=1 "$here/tests/multihost/with-hosts.sh" 2:2,2 -- "$0" ompi 4 >> "$RAW"
    fi
done
python3 - "$RAW" "$OUT/net-comparison.md" <<'PY'
import sys, statistics, collections
raw, out = sys.argv[1], sys.argv[2]
vals = collections.defaultdict(list)
notes = []
for line in open(raw):
    f = line.split()
    if f[0] == "perftest":
        # perftest ucx_perftest NAME key=value ...
        kv = dict(x.split("=") for x in f[3:] if "=" in x)
        v = kv.get("typical_us") or kv.get("bandwidth_MBps")
        if v: vals[("perftest", f[2])].append(float(v))
    elif f[0] in ("ferroshmem", "openmpi") and len(f) == 4:
        try: vals[(f[0] + " " + f[1], f[2])].append(float(f[3]))
        except ValueError: notes.append(line.strip())
    else:
        notes.append(line.strip())
med = {k: statistics.median(v) for k, v in vals.items()}
rows = [
    ("put latency (ping-pong, half round trip) us", "ucp_put_lat", "put_pingpong_typical_us", "put_pingpong_us"),
    ("put 8 B + quiet us", "ucp_put_lat", "put8_quiet_us_typical", "put8_quiet_us"),
    ("get 8 B us", "ucp_get", "get8_us_typical", "get8_us"),
    ("fetch-add us", "ucp_fadd", "fadd_us_typical", "fadd_us"),
    ("put 1 MiB bandwidth MB/s", "ucp_put_bw", "put1m_MBps", "put1m_MBps"),
]
fmt = lambda v: "-" if v is None else f"{v:.2f}"
for n in (2, 4):
    lines_n = [f"| 2 hosts x {n // 2} PE, PE 0 to PE {n - 1} | ucx_perftest (typical) | ferroshmem typical | ratio | ferroshmem mean | Open MPI OSHMEM mean |",
               "|---|---|---|---|---|---|"]
    for name, p, typ, mean in rows:
        pv, tv, mv = med.get(("perftest", p)), med.get((f"ferroshmem {n}", typ)), med.get((f"ferroshmem {n}", mean))
        ov = med.get((f"openmpi {n}", mean))
        ratio = "" if not (pv and tv) else f"{tv / pv:.2f}"
        lines_n.append(f"| {name} | {fmt(pv)} | {fmt(tv)} | {ratio} | {fmt(mv)} | {fmt(ov)} |")
    if n == 2:
        lines = lines_n
    else:
        lines += [""] + lines_n
sleep_floor = med.get(("perftest", "ucp_put_lat_sleep"))
lines.append("")
lines.append(f"ucx_perftest put latency with both sides sleeping on the worker's event descriptor (-E sleep, the floor of a target that does not busy-poll): {fmt(sleep_floor)} us")
lines.append("")
lines.append("| barrier_all us (mean) | ferroshmem | Open MPI OSHMEM |")
lines.append("|---|---|---|")
for n in (2, 4):
    fv, ov = med.get((f"ferroshmem {n}", "barrier_all_us")), med.get((f"openmpi {n}", "barrier_all_us"))
    lines.append(f"| 2 hosts x {n // 2} PE | {fv if fv is not None else '-'} | {ov if ov is not None else '-'} |")
if notes:
    lines.append("")
    lines += ["notes: " + n for n in notes]
open(out, "w").write("\n".join(lines) + "\n")
print("\n".join(lines))
PY
