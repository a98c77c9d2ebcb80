#!/usr/bin/env bash
# check-clean.sh: exits non-zero (and says what) if anything left by
# with-hosts.sh is still there: network namespaces or links named fsh*,
# /etc/hosts lines with the fsh-multihost marker, processes inside leftover
# namespaces, temp dirs /tmp/fsh<runid>.*.
# With --fix, also removes them (for cleaning up after a killed -9 run).
set -u
fix=0
[ "${1:-}" = "--fix" ] && fix=1
dirty=0
say() { echo "check-clean: $*"; dirty=1; }

for ns in $(ip netns list 2>/dev/null | awk '{print $1}' | grep '^fsh'); do
    say "namespace $ns"
    pids=$(ip netns pids "$ns" 2>/dev/null | tr '\n' ' ')
    if [ -n "$pids" ]; then
        say "processes in $ns: $pids"
        ps -o pid=,args= -p "${pids// /,}" 2>/dev/null | sed 's/^/check-clean:     /' | head -20
        [ $fix = 1 ] && echo "$pids" | xargs -r kill -9
    fi
    [ $fix = 1 ] && ip netns del "$ns"
done
for l in $(ip -o link show 2>/dev/null | awk -F': ' '{print $2}' | sed 's/@.*//' | grep '^fsh'); do
    say "link $l"
    [ $fix = 1 ] && ip link del "$l" 2>/dev/null
done
if grep -q 'fsh-multihost run=' /etc/hosts 2>/dev/null; then
    say "/etc/hosts lines:"
    grep 'fsh-multihost run=' /etc/hosts | sed 's/^/check-clean:     /'
    if [ $fix = 1 ]; then
        tmp=$(mktemp) && grep -v 'fsh-multihost run=' /etc/hosts >"$tmp"
        cat "$tmp" >/etc/hosts; rm -f "$tmp"
    fi
fi
for d in /tmp/fsh????.*; do
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
