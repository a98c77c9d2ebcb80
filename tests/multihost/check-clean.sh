#!/usr/bin/env bash
# check-clean.sh [--fix] [--processes] [RUNID...]
# Exits non-zero (and says what) if anything left by with-hosts.sh is still
# there: network namespaces or links named fsh*, /etc/hosts lines with the
# "fsh-multihost run=" marker, processes inside leftover namespaces or with
# FSH_RUNID in their environment, temp dirs /tmp/fsh<RUNID>.*. With RUNIDs, only those runs' objects are looked at (so a
# run can check after itself while other runs are going on); without, all.
# With --fix, also removes what it found (after a with-hosts.sh killed by -9).
# With --processes, only processes are looked at: a command running inside
# with-hosts.sh checks that a job it ran left none behind (in the hosts or
# outside them), while the hosts themselves are still there.
set -u
fix=0
processes_only=0
[ "${1:-}" = "--fix" ] && { fix=1; shift; }
[ "${1:-}" = "--processes" ] && { processes_only=1; shift; }
if [ $# -gt 0 ]; then
    ids=$(IFS='|'; echo "$*")
    name_re="^fsh($ids)"
    mark_re="fsh-multihost run=($ids)\$"
    dirs=$(for id; do echo /tmp/fsh"$id".*; done)
else
    name_re='^fsh'
    mark_re='fsh-multihost run='
    dirs=$(echo /tmp/fsh????.*)
fi
dirty=0
say() { echo "check-clean: $*"; dirty=1; }

for ns in $(ip netns list 2>/dev/null | awk '{print $1}' | grep -E "$name_re"); do
    [ $processes_only = 0 ] && say "namespace $ns"
    pids=$(ip netns pids "$ns" 2>/dev/null | tr '\n' ' ')
    if [ -n "${pids// /}" ]; then
        say "processes in $ns: $pids"
        ps -o pid=,args= -p "$(echo $pids | tr ' ' ,)" 2>/dev/null | sed 's/^/check-clean:     /' | head -20
        [ $fix = 1 ] && echo "$pids" | xargs -r kill -9
    fi
    [ $fix = 1 ] && [ $processes_only = 0 ] && ip netns del "$ns"
done
for l in $(ip -o link show 2>/dev/null | awk -F': ' '{print $2}' | sed 's/@.*//' | grep -E "$name_re"); do
    [ $processes_only = 1 ] && break
    say "link $l"
    [ $fix = 1 ] && ip link del "$l" 2>/dev/null
done
# Processes of a run outside its namespaces (COMMAND, mpirun, left running
# after with-hosts.sh was killed by -9): they carry FSH_RUNID in their
# environment. This script and its ancestors (a COMMAND calling it) are skipped.
ours=" "
p=$$
while [ -n "$p" ] && [ "$p" -gt 1 ]; do
    ours+="$p "
    p=$(awk '{print $4}' "/proc/$p/stat" 2>/dev/null)
done
if [ $# -gt 0 ]; then env_re="^FSH_RUNID=($ids)\$"; else env_re='^FSH_RUNID='; fi
for e in /proc/[0-9]*/environ; do
    p=${e#/proc/}; p=${p%/environ}
    case $ours in *" $p "*) continue ;; esac
    tr '\0' '\n' 2>/dev/null <"$e" | grep -q -E "$env_re" || continue
    st=$(awk '{print $3}' "/proc/$p/stat" 2>/dev/null)
    [ -z "$st" ] || [ "$st" = Z ] && continue
    say "process of a run: $(ps -o pid=,args= -p "$p" | cut -c1-150)"
    [ $fix = 1 ] && kill -9 "$p" 2>/dev/null
done
if [ $processes_only = 1 ]; then
    mark_re=""   # /etc/hosts lines and temp dirs are the run's, not the job's
    dirs=""
fi
if [ -n "$mark_re" ] && grep -q -E "$mark_re" /etc/hosts 2>/dev/null; then
    say "/etc/hosts lines:"
    grep -E "$mark_re" /etc/hosts | sed 's/^/check-clean:     /'
    if [ $fix = 1 ]; then
        tmp=$(mktemp) && grep -v -E "$mark_re" /etc/hosts >"$tmp"
        cat "$tmp" >/etc/hosts   # in place: /etc/hosts may be a bind mount
        rm -f "$tmp"
    fi
fi
for d in $dirs; do
    [ -e "$d" ] || continue
    say "temp dir $d"
    [ $fix = 1 ] && rm -rf "$d"
done
if [ $dirty = 0 ]; then
    echo "check-clean: clean"
    exit 0
fi
[ $fix = 1 ] && echo "check-clean: removed the above"
exit 1
