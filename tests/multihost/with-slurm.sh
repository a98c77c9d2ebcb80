#!/usr/bin/env bash
# with-slurm.sh [--keep-going] N[:P1,P2,...] -- COMMAND ARGS...
#
# A Slurm cluster of simulated hosts: with-hosts.sh makes the hosts (network
# namespaces on a bridge, see there), then this script starts munged, slurmctld
# and one slurmd per host, runs COMMAND in the root namespace, and ends it all
# when COMMAND ends or on SIGINT/SIGTERM/SIGHUP (then with-hosts.sh removes the
# hosts). Installs Slurm from the distribution first if it is missing:
#   apt-get install slurmctld slurmd slurm-client munge slurm-wlm-basic-plugins libpmix-dev
# (libpmix-dev: Slurm's PMIx plugin loads pmix2/lib/libpmix.so, which only it ships).
# Before COMMAND runs, one task per host is started through PMIx (`srun --mpi=pmix
# true`): if that fails, the run stops with 77.
#
# Layout: as with-hosts.sh takes it; host i is the Slurm node of the same name,
# declared with Pi CPUs (default 2), so `srun -n P1+..+PN` fills the hosts in
# order as the layout says (block distribution), and more tasks than that need
# `srun -O`. The CPUs are declared, not counted (SlurmdParameters=config_overrides):
# every host runs on the same cores of this machine.
#
# Where things run:
#   munged      root namespace, one for all hosts (they share the filesystem):
#               its own socket, key, pid and log files under the cluster's dir
#   slurmctld   root namespace, in a UTS namespace named fsh<RUNID>ctl (it must
#               find its own name in SlurmctldHost), listening on a free port of
#               the bridge's address 10.213.X.254
#   slurmd      inside each host's namespace, with the host's hostname (its tasks
#               inherit both), on the default port 6818 of that host's address
#   srun        where COMMAND runs: the root namespace (it reaches slurmctld and
#               every slurmd over the bridge, and they reach back to it there)
# All daemons run in the foreground as children of this script, so that
# with-hosts.sh finds them among COMMAND's descendants or in the hosts, whatever
# ends the run. Their files are in RUNDIR/slurm, which goes with the run.
#
# Exported to COMMAND, beside with-hosts.sh's (FSH_HOSTS, FSH_UCX_ENV, ...):
#   SLURM_CONF        the cluster's slurm.conf (srun, sinfo, scontrol use it)
#   FSH_SLURM_NODES   the node names, comma separated (== FSH_HOSTS)
#   FSH_SLURM_NTASKS  P1+..+PN, the tasks that fill the declared CPUs
#   FSH_SLURM_DIR     the cluster's directory (logs in FSH_SLURM_DIR/log)
# A job:  srun --mpi=pmix -N N -n $FSH_SLURM_NTASKS [-O] env $FSH_UCX_ENV ./prog
# (or UCX_TLS=tcp,self UCX_NET_DEVICES=eth0 in srun's environment: srun passes
# its environment on to the tasks).
#
# Why some settings (Slurm 22.05, Debian 12):
#   MpiDefault=pmix  a plain srun starts PMIx too (sites often default to none:
#                  pass --mpi=pmix anyway, as the tests do)
#   cgroup.conf CgroupPlugin=cgroup/v1 CgroupAutomount=no
#                  `ip netns exec` mounts a /sys of its own without the cgroup
#                  fs: slurmd stops at start unless told not to look for it
#   ProctrackType=proctrack/linuxproc, TaskPlugin=task/none
#                  no cgroups in the hosts (see above)
#   KillWait=2     a job that ends (srun -K, a task that failed, scancel) gets
#                  SIGKILL 2 s after SIGTERM instead of 30 s
#   SlurmdTimeout  a node whose network is cut is DOWN for slurmctld after 20 s
#                  (300 s by default); ReturnToService=2 takes it back once it
#                  answers again
#
# Exit status: COMMAND's; 77 if the cluster cannot be made here (not root, no
# `ip netns`, Slurm missing and not installable, a daemon did not start);
# 2 on usage errors; 128+signal when interrupted.
#
# The end: whatever of COMMAND is left (found by the FSH_RUNID in its environment:
# an srun whose shell already ended is no one's descendant) gets SIGTERM, then
# SIGKILL after 2 s; then `scancel` of every job, `scontrol shutdown` (slurmctld
# and every slurmd, killed if not gone in 5 s), munged, and what is left of the
# jobs; with-hosts.sh then removes the hosts. Interrupted, with-hosts.sh has sent
# SIGTERM to COMMAND and the daemons of the root namespace at once: the rest goes
# the same way. After a `kill -9` of this script, run check-clean.sh --fix (the
# daemons carry FSH_RUNID in their environment, slurmd runs inside a host).

set -u
export LC_ALL=C
here=$(cd "$(dirname "$0")" && pwd)

usage() {
    echo "usage: $0 [--keep-going] N[:P1,P2,...] -- COMMAND ARGS..." >&2
    exit 2
}
skip() { echo "with-slurm: cannot make a Slurm cluster here: $*" >&2; exit 77; }

# ------------------------------------------------------------ outer part
# Checks and installs, then hands over to with-hosts.sh (exec: its traps get
# our signals), which runs the inner part below as its COMMAND.
if [ "${1:-}" != "--inner" ]; then
    keep=()
    if [ "${1:-}" = "--keep-going" ]; then keep=(--keep-going); shift; fi
    [ $# -ge 3 ] && [ "$2" = "--" ] || usage
    spec=$1
    shift 2
    [ "$(id -u)" = 0 ] || skip "not root"
    need_install=0
    for c in munged mungekey slurmctld slurmd srun scontrol sinfo unshare; do
        command -v "$c" >/dev/null 2>&1 || need_install=1
    done
    # Slurm's PMIx plugin (slurm-wlm-basic-plugins) loads PMIx by its unversioned name,
    # pmix2/lib/libpmix.so, which only libpmix-dev ships.
    ls /usr/lib/*/slurm-wlm/mpi_pmix.so /usr/lib/*/pmix2/lib/libpmix.so >/dev/null 2>&1 || need_install=1
    if [ $need_install = 1 ]; then
        command -v apt-get >/dev/null 2>&1 || skip "Slurm is not installed and there is no apt-get"
        pkgs="slurmctld slurmd slurm-client munge slurm-wlm-basic-plugins libpmix-dev"
        echo "with-slurm: installing Slurm ($pkgs)" >&2
        # An old or missing package list fails the install: update once and try again.
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $pkgs >/dev/null 2>&1 || {
            DEBIAN_FRONTEND=noninteractive apt-get update -qq >/dev/null 2>&1
            DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $pkgs >/dev/null
        } || skip "apt-get install $pkgs failed"
    fi
    exec bash "$here/with-hosts.sh" "${keep[@]}" "$spec" -- bash "$here/${0##*/}" --inner "$spec" -- "$@"
fi

# ------------------------------------------------------------ inner part
# with-slurm.sh --inner SPEC -- COMMAND...: runs as with-hosts.sh's COMMAND, in
# the root namespace, with the hosts in the environment.
shift
spec=$1
shift 2
runid=$FSH_RUNID
IFS=, read -r -a hosts <<<"$FSH_HOSTS"
nhosts=${#hosts[@]}
declare -a cpus
if [ "$spec" != "${spec%%:*}" ]; then
    IFS=, read -r -a cpus <<<"${spec#*:}"
else
    for ((i = 0; i < nhosts; i++)); do cpus[i]=2; done
fi
rundir=$(dirname "$FSH_HOSTFILE")
dir=$rundir/slurm
conf=$dir/slurm.conf
ctl_name=fsh${runid}ctl
net=${FSH_SUBNET%.0/24}
ctl_addr=$net.254

cmd_pid=""
munged_pid=""
ctld_pid=""
slurmd_pids=()
cleaned=0

alive() { # the pids among $@ that exist and are not zombies
    local p st
    for p; do
        st=$(awk '{print $3}' "/proc/$p/stat" 2>/dev/null) || continue
        [ -n "$st" ] && [ "$st" != Z ] && echo "$p"
    done
}

wait_gone() { # wait_gone TENTHS PID...: waits up to TENTHS/10 s for the pids to end
    local n=$1 i
    shift
    for ((i = 0; i < n; i++)); do
        [ -z "$(alive "$@")" ] && return 0
        sleep 0.1
    done
    [ -z "$(alive "$@")" ]
}

# The processes of this run but this script, its ancestors and the daemons: COMMAND and all
# it started, found by the FSH_RUNID in their environment (an srun whose parent already
# ended is no longer anyone's descendant: with-hosts.sh's SIGTERM ends a shell at once, its
# srun goes on cancelling its job), and a job's slurmstepds and tasks inside the hosts.
run_pids() {
    local skip=" $munged_pid $ctld_pid ${slurmd_pids[*]} " p e
    p=$BASHPID   # this subshell ($$ is the script), then its ancestors
    while [ -n "$p" ] && [ "$p" -gt 1 ]; do
        skip+="$p "
        p=$(awk '{print $4}' "/proc/$p/stat" 2>/dev/null)
    done
    # One grep reads every environment (NUL-separated entries); the glob is expanded before
    # it starts, so grep does not find itself.
    for e in $(grep -l -s -a -z -x -F "FSH_RUNID=$runid" /proc/[0-9]*/environ); do
        p=${e#/proc/}
        p=${p%/environ}
        case $skip in *" $p "*) continue ;; esac
        # slurmctld's own helper (slurmscriptd) goes with slurmctld.
        case $skip in *" $(awk '{print $4}' "/proc/$p/stat" 2>/dev/null) "*) continue ;; esac
        alive "$p"
    done
}

cleanup() {
    [ $cleaned = 1 ] && return
    cleaned=1
    trap '' INT TERM HUP
    local pids p
    # 1. COMMAND and what it started (srun cancels its job on SIGTERM, if slurmctld and
    #    munged are still there to hear it): 2 s, then SIGKILL.
    pids=$(run_pids)
    if [ -n "$pids" ]; then
        kill -TERM $pids 2>/dev/null
        wait_gone 20 $pids || kill -KILL $(alive $pids) 2>/dev/null
    fi
    # 2. Jobs still there, then the daemons: scontrol shutdown ends slurmctld and
    #    every slurmd; whatever does not end within 5 s is killed. (Interrupted,
    #    with-hosts.sh has sent slurmctld and munged SIGTERM already: no shutdown
    #    then, the slurmds get SIGTERM at once.)
    local grace=50
    if [ -n "$ctld_pid" ] && [ -n "$(alive "$ctld_pid")" ]; then
        timeout 5 scancel --full --user=root >/dev/null 2>&1
        timeout 5 scontrol shutdown >/dev/null 2>&1 || grace=0
    else
        grace=0
    fi
    pids="$ctld_pid ${slurmd_pids[*]}"
    if [ -n "${pids// /}" ]; then
        wait_gone $grace $pids || {
            kill -TERM $(alive $pids) 2>/dev/null
            wait_gone 20 $pids || kill -KILL $(alive $pids) 2>/dev/null
        }
    fi
    # 3. munged last: slurmctld and slurmd talk to it until they end.
    if [ -n "$munged_pid" ]; then
        kill -TERM "$munged_pid" 2>/dev/null
        wait_gone 30 "$munged_pid" || kill -KILL "$munged_pid" 2>/dev/null
    fi
    # 4. What is left of the jobs (slurmstepds whose slurmd was killed, their tasks):
    #    with-hosts.sh would kill what is inside the hosts, but not what is outside.
    pids=$(run_pids)
    [ -n "$pids" ] && kill -KILL $pids 2>/dev/null
    wait 2>/dev/null
}

on_signal() {
    trap '' INT TERM HUP
    echo "with-slurm: interrupted by SIG$1, stopping the cluster" >&2
    cleanup
    case $1 in INT) exit 130 ;; TERM) exit 143 ;; HUP) exit 129 ;; esac
}
trap cleanup EXIT
trap 'on_signal INT' INT
trap 'on_signal TERM' TERM
trap 'on_signal HUP' HUP

fail_setup() {
    echo "with-slurm: cannot make a Slurm cluster here: $*" >&2
    local f
    # The daemons' log files, and what they wrote on stderr where they have none (yet).
    for f in "$dir"/log/*; do
        [ -s "$f" ] || continue
        case $f in *.out) [ -s "${f%.out}.log" ] && continue ;; esac
        echo "with-slurm: --- last lines of $f" >&2
        tail -n 15 "$f" >&2
    done
    exit 77
}

# ------------------------------------------------------------ files
mkdir -p "$dir"/{munge,state,run,log} || fail_setup "mkdir $dir"
chmod 755 "$dir" "$dir/munge"   # munged refuses a socket dir writable by others
for h in "${hosts[@]}"; do mkdir -p "$dir/spool/$h" "$dir/tmp/$h" || fail_setup "mkdir"; done

# A free port for slurmctld (slurmd listens in the hosts' own namespaces): one
# per subnet, so concurrent runs (each its own subnet) never pick the same one.
port_free() { ! ss -Hltn "sport = :$1" 2>/dev/null | grep -q .; }
x=${net##*.}
port=""
for ((k = 0; k < 8; k++)); do
    p=$((20000 + x + 256 * k))
    port_free "$p" && { port=$p; break; }
done
[ -n "$port" ] || fail_setup "no free port for slurmctld"

{
    cat <<EOF
# Slurm cluster of with-slurm.sh run $runid (removed with the run)
ClusterName=fsh$runid
SlurmctldHost=$ctl_name($ctl_addr)
SlurmctldPort=$port
SlurmdPort=6818
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$dir/munge/munge.socket
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool/%n
SlurmctldPidFile=$dir/run/slurmctld.pid
SlurmdPidFile=$dir/run/slurmd-%n.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd-%n.log
TmpFS=$dir/tmp/%n
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
MpiDefault=pmix
SwitchType=switch/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SlurmdParameters=config_overrides
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
JobAcctGatherType=jobacct_gather/none
AcctGatherEnergyType=acct_gather_energy/none
AcctGatherInterconnectType=acct_gather_interconnect/none
AcctGatherFilesystemType=acct_gather_filesystem/none
AcctGatherProfileType=acct_gather_profile/none
ReturnToService=2
SlurmdTimeout=20
KillWait=2
InactiveLimit=0
MinJobAge=10
EOF
    for ((i = 0; i < nhosts; i++)); do
        addr=$(getent hosts "${hosts[i]}" | awk '{print $1; exit}')
        [ -n "$addr" ] || fail_setup "no address for ${hosts[i]}"
        echo "NodeName=${hosts[i]} NodeAddr=$addr CPUs=${cpus[i]} State=UNKNOWN"
    done
    echo "PartitionName=fsh Nodes=ALL Default=YES State=UP MaxTime=INFINITE"
} >"$conf" || fail_setup "write $conf"
printf 'CgroupPlugin=cgroup/v1\nCgroupAutomount=no\n' >"$dir/cgroup.conf" || fail_setup "write cgroup.conf"
export SLURM_CONF=$conf

# ------------------------------------------------------------ daemons
# munged: a key of its own; everything of it under $dir/munge.
m=$dir/munge
mungekey --create --keyfile="$m/munge.key" >/dev/null 2>&1 ||
    { dd if=/dev/urandom of="$m/munge.key" bs=1024 count=1 2>/dev/null && chmod 600 "$m/munge.key"; } ||
    fail_setup "munge key"
munged --foreground --force --socket="$m/munge.socket" --key-file="$m/munge.key" \
    --pid-file="$m/munged.pid" --seed-file="$m/munged.seed" --log-file="$dir/log/munged.log" \
    >>"$dir/log/munged.out" 2>&1 &
munged_pid=$!
disown   # (and each daemon below) no "Killed" line from bash when cleanup kills one
for ((i = 0; i < 100; i++)); do
    [ -S "$m/munge.socket" ] && break
    [ -n "$(alive $munged_pid)" ] || break
    sleep 0.05
done
munge -n -S "$m/munge.socket" 2>/dev/null | unmunge -S "$m/munge.socket" >/dev/null 2>&1 ||
    fail_setup "munged does not answer on $m/munge.socket"

# slurmctld, named as SlurmctldHost says.
unshare --uts sh -c 'hostname "$1" && exec slurmctld -D -c -f "$2"' sh "$ctl_name" "$conf" \
    >>"$dir/log/slurmctld.out" 2>&1 &
ctld_pid=$!
disown

# One slurmd inside each host, named as the host.
for h in "${hosts[@]}"; do
    ip netns exec "$h" unshare --uts sh -c 'hostname "$1" && exec slurmd -D -f "$2" -N "$1"' sh "$h" "$conf" \
        >>"$dir/log/slurmd-$h.out" 2>&1 &
    slurmd_pids+=($!)
    disown
done

# Ready when every node is idle (its slurmd registered with slurmctld). sinfo retries
# a refused connection for 10 s: each look is cut short, so a slurmctld that stopped at
# start is seen as such at once.
ready=0
for ((i = 0; i < 300; i++)); do
    [ -n "$(alive $ctld_pid)" ] || fail_setup "slurmctld ended"
    for ((k = 0; k < nhosts; k++)); do
        [ -n "$(alive "${slurmd_pids[k]}")" ] || fail_setup "the slurmd of ${hosts[k]} ended"
    done
    nodes=$(timeout 2 sinfo -h -N -o '%N %T' 2>/dev/null | sort -u)
    if [ "$(grep -c ' idle$' <<<"$nodes")" = "$nhosts" ]; then
        ready=1
        break
    fi
    sleep 0.1
done
[ $ready = 1 ] || fail_setup "the nodes are not idle after 30 s: $(timeout 5 sinfo -h -N -o '%N %T' 2>&1 | tr '\n' ' ')"
# One task per host through PMIx: the whole chain (munge, slurmctld, the slurmds, their
# PMIx servers reaching each other over the bridge) works before COMMAND counts on it.
out=$(timeout 60 srun --mpi=pmix -N "$nhosts" -n "$nhosts" true 2>&1) ||
    fail_setup "srun --mpi=pmix -N $nhosts -n $nhosts true failed: $out"

export FSH_SLURM_NODES=$FSH_HOSTS
export FSH_SLURM_DIR=$dir
ntasks=0
for c in "${cpus[@]}"; do ntasks=$((ntasks + c)); done
export FSH_SLURM_NTASKS=$ntasks

# COMMAND in the background so that a signal reaches our trap at once; its
# stdin is kept (bash would give an async command /dev/null otherwise).
exec 3<&0
"$@" <&3 3<&- &
cmd_pid=$!
exec 3<&-
wait "$cmd_pid"
rc=$?
cmd_pid=""
exit $rc
