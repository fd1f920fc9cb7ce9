#!/bin/bash
# t/bench/cluster.sh [R] [D] - what [cluster] costs one node: one post to
# R subscribers over D domains, each domain its own smtp-sink, drained
# by mj_queuerun -1 with [cluster] off and on (a private redis-server on
# a unix socket in the same directory, as a node with Redis beside it
# runs), three times each, alternating.  Prints each run and the best
# rate of each, and their ratio: the leases are taken per session and the
# rate and dead state asked only at a session's start, so the cost is a
# few round trips per session, never per recipient.  Needs root
# (smtp-sink -u) and redis-server.
set -eu
R=${1:-100000}
D=${2:-100}
TOP=$(cd "$(dirname "$0")/../.." && pwd)
ENQ=$TOP/enqueue/mj_enqueue
QR=${QR:-$TOP/queuerun/mj_queuerun}
DIR=$(mktemp -d /tmp/mjq-cluster.XXXXXX)
chmod 755 "$DIR"

. "$TOP/scripts/mjq-workdir.sh"
. "$TOP/t/bench/sinks.bash"

command -v redis-server >/dev/null || {
	echo "cluster.sh: needs redis-server" >&2
	exit 77
}
sinks_setup
redis-server --port 0 --unixsocket "$DIR/redis.sock" --save '' \
	--appendonly no --dir "$DIR" >"$DIR/redis.log" 2>&1 &
REDIS=$!
trap 'kill "$REDIS" 2>/dev/null; sinks_cleanup' EXIT
until [ "$(redis-cli -s "$DIR/redis.sock" ping 2>/dev/null)" = PONG ]; do
	sleep 0.05
done

msg() {
	sinks_msg cluster
}

# the two trees: the same list, [cluster] off and on
sinks_list "$DIR/off" ""
printf '[dkim]\nsign = no\n' >>"$DIR/off/mjq.conf"
sinks_list "$DIR/on" ""
printf '[dkim]\nsign = no\n[cluster]\nredis = %s\nnode_name = bench\n' \
	"$DIR/redis.sock" >>"$DIR/on/mjq.conf"

best_off=0 best_on=0
for i in 1 2 3; do
	for w in off on; do
		sinks_drain "$w" "$DIR/$w"
		eval "t=\$${w}_ms c=\$${w}_cpu"
		rate=$((R * 1000 / t))
		printf '%-4s run %d: %6.2f s %8d rcpt/s  cpu %.2f s\n' \
			"$w" "$i" "$(echo "$t / 1000" | bc -l)" "$rate" "$c"
		eval "[ $rate -gt \$best_$w ] && best_$w=$rate || true"
	done
done
printf 'best: off %d rcpt/s, on %d rcpt/s, on/off %.3f\n' "$best_off" \
	"$best_on" "$(echo "$best_on / $best_off" | bc -l)"
