#!/bin/bash
# t/bench/cluster.sh [R] [D] - what [cluster] costs one node: one post to
# R subscribers over D domains, each domain its own smtp-sink, drained
# by mj_queuerun -1 with [cluster] off and on (a private redis-server on
# a unix socket in the same directory, as a node with Redis beside it
# runs), three times each, alternating.  Prints each run and the best
# rate of each, and their ratio: the leases are taken per session and the
# rate and dead state asked only at a session's start, so the cost is a
# few round trips per session, never per recipient.  Needs root
# (smtp-sink -u) and redis-server.  "t/bench/cluster.sh drain3" runs only
# the three-node drain (below).
set -eu
ONLY=
[ "${1:-}" != drain3 ] || { ONLY=drain3; shift; }
R=${1:-100000}
D=${2:-100}
TOP=$(cd "$(dirname "$0")/../.." && pwd)
ENQ=$TOP/enqueue/mj_enqueue
QR=${QR:-$TOP/queuerun/mj_queuerun}
DIR=$(mktemp -d /tmp/mjq-cluster.XXXXXX)
chmod 755 "$DIR"

. "$TOP/dev/mjq-workdir.sh"
. "$TOP/t/bench/sinks.bash"

command -v redis-server >/dev/null || {
	echo "cluster.sh: needs redis-server" >&2
	exit 77
}
if [ -z "$ONLY" ]; then
	sinks_setup
else
	trap sinks_cleanup EXIT
fi
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
[ -z "$ONLY" ] || R=0
[ -n "$ONLY" ] || sinks_list "$DIR/off" ""
[ -n "$ONLY" ] || {
	printf '[dkim]\nsign = no\n' >>"$DIR/off/mjq.conf"
	sinks_list "$DIR/on" ""
	printf '[dkim]\nsign = no\n[cluster]\nredis = %s\nnode_name = bench\n' \
		"$DIR/redis.sock" >>"$DIR/on/mjq.conf"
}

best_off=0 best_on=0
for i in $([ -n "$ONLY" ] || echo 1 2 3); do
	for w in off on; do
		sinks_drain "$w" "$DIR/$w"
		eval "t=\$${w}_ms c=\$${w}_cpu"
		rate=$((R * 1000 / t))
		printf '%-4s run %d: %6.2f s %8d rcpt/s  cpu %.2f s\n' \
			"$w" "$i" "$(echo "$t / 1000" | bc -l)" "$rate" "$c"
		eval "[ $rate -gt \$best_$w ] && best_$w=$rate || true"
	done
done
[ -n "$ONLY" ] ||
	printf 'best: off %d rcpt/s, on %d rcpt/s, on/off %.3f\n' \
		"$best_off" "$best_on" "$(echo "$best_on / $best_off" | bc -l)"

# The three-node drain (DRAIN3=0 skips it): three mj_queueserv nodes,
# each with a post of N3 recipients (default 1000) to one destination
# with destination_concurrency_limit = L3 (default 4), drained with
# [cluster] on (the limit shared through Redis, lease_time LEASE3,
# default 30s) and off (each node its own limit: together they may
# exceed it three times), alternating, RUNS3 times each (default 5: a
# drain takes 60 to 300 ms, which a busy machine stretches), against two
# receivers (mj_testsmtpd, counting the sessions open at once): one
# that takes any number of sessions at no cost ("uncapped"), and one
# that takes L3 at once (421 beyond) and 20 ms a message ("capped").
# Prints each run's time, the most sessions the receiver saw and the
# sessions it refused, then per receiver the best of each and
# shared/unshared.  Shared, the leases are spread over the nodes that
# want them (each gets its fair share, L3 over the nodes, while the
# others wait), so the three nodes drain side by side, as unshared,
# and the shared run never exceeds L3.  RECV3="uncapped" or "capped"
# runs one receiver only; EOD3 and CAP3 set by hand make a third
# ("custom").  SLOG3=FILE keeps the receiver's sessions over time in
# FILE.shared and FILE.unshared (mj_testsmtpd --stats-log), KEEP3=FILE
# the receiver's log and the nodes' logs in FILE.W and FILE.W.log.
[ "${DRAIN3:-1}" != 0 ] || exit 0
N3=${N3:-1000}
L3=${L3:-4}
LEASE3=${LEASE3:-30s}
RUNS3=${RUNS3:-5}
if [ -n "${EOD3:-}${CAP3:-}" ]; then
	RECV3=${RECV3:-custom}
	CUSTOM3="${EOD3:-0} ${CAP3:-}"
fi
RECV3=${RECV3:-uncapped capped}
QS=$TOP/queueserv/mj_queueserv

# drain3_node W I - node I's tree for the run W (shared or unshared)
drain3_node() {
	local d=$DIR/$1/n$2
	mjq_workdir "$d"
	mkdir -p "$d/lists/ex.org/big"
	seq -f "n$2-%g@d.test" 1 "$N3" >"$d/lists/ex.org/big/subscribers"
	printf '[list]\nposting = open\n' >"$d/lists/ex.org/big/config"
	cat >>"$d/mjq.conf" <<-CONF
		[dkim]
		sign = no
		[queueserv]
		runner_program = $QR
		max_runners = 2
		min_runners = 2
		[delivery]
		destination_recipient_limit = 10
		[transport:smtp]
		destination_concurrency_limit = $L3
		[transport_map]
		d.test = smtp:[127.0.0.1]:$PORT3
	CONF
	[ "$1" = unshared ] || printf '[cluster]\nredis = %s\nnode_name = n%s\nlease_time = %s\nexpected_nodes = 3\n' \
		"$DIR/redis.sock" "$2" "$LEASE3" >>"$d/mjq.conf"
}

# drain3 W - one run: the time in ms in t3, the receiver's max_open in o3
drain3() {
	local i p pids=() t0
	rm -rf "${DIR:?}/$1"
	PORT3=$(port_free)
	mkdir -p "$DIR/$1"
	"$TOP/t/tools/mj_testsmtpd" -p "$PORT3" --log "$DIR/$1/recv" \
		--stats "$DIR/$1/stats" --delay "eod=$EOD3" \
		${CAP3:+--max-sessions "$CAP3"} ${SLOG3:+--stats-log "$SLOG3.$1"} 2>>"$DIR/$1/sink.err" &
	p=$!
	until (exec 3<>/dev/tcp/127.0.0.1/$PORT3) 2>/dev/null; do sleep 0.05; done
	for i in 1 2 3; do
		drain3_node "$1" "$i"
		"$QS" -f -d -C "$DIR/$1/n$i/mjq.conf" </dev/null \
			>>"$DIR/$1/n$i/log" 2>&1 &
		pids+=($!)
	done
	for i in 1 2 3; do
		until "$QS" -C "$DIR/$1/n$i/mjq.conf" status >/dev/null 2>&1; do
			sleep 0.05
		done
	done
	t0=$(ms)
	for i in 1 2 3; do
		printf 'From: p@example.net\nSubject: n%s\n\nhello\n' "$i" |
			"$ENQ" -C "$DIR/$1/n$i/mjq.conf" -d ex.org -l big -r \
				-f p@example.net
	done
	# polled every 5 ms: a drain takes 60 to 300 ms here
	until [ "$(wc -l <"$DIR/$1/recv" 2>/dev/null || echo 0)" -ge $((3 * N3)) ] &&
		[ -z "$(find "$DIR/$1"/n?/spool/QUEUE -type f ! -name '.*')" ]; do
		sleep 0.005
	done
	t3=$(($(ms) - t0))
	o3=$(tr ' ' '\n' <"$DIR/$1/stats" | sed -n 's/^max_open=//p')
	r3=$(tr ' ' '\n' <"$DIR/$1/stats" | sed -n 's/^refused=//p')
	u3=$(cat "$DIR/$1"/n?/log | grep -c 'cluster: Redis at .* unreachable' || true)
	[ -z "${KEEP3:-}" ] || cp "$DIR/$1/recv" "$KEEP3.$1"
	[ -z "${KEEP3:-}" ] || cat "$DIR/$1"/n?/log >"$KEEP3.$1.log"
	kill "${pids[@]}" "$p" 2>/dev/null || true
	wait "${pids[@]}" "$p" 2>/dev/null || true
	redis-cli -s "$DIR/redis.sock" flushall >/dev/null
}

# drain3_series R - RUNS3 alternating runs of each against receiver R
# (EOD3 and CAP3 set for it), and the summary line
drain3_series() {
	local i w best_shared=0 best_unshared=0 worst_open=0 all_shared= all_unshared=
	for i in $(seq "$RUNS3"); do
		for w in unshared shared; do
			drain3 "$w"
			eval "all_$w=\"\$all_$w $t3\""
			printf '%s: three nodes %-8s run %d: %6.2f s, receiver max_open %d refused %d%s\n' \
				"$1" "$w" "$i" "$(echo "$t3 / 1000" | bc -l)" "$o3" "$r3" \
				"$([ "$u3" -eq 0 ] || echo ", Redis unreachable $u3 times")"
			eval "[ \$best_$w -eq 0 ] || [ $t3 -lt \$best_$w ] && best_$w=$t3 || true"
			[ "$w" = unshared ] || [ "$o3" -le "$worst_open" ] || worst_open=$o3
		done
	done
	printf '%s: three nodes, %d recipients each, limit %d: best unshared %.2f s, shared %.2f s, shared/unshared %.3f, shared max_open %d\n' \
		"$1" "$N3" "$L3" "$(echo "$best_unshared / 1000" | bc -l)" \
		"$(echo "$best_shared / 1000" | bc -l)" \
		"$(echo "$best_shared / $best_unshared" | bc -l)" "$worst_open"
	printf '%s: medians of the %d runs: unshared %.2f s, shared %.2f s, shared/unshared %.3f\n' \
		"$1" "$RUNS3" "$(echo "$(median $all_unshared) / 1000" | bc -l)" \
		"$(echo "$(median $all_shared) / 1000" | bc -l)" \
		"$(echo "$(median $all_shared) / $(median $all_unshared)" | bc -l)"
}

# median N... - the middle value (the lower of the two middle ones)
median() {
	printf '%s\n' "$@" | sort -n | sed -n "$((($# + 1) / 2))p"
}

uptime
for recv in $RECV3; do
	case $recv in
	uncapped) EOD3=0 CAP3= ;;
	capped) EOD3=20 CAP3=$L3 ;;
	*) read -r EOD3 CAP3 <<<"$CUSTOM3" ;;
	esac
	drain3_series "$recv"
done
uptime
