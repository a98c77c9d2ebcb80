#!/usr/bin/env bash
# ucx-perftest.sh: UCX latency/bandwidth between two simulated hosts.
# Runs, under with-hosts.sh 2:1,1, an ucx_perftest server in host 2 and the
# client in host 1, with UCX forced onto the network (UCX_TLS=tcp,self
# UCX_NET_DEVICES=eth0: without it UCX reaches across the namespaces through
# shared memory, see GUIDE.md section 7). Prints one line per test:
#   ucx_perftest ucp_put_lat typical_us=X avg_us=Y iters=N
#   ucx_perftest ucp_get typical_us=X avg_us=Y iters=N
#   ucx_perftest ucp_fadd typical_us=X avg_us=Y iters=N
#   ucx_perftest ucp_put_bw size=1048576 bandwidth_MBps=Y iters=N
#   ucx_perftest ucp_put_lat_sleep typical_us=X avg_us=Y iters=N   (sleep mode, see below)
# typical_us is ucx_perftest's 50th percentile ("typical") latency of the
# final summary, avg_us its overall average, bandwidth_MBps its overall
# bandwidth (MB/s as ucx_perftest counts them: 2^20 bytes).
# Exit status: 0, 1 if a test failed, 77 if hosts cannot be simulated here.
set -u
here=$(cd "$(dirname "$0")" && pwd)
command -v ucx_perftest >/dev/null 2>&1 || { echo "ucx-perftest: ucx_perftest not found (apt-get install ucx-utils)" >&2; exit 77; }
if [ -z "${FSH_RUNID:-}" ]; then
    exec "$here/with-hosts.sh" 2:1,1 -- "$0" "$@"
fi

h1=fsh${FSH_RUNID}h1
h2=fsh${FSH_RUNID}h2
port=13337
ucx_env="UCX_TLS=tcp,self UCX_NET_DEVICES=eth0"
failed=0

# test  iterations  warmup  extra-args
# A name ending in _sleep runs the test in ucx_perftest's sleep mode (-E sleep -I: both sides
# sleep on the worker's event descriptor after posting, as ferroshmem's progress thread does):
# the floor of a target that does not busy-poll.
tests=(
    "ucp_put_lat 20000 2000"
    "ucp_get 2000 200"
    "ucp_fadd 20000 2000"
    "ucp_put_bw 2000 200 -s 1048576"
    "ucp_put_lat_sleep 5000 500"
)
for t in "${tests[@]}"; do
    set -- $t
    name=$1 iters=$2 warm=$3; shift 3
    mode=()
    test=$name
    if [[ $name == *_sleep ]]; then
        mode=(-E sleep -I)
        test=${name%_sleep}
    fi
    ip netns exec "$h2" env $ucx_env timeout 120 ucx_perftest -p $port "${mode[@]}" >/dev/null 2>&1 &
    srv=$!
    for ((i = 0; i < 50; i++)); do
        ip netns exec "$h2" ss -ltn 2>/dev/null | grep -q ":$port " && break
        sleep 0.1
    done
    out=$(ip netns exec "$h1" env $ucx_env timeout 120 ucx_perftest "$h2" -p $port -t "$test" -n "$iters" -w "$warm" "${mode[@]}" "$@" 2>&1)
    rc=$?
    wait $srv 2>/dev/null
    final=$(grep '^Final:' <<<"$out")
    if [ $rc != 0 ] || [ -z "$final" ]; then
        echo "ucx_perftest $name FAILED rc=$rc"
        sed 's/^/    /' <<<"$out" | tail -15
        failed=1
        continue
    fi
    # Final: iters typical avg overall bw_avg bw_overall rate_avg rate_overall
    set -- $final
    case $name in
        *_bw) echo "ucx_perftest $name size=${t##* } bandwidth_MBps=$7 iters=$2" ;;
        *) echo "ucx_perftest $name typical_us=$3 avg_us=$5 iters=$2" ;;
    esac
done
exit $failed
