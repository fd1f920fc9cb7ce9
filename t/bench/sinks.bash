# t/bench/sinks.bash - sourced by the delivery benchmarks: D smtp-sinks on
# loopback, one per domain d0.test .. d<D-1>.test, the map of the domains
# to them in $DIR/map ("dN.test smtp:[127.0.0.1]:PORT"), their pids in
# SINKS; R subscribers spread over those domains; and ms, milliseconds
# since the epoch.  Needs root (smtp-sink -u).  With SINK_TLS_CERT and
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
