# Sourced by the benchmarks that run beside busy loops (bench/run-busy.sh,
# bench/run-put-rate.sh): `start_busy N` starts N shell loops (`while :; do :; done`) that
# compete for the cores, replacing any started before; `stop_busy` ends them, as does the
# script's exit.
BUSY=""
stop_busy() {
    for p in $BUSY; do kill "$p" 2>/dev/null || true; done
    BUSY=""
}
start_busy() {
    stop_busy
    i=0
    while [ "$i" -lt "$1" ]; do
        sh -c 'while :; do :; done' &
        BUSY="$BUSY $!"
        i=$((i + 1))
    done
}
trap stop_busy EXIT INT TERM
