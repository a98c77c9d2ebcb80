#!/usr/bin/env bash
# with-hosts.sh [--keep-going] N[:P1,P2,...] -- COMMAND ARGS...
#
# Simulates N hosts on this machine with Linux network namespaces, runs COMMAND
# in the root namespace with the hosts described in the environment, and removes
# everything it added when it ends (normal exit, error, Ctrl-C, SIGTERM).
#
# Per run (RUNID = 4 random [0-9a-z], unique among existing fsh* objects):
#   hosts        fsh<RUNID>h1 .. fsh<RUNID>hN   (namespace name == host name)
#   bridge       fsh<RUNID>br  in the root namespace, address 10.213.X.254/24
#   veth         fsh<RUNID>v<i> (root end, on the bridge) <-> eth0 in host i,
#                address 10.213.X.<i>/24 (X chosen free: on no interface)
#   /etc/hosts   "10.213.X.i fsh<RUNID>hi  # fsh-multihost run=<RUNID>"
#   temp dir     /tmp/fsh<RUNID>.XXXXXX: hostfile, rsh agent, per-host TMPDIRs
#
# Exported to COMMAND:
#   FSH_RUNID        the run id
#   FSH_HOSTS        fsh<RUNID>h1,fsh<RUNID>h2,...
#   FSH_HOSTFILE     file with "NAME slots=P" lines
#   FSH_HOSTLIST     NAME:P,NAME:P,...  (for mpirun --host)
#   FSH_SUBNET       10.213.X.0/24
#   FSH_AGENT        the rsh agent: AGENT [-opts] HOST COMMAND... (ssh semantics:
#                    the words of COMMAND are joined with spaces and run by sh,
#                    inside the host's namespace with the host's hostname)
#   FSH_MPIRUN_ARGS  the mpirun options, SPACE separated, no word contains a
#                    space or glob character: use it unquoted, `mpirun $FSH_MPIRUN_ARGS ...`
#   FSH_UCX_ENV      UCX_TLS=tcp,self UCX_NET_DEVICES=eth0 (for `ip netns exec HOST env $FSH_UCX_ENV ...`)
#   OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
#
# FSH_MPIRUN_ARGS, option by option (Open MPI 4.1.4, Debian 12):
#   --host $FSH_HOSTLIST                 the hosts and their PE counts (or --hostfile $FSH_HOSTFILE)
#   --mca plm_rsh_agent $FSH_AGENT       REQUIRED: start the orted daemons inside the hosts
#   --mca plm_rsh_no_tree_spawn 1        every orted is started by mpirun itself (not by
#                                        another orted from inside a namespace)
#   --mca orte_tmpdir_base RUNDIR/tmp    session directories of mpirun and the daemons in the run's
#                                        temp dir: an interrupted mpirun leaves its own behind
#                                        (/tmp/ompi.HOST.UID/pid.N), they go with the run
#   --mca oob_tcp_if_include SUBNET      daemons <-> mpirun only over the run's bridge (not strictly
#                                        needed here: other addresses fail fast, no default route)
#   --mca btl_tcp_if_include SUBNET      MPI tcp traffic only on eth0/IPv4 (else also IPv6 link-local)
#   --mca btl tcp,vader,self             tcp between hosts, shared memory only within a host
#   --mca pml ob1 --mca osc ^ucx         keep Open MPI's own UCX components out (UCX would use
#                                        shared memory across the namespaces)
#   -x UCX_TLS=tcp,self -x UCX_NET_DEVICES=eth0
#                                        for UCX programs (ferroshmem): force UCX onto the network;
#                                        without it UCX reaches across the namespaces through
#                                        /dev/shm (a get took 0.02 us); eth0 keeps it off lo.
# A PMIx-only program needs nothing more than MPI ones.
#
# Signals: SIGINT, SIGTERM and SIGHUP remove the hosts (mpirun gets SIGTERM
# first, then whatever still runs inside the hosts is killed). A script that
# starts with-hosts.sh in the background must stop it with SIGTERM: bash starts
# background commands of non-interactive shells with SIGINT ignored, and an
# ignored signal cannot be trapped. After a `kill -9` of with-hosts.sh itself,
# run check-clean.sh --fix.
#
# FSH_HOST_CPUS=split gives each host a share of the CPUs this script may use, as
# real hosts have cores of their own: with C CPUs and N hosts, host i (from 0) gets
# the CPUs j with j mod N = i when C >= N, else CPU i mod C; everything started in
# the host (the daemons, the PEs, their threads) inherits it. Default (shared): every
# host may run on every CPU, and the kernel places the PEs of all hosts.
#
# Default P is 2 for each host. Before COMMAND runs, every host is checked to be
# reachable from the root namespace and from host 1; if a check fails the run
# stops with 77, unless --keep-going is given (then it only warns).
#
# Exit status: COMMAND's; 77 if hosts cannot be simulated here (not root, no
# `ip netns`, setup failed); 2 on usage errors; 128+signal when interrupted.

set -u
export LC_ALL=C

usage() {
    echo "usage: $0 [--keep-going] N[:P1,P2,...] -- COMMAND ARGS..." >&2
    exit 2
}

keep_going=0
if [ "${1:-}" = "--keep-going" ]; then keep_going=1; shift; fi
[ $# -ge 3 ] || usage
spec=$1; shift
[ "$1" = "--" ] || usage
shift

nhosts=${spec%%:*}
case $nhosts in ''|*[!0-9]*) usage ;; esac
[ "$nhosts" -ge 1 ] && [ "$nhosts" -le 253 ] || { echo "$0: N must be 1..253 (one /24 subnet)" >&2; exit 2; }
declare -a slots
if [ "$spec" != "$nhosts" ]; then
    IFS=, read -r -a slots <<<"${spec#*:}"
    [ ${#slots[@]} -eq "$nhosts" ] || { echo "$0: $nhosts hosts but ${#slots[@]} PE counts in '$spec'" >&2; exit 2; }
    for p in "${slots[@]}"; do
        case $p in ''|*[!0-9]*) usage ;; esac
        [ "$p" -ge 1 ] || usage
    done
else
    for ((i = 0; i < nhosts; i++)); do slots[i]=2; done
fi

skip() { echo "with-hosts: cannot simulate hosts here: $*" >&2; exit 77; }
case ${FSH_HOST_CPUS:-shared} in
    shared | split) ;;
    *) echo "$0: FSH_HOST_CPUS must be shared or split" >&2; exit 2 ;;
esac

[ "$(id -u)" = 0 ] || skip "not root"
for c in ip unshare flock mktemp; do
    command -v "$c" >/dev/null 2>&1 || skip "command '$c' not found"
done
ip netns list >/dev/null 2>&1 || skip "'ip netns' does not work"

LOCK=/run/lock/fsh-multihost.lock
mkdir -p /run/lock 2>/dev/null
MARK="fsh-multihost run="

# ---------------------------------------------------------------- cleanup
runid=""
rundir=""
bridge=""
cmd_pid=""
created_ns=()
created_links=()
hosts_written=0
cleaned=0

descendants() { # pids of all descendants of $1
    local c
    for c in $(ps -o pid= --ppid "$1" 2>/dev/null); do
        echo "$c"
        descendants "$c"
    done
}

ns_pids() { ip netns pids "$1" 2>/dev/null; }

root_netns=$(readlink /proc/self/ns/net)
in_root_ns() { [ "$(readlink "/proc/$1/ns/net" 2>/dev/null)" = "$root_netns" ]; }

alive() { # the pids among $@ that exist and are not zombies
    local p st
    for p; do
        st=$(awk '{print $3}' "/proc/$p/stat" 2>/dev/null) || continue
        [ -n "$st" ] && [ "$st" != Z ] && echo "$p"
    done
}

kill_leaves_first() { # SIGKILL $@, children before parents, so each dead
    local round p q pids left parent    # process is reaped by its own parent
    for ((round = 0; round < 50; round++)); do
        left=$(alive "$@")
        [ -z "$left" ] && return
        pids=""
        for p in $left; do
            # a leaf: none of the other live pids has p as parent
            for q in $left; do
                parent=$(awk '{print $4}' "/proc/$q/stat" 2>/dev/null)
                [ "$parent" = "$p" ] && continue 2
            done
            pids+=" $p"
        done
        [ -z "$pids" ] && pids=$left
        kill -KILL $pids 2>/dev/null
        sleep 0.05
    done
}

cleanup() {
    [ $cleaned = 1 ] && return
    cleaned=1
    trap '' INT TERM HUP
    exec 9>&- 2>/dev/null   # our own hold on the lock, if setup failed under it
    local ns l i p pids
    # 1. COMMAND and what it started in the root namespace (timeout, mpirun,
    #    ...) get SIGTERM and up to 5 s to end: mpirun then stops its daemons
    #    itself. The processes inside the hosts are not signalled here (killing
    #    the agent's shell under a live orted would orphan the orted).
    if [ -n "$cmd_pid" ] && kill -0 "$cmd_pid" 2>/dev/null; then
        pids=$cmd_pid
        for p in $(descendants "$cmd_pid"); do in_root_ns "$p" && pids+=" $p"; done
        kill -TERM $pids 2>/dev/null
        for ((i = 0; i < 50; i++)); do
            [ -z "$(alive $pids)" ] && break
            sleep 0.1
        done
    fi
    # 2. Whatever still runs inside the hosts (orted, the programs), then what
    #    is left of COMMAND's tree.
    for ns in "${created_ns[@]}"; do
        for ((i = 0; i < 5; i++)); do
            pids=$(ns_pids "$ns")
            [ -z "$pids" ] && break
            kill_leaves_first $pids
        done
    done
    if [ -n "$cmd_pid" ]; then
        kill_leaves_first $cmd_pid $(descendants "$cmd_pid")
    fi
    # 3. Namespaces, links, bridge.
    for ns in "${created_ns[@]}"; do ip netns del "$ns" 2>/dev/null; done
    for l in "${created_links[@]}"; do
        ip link show "$l" >/dev/null 2>&1 && ip link del "$l" 2>/dev/null
    done
    # 4. /etc/hosts lines of this run.
    if [ $hosts_written = 1 ] && [ -n "$runid" ]; then
        (
            flock -w 20 9 || echo "with-hosts: /etc/hosts lock timeout, editing anyway" >&2
            tmp=$(mktemp) && grep -v -F "$MARK$runid" /etc/hosts >"$tmp"
            cat "$tmp" >/etc/hosts && rm -f "$tmp"
        ) 9>>"$LOCK"
    fi
    # 5. Temp dir (hostfile, agent, daemons' session dirs).
    [ -n "$rundir" ] && rm -rf "$rundir"
}

on_signal() {
    trap '' INT TERM HUP
    echo "with-hosts: interrupted by SIG$1, cleaning up" >&2
    cleanup
    case $1 in INT) exit 130 ;; TERM) exit 143 ;; HUP) exit 129 ;; esac
}
trap cleanup EXIT
trap 'on_signal INT' INT
trap 'on_signal TERM' TERM
trap 'on_signal HUP' HUP

fail_setup() { echo "with-hosts: cannot simulate hosts here: setup failed: $*" >&2; exit 77; }
run() { "$@" || fail_setup "$*"; }

# ---------------------------------------------------------------- setup
# Run id, subnet, bridge and /etc/hosts are chosen and claimed under one lock
# so that concurrent runs never pick the same ones.
exec 9>>"$LOCK" || skip "cannot open $LOCK"
flock -w 30 9 || skip "lock $LOCK busy for 30 s"

alnum=abcdefghijklmnopqrstuvwxyz0123456789
for ((try = 0; try < 100; try++)); do
    id=""
    for ((k = 0; k < 4; k++)); do id+=${alnum:RANDOM % 36:1}; done
    ip netns list 2>/dev/null | grep -q "^fsh$id" && continue
    ip -o link show 2>/dev/null | grep -q ": fsh$id" && continue
    grep -q -F "$MARK$id" /etc/hosts && continue
    ls -d /tmp/fsh"$id".* >/dev/null 2>&1 && continue
    runid=$id
    break
done
[ -n "$runid" ] || fail_setup "no free run id"

used=$( (ip -o -4 addr show; ip -4 route show) 2>/dev/null | grep -o '10\.213\.[0-9]*\.' | sort -u)
X=""
start=$((RANDOM % 254 + 1))
for ((k = 0; k < 254; k++)); do
    x=$(( (start + k - 1) % 254 + 1 ))
    grep -q -x -F "10.213.$x." <<<"$used" && continue
    X=$x
    break
done
[ -n "$X" ] || fail_setup "no free 10.213.X.0/24"
subnet=10.213.$X.0/24

rundir=$(mktemp -d "/tmp/fsh$runid.XXXXXX") || fail_setup "mktemp"
chmod 755 "$rundir"

bridge=fsh${runid}br
run ip link add "$bridge" type bridge
created_links+=("$bridge")
run ip addr add "10.213.$X.254/24" dev "$bridge"
run ip link set "$bridge" up
# Bridged frames must not go through iptables (a DROP forward policy would cut
# the hosts off from each other).
[ -w /proc/sys/net/bridge/bridge-nf-call-iptables ] &&
    [ "$(cat /proc/sys/net/bridge/bridge-nf-call-iptables)" = 1 ] &&
    command -v iptables >/dev/null 2>&1 &&
    iptables -S FORWARD 2>/dev/null | grep -q -- '-P FORWARD DROP' &&
    echo "with-hosts: warning: iptables FORWARD policy is DROP; bridged traffic may be dropped" >&2

hosts=()
hostlist=()
hostsfile_lines=""
for ((i = 1; i <= nhosts; i++)); do
    h=fsh${runid}h$i
    v=fsh${runid}v$i
    run ip netns add "$h"
    created_ns+=("$h")
    run ip link add "$v" type veth peer name eth0 netns "$h"
    created_links+=("$v")
    run ip link set "$v" master "$bridge"
    run ip link set "$v" up
    run ip -n "$h" link set lo up
    run ip -n "$h" link set eth0 address "$(printf '02:f5:%02x:%02x:%02x:%02x' "$X" $((i >> 16 & 255)) $((i >> 8 & 255)) $((i & 255)))"
    run ip -n "$h" addr add "10.213.$X.$i/24" dev eth0
    run ip -n "$h" link set eth0 up
    hosts+=("$h")
    hostlist+=("$h:${slots[i-1]}")
    echo "$h slots=${slots[i-1]}" >>"$rundir/hostfile"
    hostsfile_lines+="10.213.$X.$i $h  # $MARK$runid"$'\n'
done

# Every host knows every other host's link address from the start (permanent neighbour
# entries), as hosts on a switch learn them once and keep them: here all hosts share one
# bridge and two CPUs, and the ARP requests of a job whose PEs all connect at once (48 hosts
# each resolving 47 others) were dropped, failing connects with "No route to host".
for ((i = 1; i <= nhosts; i++)); do
    for ((j = 1; j <= nhosts; j++)); do
        [ $i = $j ] && continue
        printf 'neigh replace 10.213.%d.%d lladdr 02:f5:%02x:%02x:%02x:%02x dev eth0 nud permanent\n' \
            "$X" $j "$X" $((j >> 16 & 255)) $((j >> 8 & 255)) $((j & 255))
    done | ip -n "fsh${runid}h$i" -batch - || fail_setup "neighbour entries of host $i"
done

# /etc/hosts may be a bind mount: rewrite it in place, never rename over it.
tmp=$(mktemp) || fail_setup "mktemp"
cat /etc/hosts >"$tmp" && { [ -z "$(tail -c1 /etc/hosts)" ] || echo >>"$tmp"; } && printf '%s' "$hostsfile_lines" >>"$tmp" || fail_setup "copy /etc/hosts"
hosts_written=1
cat "$tmp" >/etc/hosts || { rm -f "$tmp"; fail_setup "write /etc/hosts"; }
rm -f "$tmp"

flock -u 9
exec 9>&-

# The CPUs of each host (FSH_HOST_CPUS=split; see the header), as a case statement
# of the agent: "taskset -c LIST" for host NAME.
expand_cpus() { # "0-2,5" -> "0 1 2 5"
    local part a b
    for part in ${1//,/ }; do
        a=${part%-*} b=${part#*-}
        for ((; a <= b; a++)); do echo -n "$a "; done
    done
}
host_cpus_case=""
case ${FSH_HOST_CPUS:-shared} in
    shared) ;;
    split)
        read -r -a cpus <<<"$(expand_cpus "$(awk '/^Cpus_allowed_list/ {print $2}' /proc/self/status)")"
        for ((i = 0; i < nhosts; i++)); do
            list=""
            if [ ${#cpus[@]} -ge "$nhosts" ]; then
                for ((j = i; j < ${#cpus[@]}; j += nhosts)); do list+="${list:+,}${cpus[j]}"; done
            else
                list=${cpus[i % ${#cpus[@]}]}
            fi
            host_cpus_case+="    ${hosts[i]}) pin=\"taskset -c $list\" ;;
"
        done ;;
esac

# The rsh agent, called by mpirun as  AGENT [ssh-like options] HOST WORD...
# Like ssh, the WORDs are joined with spaces and run by a shell on HOST: here
# inside HOST's network namespace, in a new UTS namespace named HOST (so that
# `hostname` and gethostname() return HOST), with TMPDIR in the run's temp dir
# (so the daemons' session directories go away with the run).
agent=$rundir/agent
cat >"$agent" <<EOF
#!/bin/sh
# rsh agent of with-hosts.sh run $runid
while [ \$# -gt 0 ]; do
    case \$1 in
        -[lpioeFJLRDWcmS]) shift 2 ;;   # ssh options taking a value
        -*) shift ;;
        *) break ;;
    esac
done
[ \$# -ge 2 ] || { echo "usage: \$0 HOST COMMAND..." >&2; exit 255; }
host=\$1; shift
case \$host in *@*) host=\${host#*@} ;; esac
mkdir -p "$rundir/tmp/\$host" 2>/dev/null
pin=""
case \$host in
$host_cpus_case
esac
exec \$pin ip netns exec "\$host" unshare --uts sh -c 'hostname "\$1" || exit 255; export TMPDIR="\$2"; shift 2; eval "\$*"' sh "\$host" "$rundir/tmp/\$host" "\$@"
EOF
chmod 755 "$agent"

# Self-check: every host reachable from the root namespace and from host 1.
# A refused TCP connection proves reachability (nothing listens on port 9).
probe() { # probe NS IP -> 0 when the IP answered (refused or accepted)
    local out
    out=$(timeout 3 ${1:+ip netns exec "$1"} bash -c "exec 3<>/dev/tcp/$2/9" 2>&1)
    [ $? = 0 ] && return 0
    case $out in *refused*) return 0 ;; esac
    return 1
}
bad=""
for ((i = 1; i <= nhosts; i++)); do
    probe "" "10.213.$X.$i" || bad+=" root->${hosts[i-1]}"
    [ $i -gt 1 ] && { probe "${hosts[0]}" "10.213.$X.$i" || bad+=" ${hosts[0]}->${hosts[i-1]}"; }
done
probe "${hosts[0]}" "10.213.$X.254" || bad+=" ${hosts[0]}->root"
if [ -n "$bad" ]; then
    if [ $keep_going = 1 ]; then
        echo "with-hosts: warning: unreachable:$bad (going on: --keep-going)" >&2
    else
        fail_setup "unreachable:$bad"
    fi
fi

export FSH_RUNID=$runid
export FSH_HOSTS=$(IFS=,; echo "${hosts[*]}")
export FSH_HOSTFILE=$rundir/hostfile
export FSH_HOSTLIST=$(IFS=,; echo "${hostlist[*]}")
export FSH_SUBNET=$subnet
export FSH_AGENT=$agent
export FSH_UCX_ENV="UCX_TLS=tcp,self UCX_NET_DEVICES=eth0"
mkdir -p "$rundir/tmp"
export FSH_MPIRUN_ARGS="--host $FSH_HOSTLIST --mca plm_rsh_agent $agent --mca plm_rsh_no_tree_spawn 1 --mca orte_tmpdir_base $rundir/tmp --mca oob_tcp_if_include $subnet --mca btl_tcp_if_include $subnet --mca btl tcp,vader,self --mca pml ob1 --mca osc ^ucx -x UCX_TLS=tcp,self -x UCX_NET_DEVICES=eth0"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

# COMMAND runs in the background so that a signal reaches our trap at once;
# its stdin is kept (bash would give an async command /dev/null otherwise).
exec 3<&0
"$@" <&3 3<&- &
cmd_pid=$!
exec 3<&-
wait "$cmd_pid"
rc=$?
cmd_pid=""
exit $rc
