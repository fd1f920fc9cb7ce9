# t/bench/sinks.bash - sourced by the delivery benchmarks: D smtp-sinks on
# loopback, one per domain d0.test .. d<D-1>.test, the map of the domains
# to them in $DIR/map ("dN.test smtp:[127.0.0.1]:PORT"), their pids in
# SINKS; R subscribers spread over those domains; ms, milliseconds
# since the epoch; and an mjq tree with the list of those subscribers
# (sinks_list) whose post is drained by one runner and timed
# (sinks_drain).  Needs root (smtp-sink -u).  With SINK_TLS_CERT and
# SINK_TLS_KEY set the sinks are mj_testsmtpd offering STARTTLS with that
# certificate, logging each handshake to $DIR/sink.tls (sink_handshakes).

SINKS=()

# port_free - an unused loopback port
port_free() {
	local p
	while :; do
		# below the ephemeral range, so no outgoing socket holds it
		p=$((10000 + RANDOM % 20000))
		if ! (exec 3<>/dev/tcp/127.0.0.1/$p) 2>/dev/null; then
			echo "$p"
			return
		fi
	done
}

# ms - milliseconds since the epoch
ms() {
	date +%s%3N
}

# sinks_start D - the sinks and $DIR/map; returns once all listen
sinks_start() {
	local d p i
	: >"$DIR/map"
	for d in $(seq 0 $(($1 - 1))); do
		p=$(port_free)
		if [ -n "${SINK_TLS_CERT:-}" ]; then
			"$TOP/t/tools/mj_testsmtpd" -p "$p" --size 0 \
				--tls-cert "$SINK_TLS_CERT" --tls-key "$SINK_TLS_KEY" \
				--tls-log "$DIR/sink.tls" 2>>"$DIR/sink.err" &
		else
			smtp-sink -u postfix "127.0.0.1:$p" 1024 2>>"$DIR/sink.err" &
		fi
		SINKS+=($!)
		printf 'd%d.test smtp:[127.0.0.1]:%d\n' "$d" "$p" >>"$DIR/map"
	done
	for d in $(seq 0 $(($1 - 1))); do
		p=$(sed -n "$((d + 1))p" "$DIR/map" | sed 's/.*://')
		for i in $(seq 1 100); do
			(exec 3<>/dev/tcp/127.0.0.1/$p) 2>/dev/null && continue 2
			sleep 0.05
		done
		echo "${0##*/}: smtp-sink on port $p did not start:" >&2
		cat "$DIR/sink.err" >&2
		exit 1
	done
}

# subscribers_make R D - u1@d1.test .. uR@d<R mod D>.test in
# $DIR/subscribers
subscribers_make() {
	awk -v r="$1" -v d="$2" 'BEGIN { for (i = 1; i <= r; i++) printf "u%d@d%d.test\n", i, i % d }' \
		>"$DIR/subscribers"
}

# sinks_stop - kill the sinks
sinks_stop() {
	local p
	for p in "${SINKS[@]}"; do kill "$p" 2>/dev/null || true; done
	wait 2>/dev/null || true
}

# sink_cpu - CPU time of the sinks so far, in microseconds (schedstat's
# nanoseconds on the CPU: exact, where stat's ticks are sampled and a
# sink busy for a few ms may show none)
sink_cpu() {
	local p t=0
	for p in "${SINKS[@]}"; do
		t=$((t + $(awk '{ print int($1 / 1000) }' "/proc/$p/schedstat" 2>/dev/null || echo 0)))
	done
	echo "$t"
}

# sink_handshakes - "FULL RESUMED": the TLS handshakes the sinks saw
sink_handshakes() {
	if [ -f "$DIR/sink.tls" ]; then
		echo "$(grep -c 'resumed=0' "$DIR/sink.tls" || true) $(grep -c 'resumed=1' "$DIR/sink.tls" || true)"
	else
		echo "0 0"
	fi
}

# sinks_cleanup - the sinks and $DIR go (the scripts' EXIT trap)
sinks_cleanup() {
	sinks_stop
	rm -rf "$DIR"
}

# sinks_setup - exit 77 (skipped) unless root, as smtp-sink -u needs;
# else $D sinks and $R subscribers, gone at exit
sinks_setup() {
	trap sinks_cleanup EXIT
	if [ "$(id -u)" -ne 0 ]; then
		echo "${0##*/}: needs root (smtp-sink -u)" >&2
		exit 77
	fi
	sinks_start "$D"
	subscribers_make "$R" "$D"
}

# sinks_msg NAME - the post the list gets: 40 lines of body text
sinks_msg() {
	local i
	printf 'From: poster@example.net\nTo: list@bench.example\n'
	printf 'Subject: %s benchmark\nDate: Wed, 25 Nov 2026 02:00:00 +0000\n' "$1"
	printf 'Message-Id: <%s.%s@bench.example>\n\n' "$1" "$$"
	for i in $(seq 1 40); do
		echo "A line of body text, about seventy characters long, number $i."
	done
}

# sinks_list W LISTCONF - an mjq tree in W whose list
# bench.example/list has $DIR/subscribers and, in its config's [list],
# lines "posting = open" (the poster is no subscriber) and LISTCONF;
# mjq.conf sends the domains to the sinks with THREADS (default 100, as
# Postfix's default_process_limit) delivery threads (callers append
# their own sections)
sinks_list() {
	mjq_workdir "$1"
	mkdir -p "$1/lists/bench.example/list"
	cp "$DIR/subscribers" "$1/lists/bench.example/list/subscribers"
	printf '[list]\nposting = open\n%s\n' "$2" >"$1/lists/bench.example/list/config"
	{
		printf '[delivery]\ndelivery_threads = %s\n' "${THREADS:-100}"
		printf '[transport_map]\n'
		sed 's/ / = /' "$DIR/map"
	} >>"$1/mjq.conf"
}

# sinks_drain NAME W [WRAP...] - msg (the caller's) posted to W's list,
# drained by $QR -1 (WRAP before it); exits 1 unless all $R recipients
# were sent; sets NAME_ms (from queued to the queue empty) and NAME_cpu
# (the runner's user + sys seconds)
sinks_drain() {
	local name=$1 w=$2 t0 t1 sent u s
	shift 2
	msg | "$ENQ" -C "$w/mjq.conf" -d bench.example -l list -r -f poster@example.net
	t0=$(ms)
	/usr/bin/time -f '%U %S' -o "$w/time" "$@" "$QR" -C "$w/mjq.conf" -1 2>"$w/log"
	t1=$(ms)
	sent=$(grep -c 'status=sent' "$w/log" || true)
	if [ -n "$(find "$w/spool/QUEUE" -type f)" ] || [ "$sent" -ne "$R" ]; then
		echo "${0##*/}: $name delivered $sent of $R" >&2
		grep -v status=sent "$w/log" | head >&2
		exit 1
	fi
	read -r u s <"$w/time"
	eval "${name}_ms=$((t1 - t0))"
	eval "${name}_cpu=$(awk -v u="$u" -v s="$s" 'BEGIN { print u + s }')"
}
