#!/bin/bash
# t/bench/queueserv.sh - the figures of mj_queueserv:
#   1. poke to walk: from mj_enqueue's exit to a runner starting its walk
#      (the runner's "walk start" debug line), median over PROBES
#      (default 100) pokes, with an idle pool (handshake + run) and a
#      busy pool (coalesced rescan);
#   2. the server's RSS before and after POKES (default 100k) pokes on
#      its socket.
# KEEP=1 keeps the work directory (its log) for a look afterwards.
# The measured messages go to a list without subscribers (the runner
# finishes them at once); for the busy pool each runner first takes a
# message to slow@example.org, whose SMTP server (mj_testsmtpd) never
# finishes the DATA phase, so the runner stays busy throughout.
set -eu
TOP=$(cd "$(dirname "$0")/../.." && pwd)
. "$TOP/dev/mjq-workdir.sh"
QS=$TOP/queueserv/mj_queueserv
ENQ=$TOP/enqueue/mj_enqueue
RUNNER=${MJQ_TEST_RUNNER:-$TOP/queuerun/mj_queuerun}
SMTPD=$TOP/t/tools/mj_testsmtpd
POKES=${POKES:-100000}
PROBES=${PROBES:-100} # enqueues per poke-to-walk figure
DIR=$(mktemp -d)
QS_PID=
SMTPD_PID=
KEEP=${KEEP:-}; trap '[ -n "$QS_PID" ] && kill "$QS_PID"; [ -n "$SMTPD_PID" ] && kill "$SMTPD_PID"; wait; [ -n "$KEEP" ] || rm -rf "$DIR"' EXIT

# setup MAX MIN - a fresh spool and config
setup() {
	rm -rf "$DIR/spool" "$DIR/lists"
	mjq_workdir "$DIR"
	mkdir -p "$DIR/lists/example.org/test" "$DIR/lists/example.org/slow"
	: >"$DIR/lists/example.org/test/subscribers"
	echo "u@slow.test" >"$DIR/lists/example.org/slow/subscribers"
	# the posters are no subscribers: without this the posts are held
	printf '[list]\nposting = open\n' >"$DIR/lists/example.org/test/config"
	printf '[list]\nposting = open\n' >"$DIR/lists/example.org/slow/config"
	cat >>"$DIR/mjq.conf" <<-EOF
		[enqueue]
		poke_timeout_ms = 5000
		[queueserv]
		runner_program = $RUNNER
		max_runners = $1
		min_runners = $2
		runner_idle_timeout = 1h
		queue_run_delay = 1h
		max_clients = 256
		[transport_map]
		slow.test = smtp:[127.0.0.1]:$PORT
		[dkim]
		sign = no
	EOF
}

start() {
	: >"$DIR/log"
	"$QS" -f -d -C "$DIR/mjq.conf" </dev/null >>"$DIR/log" 2>&1 &
	QS_PID=$!
	until "$QS" -C "$DIR/mjq.conf" status >/dev/null 2>&1; do sleep 0.05; done
}

stop() {
	"$QS" -C "$DIR/mjq.conf" stop >/dev/null || true
	wait "$QS_PID" 2>/dev/null || true
	QS_PID=
}

walks() {
	grep -c 'walk start' "$DIR/log" || true
}

# summary LABEL FILE - median, p90, min, max of the numbers in FILE
summary() {
	sort -n "$2" | awk -v l="$1" '{v[NR]=$1}
	    END {printf "%s: median %.2f ms, p90 %.2f ms, min %.2f, max %.2f (n=%d)\n",
	        l, v[int((NR+1)/2)], v[int(NR*0.9)], v[1], v[NR], NR}'
}

# poke_to_walk LABEL - PROBES enqueues, one at a time: walk start minus
# mj_enqueue's exit (negative: the walk began before it had exited), and
# minus its start (the whole enqueue, fsyncs included)
poke_to_walk() {
	local i n t0 t1 ts
	: >"$DIR/lat"
	: >"$DIR/lat0"
	for i in $(seq "$PROBES"); do
		n=$(walks)
		t0=$EPOCHREALTIME
		printf 'Subject: %s\n\nx\n' "$i" |
			"$ENQ" -C "$DIR/mjq.conf" -d example.org -l test -r
		t1=$EPOCHREALTIME
		until [ "$(walks)" -gt "$n" ]; do sleep 0.001; done
		ts=$(grep 'walk start' "$DIR/log" | sed -n "$((n + 1))p" |
			awk '{print $NF}')
		echo "$ts $t1" | awk '{printf "%.3f\n", ($1 - $2) * 1000}' >>"$DIR/lat"
		echo "$ts $t0" | awk '{printf "%.3f\n", ($1 - $2) * 1000}' >>"$DIR/lat0"
	done
	summary "$1, from mj_enqueue's exit" "$DIR/lat"
	summary "$1, from mj_enqueue's start" "$DIR/lat0"
}

# The SMTP server that never finishes a DATA phase.
"$SMTPD" --port-file "$DIR/port" --delay eod=3600000 2>/dev/null &
SMTPD_PID=$!
until [ -s "$DIR/port" ]; do sleep 0.05; done
PORT=$(cat "$DIR/port")

echo "== poke to walk, idle pool (1 runner, idle)"
setup 1 1
start
until grep -q 'slot 0: busy -> idle\|slot 0: starting -> idle' "$DIR/log"; do sleep 0.05; done
poke_to_walk "idle pool"
stop

echo "== poke to walk, busy pool (2 runners, each delivering a message)"
setup 2 2
start
for i in 1 2; do
	printf 'Subject: slow\n\nx\n' |
		"$ENQ" -C "$DIR/mjq.conf" -d example.org -l slow -r -f a@example.net
	until "$QS" -C "$DIR/mjq.conf" status -j |
		[ "$(grep -o '"in_hand":1' | wc -l)" -ge "$i" ]; do
		sleep 0.05
	done
done
poke_to_walk "busy pool"
"$QS" -C "$DIR/mjq.conf" status | sed -n '2,4p'
stop

echo "== server RSS under $POKES pokes"
setup 2 1
start
rss() { awk '/^VmRSS/ {print $2}' "/proc/$QS_PID/status"; }
before=$(rss)
t0=$EPOCHREALTIME
python3 - "$DIR/spool/queueserv.sock" "$POKES" <<'EOF'
import socket, sys
path, total = sys.argv[1], int(sys.argv[2])
par = 64
done = 0
while done < total:
    socks = []
    for i in range(min(par, total - done)):
        s = socket.socket(socket.AF_UNIX)
        s.connect(path)
        s.sendall(b"poke\n")
        socks.append(s)
    for s in socks:
        if s.recv(16) != b"ok\n":
            sys.exit("bad reply")
        s.close()
    done += len(socks)
EOF
t1=$EPOCHREALTIME
after=$(rss)
pokes=$("$QS" -C "$DIR/mjq.conf" status -j | grep -o '"pokes":[0-9]*' | cut -d: -f2)
echo "$before $after $pokes $t0 $t1" | awk '{printf "RSS before %d kB, after %d pokes %d kB (%d answered, %.0f pokes/s)\n", $1, $3, $2, $3, $3 / ($5 - $4)}'
stop
