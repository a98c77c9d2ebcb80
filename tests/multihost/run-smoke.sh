#!/usr/bin/env bash
# run-smoke.sh: multi-host smoke tests on simulated hosts (with-hosts.sh).
# Builds smoke/pmix_hello.c (PMIx only) and smoke/mpi_allreduce.c (MPI) into a
# temp dir and runs each with Open MPI's mpirun over 2:2,2 and 3:2,2,1 hosts,
# checking rank placement, local ranks, node ids, hostnames and results; then
# checks that nothing was left behind (check-clean.sh).
# Prints "multihost smoke: N passed, M failed"; exit 0 if all passed, 1 if any
# failed, 77 if hosts cannot be simulated here or the tools are missing.
# Interrupt with Ctrl-C or SIGTERM: the hosts are removed before it exits.
set -u
here=$(cd "$(dirname "$0")" && pwd)

# ------------------------------------------------------------ inner mode
# run-smoke.sh --inner BUILD_DIR SPEC: runs under with-hosts.sh, prints
# "smoke: PASS name" / "smoke: FAIL name" lines.
if [ "${1:-}" = "--inner" ]; then
    bin=$2 spec=$3
    echo "smoke: runid $FSH_RUNID"
    IFS=, read -r -a hosts <<<"$FSH_HOSTS"
    IFS=, read -r -a ppn <<<"${spec#*:}"
    total=0
    declare -a host_of local_of
    for ((h = 0; h < ${#hosts[@]}; h++)); do
        for ((l = 0; l < ppn[h]; l++)); do
            host_of[total]=${hosts[h]}
            local_of[total]=$l
            total=$((total + 1))
        done
    done

    # pmix_hello: rank R of N on HOST local_rank L local_size S node ID neighbour-said '...'
    out=$(timeout 120 mpirun $FSH_MPIRUN_ARGS -np $total "$bin/pmix_hello" 2>&1)
    rc=$?
    echo "$out" | sed 's/^/    /'
    err=""
    [ $rc = 0 ] || err+=" mpirun exit $rc;"
    declare -A node_of_host=() host_of_node=()
    for ((r = 0; r < total; r++)); do
        line=$(grep "^rank $r of " <<<"$out")
        if [ "$(grep -c . <<<"$line")" != 1 ]; then err+=" rank $r: $(grep -c . <<<"$line") lines;"; continue; fi
        nb=$(((r + 1) % total))
        pat="^rank $r of $total on ${host_of[r]} local_rank ${local_of[r]} local_size ([0-9]+) node ([0-9]+) neighbour-said 'hello from $nb on ${host_of[nb]}'\$"
        if ! [[ $line =~ $pat ]]; then err+=" rank $r: unexpected line (want on ${host_of[r]} local_rank ${local_of[r]}, neighbour $nb on ${host_of[nb]});"; continue; fi
        lsize=${BASH_REMATCH[1]} node=${BASH_REMATCH[2]}
        h=${host_of[r]}
        want_lsize=0
        for ((q = 0; q < total; q++)); do [ "${host_of[q]}" = "$h" ] && want_lsize=$((want_lsize + 1)); done
        [ "$lsize" = "$want_lsize" ] || err+=" rank $r: local_size $lsize, want $want_lsize;"
        if [ -n "${node_of_host[$h]:-}" ] && [ "${node_of_host[$h]}" != "$node" ]; then err+=" rank $r: node id $node, other ranks on $h have ${node_of_host[$h]};"; fi
        if [ -n "${host_of_node[$node]:-}" ] && [ "${host_of_node[$node]}" != "$h" ]; then err+=" rank $r: node id $node also on ${host_of_node[$node]};"; fi
        node_of_host[$h]=$node host_of_node[$node]=$h
    done
    grep -q MISMATCH <<<"$out" && err+=" gethostname() differs from PMIX_HOSTNAME;"
    if [ -z "$err" ]; then echo "smoke: PASS pmix_hello $spec"; else echo "smoke: FAIL pmix_hello $spec:$err"; fi

    # mpi_allreduce: mpi rank R of N on HOST sum S expected E ok
    out=$(timeout 120 mpirun $FSH_MPIRUN_ARGS -np $total "$bin/mpi_allreduce" 2>&1)
    rc=$?
    echo "$out" | sed 's/^/    /'
    err=""
    [ $rc = 0 ] || err+=" mpirun exit $rc;"
    sum=$((total * (total + 1) / 2))
    for ((r = 0; r < total; r++)); do
        n=$(grep -c -x "mpi rank $r of $total on ${host_of[r]} sum $sum expected $sum ok" <<<"$out")
        [ "$n" = 1 ] || err+=" rank $r: no correct line on ${host_of[r]};"
    done
    if [ -z "$err" ]; then echo "smoke: PASS mpi_allreduce $spec"; else echo "smoke: FAIL mpi_allreduce $spec:$err"; fi
    exit 0
fi

# ------------------------------------------------------------ outer mode
passed=0 failed=0
runids=()
child=""
bin=""
finish() {
    [ -n "$bin" ] && rm -rf "$bin"
}
on_signal() {
    trap '' INT TERM
    echo "run-smoke: interrupted, removing the hosts" >&2
    # with-hosts.sh runs in the background, where SIGINT is ignored: use TERM.
    [ -n "$child" ] && kill -TERM "$child" 2>/dev/null && wait "$child" 2>/dev/null
    finish
    exit 130
}
trap finish EXIT
trap on_signal INT TERM

skip() { echo "multihost smoke: skipped: $*"; exit 77; }
for c in mpirun mpicc cc pkg-config; do
    command -v $c >/dev/null 2>&1 || skip "'$c' not found (apt-get install openmpi-bin libopenmpi-dev libpmix-dev pkg-config)"
done
pkg-config --exists pmix || skip "pkg-config does not know pmix (apt-get install libpmix-dev)"

bin=$(mktemp -d /tmp/multihost-smoke.XXXXXX)
cc -O2 -Wall -o "$bin/pmix_hello" "$here/smoke/pmix_hello.c" $(pkg-config --cflags --libs pmix) || { echo "multihost smoke: build of pmix_hello failed"; exit 1; }
mpicc -O2 -Wall -o "$bin/mpi_allreduce" "$here/smoke/mpi_allreduce.c" || { echo "multihost smoke: build of mpi_allreduce failed"; exit 1; }

for spec in 2:2,2 3:2,2,1; do
    log=$bin/log.$spec
    "$here/with-hosts.sh" "$spec" -- bash "$here/run-smoke.sh" --inner "$bin" "$spec" >"$log" 2>&1 &
    child=$!
    wait $child
    rc=$?
    child=""
    cat "$log"
    runids+=($(sed -n 's/^smoke: runid //p' "$log"))
    if [ $rc = 77 ]; then skip "with-hosts.sh could not simulate hosts"; fi
    for t in pmix_hello mpi_allreduce; do
        if grep -q "^smoke: PASS $t $spec\$" "$log"; then
            passed=$((passed + 1))
        else
            failed=$((failed + 1))
            grep -q "^smoke: FAIL $t $spec" "$log" || echo "smoke: FAIL $t $spec: did not run (with-hosts.sh exit $rc)"
        fi
    done
    [ $rc = 0 ] || { echo "smoke: FAIL with-hosts.sh $spec exit $rc"; failed=$((failed + 1)); }
done

# Only this script's runs: other runs may be going on at the same time.
if [ ${#runids[@]} = 0 ]; then
    echo "smoke: FAIL check-clean: no run id seen"; failed=$((failed + 1))
elif "$here/check-clean.sh" "${runids[@]}"; then
    echo "smoke: PASS check-clean"; passed=$((passed + 1))
else
    echo "smoke: FAIL check-clean"; failed=$((failed + 1))
fi
echo "multihost smoke: $passed passed, $failed failed"
[ $failed = 0 ]
