#!/usr/bin/env bats
# t/300-queueserv.bats - mj_queueserv with real processes: the pool, its
# recovery from killed, stopped and crashing runners, the control verbs,
# one server per spool, and the tmp/ sweeper.
#
# The runners deliver for real: test@example.org has one subscriber whose
# domain goes to an mj_testsmtpd that keeps every message, so "nothing
# lost" is exact: every subject enqueued arrives at the sink (a message
# in flight when its runner is killed may arrive twice, never not at all).

bats_require_minimum_version 1.5.0
load helpers
load smtp_helpers

setup() {
	RUNNER=$MJ_QUEUERUN
	[ -x "$RUNNER" ] || skip "no runner program: build queuerun/mj_queuerun"
	QS_PID=
	SEEN_RUNNERS=
	SMTPD_ARGS=()
	SYSLOGD=
}

teardown() {
	record_runners
	stop_everything $SEEN_RUNNERS
	[ -z "$SYSLOGD" ] || kill "$SYSLOGD" 2>/dev/null || true
}

# qs_conf [INI...] - this test's config: short timeouts, the extra
# [queueserv] lines, the sink for the subscriber's domain
qs_conf() {
	smtpd_start sink "${SMTPD_ARGS[@]}"
	mjq_setup <<-EOF
		poke_timeout_ms = 5000
		[queueserv]
		runner_program = $RUNNER
		max_runners = 2
		handshake_timeout_ms = 200
		runner_hang_timeout = 30s
		runner_kill_timeout = 1s
		runner_idle_timeout = 60s
		shutdown_timeout = 5s
		queue_run_delay = 1h
		$(printf '%s\n' "$@")
		[transport_map]
		ex.test = smtp:[127.0.0.1]:$PORT
	EOF
	mjq_list example.org test sub@ex.test
}

# enqueue N - N messages to test@example.org, each with its own subject
enqueue() {
	local i
	for i in $(seq "$1"); do
		printf 'From: a@example.net\nSubject: m%s-%s\n\nbody\n' \
			"$BASHPID" "$i" |
			"$MJ_ENQUEUE" -C "$CONF" -d example.org -l test -r \
				-f a@example.net || return 1
	done
}

# record_runners - remember every runner seen, for teardown
record_runners() {
	[ -n "${QS_PID:-}" ] && SEEN_RUNNERS="$SEEN_RUNNERS $(runner_pids)"
	return 0
}

# nrunners N - exactly N runners
nrunners() {
	record_runners
	[ "$(runner_pids | wc -l)" -eq "$1" ]
}

# gone PID... - none of them is alive
gone() {
	local p
	for p in "$@"; do
		! alive "$p" || return 1
	done
}

# new_runners OLD - runners are there and none of them is in OLD
new_runners() {
	local p now
	now=$(runner_pids)
	[ -n "$now" ] || return 1
	for p in $now; do
		! grep -qx "$p" <<<"$1" || return 1
	done
}

# delivered - how many distinct messages the sink has
delivered() {
	[ -d "$BATS_TEST_TMPDIR/sink/save/new" ] || { echo 0; return; }
	grep -h '^Subject:' "$BATS_TEST_TMPDIR/sink/save/new"/* 2>/dev/null |
		sort -u | wc -l
}

# all_delivered N - N messages arrived and the queue is empty
all_delivered() {
	[ "$(delivered)" -eq "$1" ] && [ -z "$(queue_files)" ]
}

# json_field NAME - the first number or string of "NAME": in status -j
json_field() {
	"$MJ_QUEUESERV" -C "$CONF" status -j |
		grep -o "\"$1\":[^,}]*" | head -1 | cut -d: -f2 | tr -d '"'
}

# log_has TEXT - the server's log has a line with TEXT
log_has() {
	grep -q -- "$1" "$QS_LOG"
}

@test "a poke from mj_enqueue has a runner walk and deliver" {
	qs_conf
	queueserv_start
	wait_for 5 nrunners 1
	wait_for 5 eval '[ "$(json_field state)" = idle ]'
	enqueue 3
	wait_for 10 all_delivered 3
	[ "$(json_field pokes)" -eq 3 ]
	[ "$(grep -c 'walk start' "$QS_LOG")" -ge 2 ]
}

@test "status without a server says so, exits 69, and still counts the spool" {
	qs_conf
	enqueue 2
	run -69 --separate-stderr "$MJ_QUEUESERV" -C "$CONF" status
	[[ "$stderr" == "mj_queueserv: no server answers on $SPOOL/queueserv.sock: "* ]]
	echo "$output"
	[ "${lines[0]}" = "server: not running; runners: none" ]
	[[ "$output" == *$'\ntotal            2        2        0        0           0\n'* ]]
	run -69 --separate-stderr "$MJ_QUEUESERV" -C "$CONF" status -j
	[[ "$output" == '{"server":null,"runners":[],"spool":{"outstanding":2,"due":2,"deferred":0,'* ]]
	run -69 --separate-stderr "$MJ_QUEUESERV" -C "$CONF" stop
	[ -z "$output" ]
}

@test "status shows the pool and exact spool counts per tier" {
	qs_conf
	enqueue 3
	# Two deferred, one held, one quarantined: nothing a runner takes.
	local f
	f=$(queue_files | head -1)
	mkdir -p "$SPOOL/HOLD/10/example.org/10/list" \
		"$SPOOL/BAD/20/example.org/05/list"
	mv "$SPOOL/$f" "$SPOOL/HOLD/10/example.org/10/list/"
	f=$(queue_files | head -1)
	mv "$SPOOL/$f" "$SPOOL/BAD/20/example.org/05/list/"
	printf 'x\n' | "$MJ_ENQUEUE" -C "$CONF" -d example.org -l test -r -P 30
	enqueue 1
	for f in $(queue_files); do touch -d '+1 hour' "$SPOOL/$f"; done
	queueserv_start
	wait_for 5 nrunners 1
	run -0 "$MJ_QUEUESERV" -C "$CONF" status
	echo "$output"
	[[ "${lines[0]}" =~ ^server:\ pid\ $QS_PID,\ up\ [0-9]+s,\ 0\ pokes,\ runners\ 1\ of\ 2\ \(min\ 0\)$ ]]
	[ "${lines[1]}" = "slot  pid      state       in-hand     done   uptime" ]
	[[ "${lines[2]}" =~ ^0\ +[0-9]+\ +(idle|busy|starting)\ +0\ +0\ +[0-9]+s$ ]]
	[ "${lines[3]}" = "tier   outstanding      due deferred     held quarantined" ]
	[ "${lines[4]}" = "30/10            1        0        1        0           0" ]
	[ "${lines[5]}" = "20/05            0        0        0        0           1" ]
	[ "${lines[6]}" = "10/10            2        0        2        1           0" ]
	[ "${lines[7]}" = "total            3        0        3        1           1" ]
	[[ "${lines[8]}" =~ ^oldest:\ [0-9]+s$ ]]
	[ "${lines[9]}" = "held: test@example.org 1" ]
	[ "${#lines[@]}" -eq 10 ]
}

@test "status -j is one JSON object with the pool and the spool" {
	qs_conf
	enqueue 1
	for f in $(queue_files); do touch -d '+1 hour' "$SPOOL/$f"; done
	queueserv_start
	wait_for 5 nrunners 1
	run -0 "$MJ_QUEUESERV" -C "$CONF" status -j
	echo "$output"
	[ "${#lines[@]}" -eq 1 ]
	[[ "$output" =~ ^\{\"server\":\{\"pid\":$QS_PID,\"uptime\":[0-9]+,\"pokes\":0,\"runners\":1,\"min_runners\":0,\"max_runners\":2\},\"runners\":\[\{\"slot\":0,\"pid\":[0-9]+,\"state\":\"[a-z]+\",\"in_hand\":0,\"done\":0,\"uptime\":[0-9]+\}\],\"spool\":\{\"outstanding\":1,\"due\":0,\"deferred\":1,\"held\":0,\"quarantined\":0,\"oldest_age\":[0-9]+,\"tiers\":\[\{\"domain_prio\":10,\"list_prio\":10,\"outstanding\":1,\"due\":0,\"deferred\":1,\"held\":0,\"quarantined\":0\}\],\"held_lists\":\[\]\},\"counts_since\":[0-9]+,\"destinations\":\[\],\"mta_sts\":\[\],\"dkim_errors\":\[\],\"incidents\":\[\],\"lists\":\[\{\"list\":\"test@example.org\",\"judged\":\{\"recipient\":0,\"mailbox\":0,\"policy\":0,\"transient\":0,\"unknown\":0\},\"complaints\":0,\"disabled\":0,\"disabled_addresses\":\[\],\"incidents\":0\}\]\}$ ]]
	if command -v python3 >/dev/null; then
		echo "$output" | python3 -m json.tool >/dev/null
	fi
	run -0 "$MJ_QUEUESERV" -C "$CONF" status json
	[[ "$output" == '{"server":{"pid":'* ]]
}

@test "status: a message a waiting runner takes is in hand at once, not at its next beat" {
	SMTPD_ARGS=(--delay eod=5000)
	qs_conf "min_runners = 1" "max_runners = 1"
	queueserv_start
	wait_for 5 nrunners 1
	wait_for 5 eval '[ "$(json_field state)" = idle ]'
	enqueue 1
	# the beat is 7.5 s apart here (runner_hang_timeout / 4); the
	# message stays in hand for 5 s, in its DATA phase
	wait_for 2 eval '[ "$(json_field in_hand)" -ge 1 ]'
	wait_for 20 all_delivered 1
}

@test "kill -9 of a busy runner: replaced, nothing lost" {
	SMTPD_ARGS=(--delay eod=700)
	qs_conf "max_runners = 1"
	enqueue 4
	queueserv_start
	wait_for 5 nrunners 1
	local old
	old=$(runner_pids)
	wait_for 30 eval '[ "$(json_field in_hand)" -ge 1 ]'
	kill -KILL "$old"
	wait_for 30 new_runners "$old"
	wait_for 30 log_has "runner $old (slot 0) killed by signal 9"
	wait_for 20 all_delivered 4
}

@test "kill -9 of the server: runners exit, a new server starts cleanly" {
	qs_conf "min_runners = 2"
	queueserv_start
	wait_for 5 nrunners 2
	local pids
	pids=$(runner_pids)
	kill -KILL "$QS_PID"
	wait "$QS_PID" 2>/dev/null || true
	wait_for 5 gone $pids
	[ -S "$SPOOL/queueserv.sock" ]
	[ -s "$SPOOL/queueserv.pid" ]
	queueserv_start
	wait_for 5 nrunners 2
	log_has "removed stale socket $SPOOL/queueserv.sock"
	enqueue 2
	wait_for 10 all_delivered 2
}

@test "a SIGSTOPped runner is detected, killed and replaced" {
	qs_conf "min_runners = 1" "runner_hang_timeout = 1s"
	queueserv_start
	wait_for 5 nrunners 1
	local old
	old=$(runner_pids)
	kill -STOP "$old"
	wait_for 10 log_has "runner $old (slot 0) silent for"
	wait_for 10 gone "$old"
	wait_for 10 new_runners "$old"
	log_has "runner $old (slot 0) did not exit: killing"
	log_has "runner $old (slot 0) killed by signal 9"
	enqueue 1
	wait_for 10 all_delivered 1
}

@test "1000 concurrent pokes: all answered, nothing lost" {
	slow "1,000 clients at once"
	qs_conf "max_runners = 2"
	queueserv_start
	local i pids=()
	for i in $(seq 1000); do
		printf 'Subject: c%s\n\nx\n' "$i" |
			"$MJ_ENQUEUE" -C "$CONF" -d example.org -l test -r \
				-f a@example.net 3>&- &
		pids+=($!)
	done
	for i in "${pids[@]}"; do
		wait "$i"
	done
	alive "$QS_PID"
	[ "$(json_field pokes)" -eq 1000 ]
	wait_for 60 all_delivered 1000
}

@test "every runner killed at once: the pool recovers" {
	qs_conf "min_runners = 3" "max_runners = 3"
	queueserv_start
	wait_for 5 nrunners 3
	local old
	old=$(runner_pids)
	kill -KILL $old
	wait_for 10 nrunners 3
	new_runners "$old"
	enqueue 2
	wait_for 10 all_delivered 2
}

@test "a runner that keeps dying is throttled and logged loudly" {
	printf '#!/bin/sh\nexit 3\n' >"$BATS_TEST_TMPDIR/crash"
	chmod +x "$BATS_TEST_TMPDIR/crash"
	RUNNER=$BATS_TEST_TMPDIR/crash
	qs_conf "max_runners = 1"
	queueserv_start
	sleep 4.5 # the throttle is what is measured: time must pass
	local n
	n=$(grep -c 'exited with status 3' "$QS_LOG")
	echo "spawns in 4.5s: $n"
	# 0 s, 1 s, then 2 and 4 s of backoff: 3 or 4, never a busy loop.
	[ "$n" -ge 2 ] && [ "$n" -le 4 ]
	log_has "runner slot 0: 3 quick deaths in a row; next start in"
	alive "$QS_PID"
}

@test "graceful stop: in-flight work finishes, files removed, exit 0" {
	SMTPD_ARGS=(--delay eod=1000)
	qs_conf "max_runners = 1"
	enqueue 1
	queueserv_start
	wait_for 5 eval '[ "$(json_field in_hand)" -ge 1 ]'
	local r
	r=$(runner_pids)
	run -0 "$MJ_QUEUESERV" -C "$CONF" stop
	[ "$output" = "ok stopping" ]
	[ -n "$r" ]
	run ! alive "$QS_PID"
	run ! alive "$r"
	wait "$QS_PID"
	QS_PID=
	[ ! -e "$SPOOL/queueserv.sock" ]
	[ ! -e "$SPOOL/queueserv.pid" ]
	all_delivered 1
	log_has "stopping (stop request)"
	log_has "mj_queueserv: stopped"
}

@test "SIGTERM stops the server and its runners" {
	qs_conf "min_runners = 2"
	queueserv_start
	wait_for 5 nrunners 2
	local pids
	pids=$(runner_pids)
	kill -TERM "$QS_PID"
	wait "$QS_PID"
	QS_PID=
	wait_for 5 gone $pids
	[ ! -e "$SPOOL/queueserv.sock" ]
}

@test "a second instance on the same spool is refused" {
	qs_conf
	queueserv_start
	run -1 "$MJ_QUEUESERV" -f -C "$CONF"
	[ "$output" = "mj_queueserv: already running for $SPOOL (pid $QS_PID)" ]
	run -1 "$MJ_QUEUESERV" -C "$CONF"
	alive "$QS_PID"
	queueserv_answers
}

@test "a stale pidfile and socket are recovered" {
	qs_conf
	mkdir -p "$SPOOL"
	echo 999999 >"$SPOOL/queueserv.pid"
	"$TOP/t/tools/mj_unixsock" stale "$SPOOL/queueserv.sock"
	queueserv_start
	[ "$(cat "$SPOOL/queueserv.pid")" = "$QS_PID" ]
	log_has "removed stale socket"
}

@test "reload replaces the runners with the new configuration" {
	qs_conf "min_runners = 1"
	queueserv_start
	wait_for 5 nrunners 1
	local old
	old=$(runner_pids)
	sed -i 's/^max_runners = 2$/max_runners = 3/' "$CONF"
	run -0 "$MJ_QUEUESERV" -C "$CONF" reload
	[ "$output" = "ok reloading" ]
	wait_for 10 gone $old
	wait_for 10 new_runners "$old"
	[ "$(json_field max_runners)" -eq 3 ]
	# A broken file keeps the running configuration; SIGHUP reloads too.
	sed -i 's/^max_runners = 3$/max_runners = nonsense/' "$CONF"
	kill -HUP "$QS_PID"
	wait_for 5 log_has "reload: .*keeping the running configuration"
	sed -i 's/^max_runners = nonsense$/max_runners = 3/' "$CONF"
	[ "$(json_field max_runners)" -eq 3 ]
	old=$(runner_pids)
	kill -HUP "$QS_PID"
	wait_for 10 gone $old
	wait_for 10 new_runners "$old"
}

@test "flush makes every deferred message due and runs them" {
	qs_conf
	enqueue 3
	for f in $(queue_files); do touch -d '+2 hours' "$SPOOL/$f"; done
	queueserv_start
	wait_for 5 eval '[ "$(json_field state)" = idle ]'
	[ "$(json_field deferred)" -eq 3 ]
	run -0 "$MJ_QUEUESERV" -C "$CONF" flush
	[ "$output" = "ok 3 deferred messages due now" ]
	local f m now
	now=$(date +%s)
	for f in $(queue_files); do
		# a runner may deliver and remove a message meanwhile
		m=$(stat -c %Y "$SPOOL/$f" 2>/dev/null) || continue
		[ "$m" -le "$now" ]
	done
	wait_for 10 all_delivered 3
	run -0 "$MJ_QUEUESERV" -C "$CONF" flush
	[ "$output" = "ok 0 deferred messages due now" ]
}

@test "the sweeper removes old tmp files and logs each" {
	qs_conf
	echo partial >"$SPOOL/tmp/old-crash"
	touch -d '2 days ago' "$SPOOL/tmp/old-crash"
	echo inflight >"$SPOOL/tmp/fresh"
	queueserv_start
	wait_for 5 eval '[ ! -e "$SPOOL/tmp/old-crash" ]'
	[ -e "$SPOOL/tmp/fresh" ]
	log_has "sweep: removed tmp/old-crash, left 17[0-9][0-9][0-9][0-9]s ago"
}

@test "a silent client does not block pokes; bad requests get an error" {
	qs_conf "client_timeout_ms = 500"
	queueserv_start
	"$TOP/t/tools/mj_unixsock" hold "$SPOOL/queueserv.sock" 20 \
		>"$BATS_TEST_TMPDIR/held" 3>&- &
	local holder=$!
	wait_for 5 grep -qx 'connected 20' "$BATS_TEST_TMPDIR/held"
	enqueue 1
	[ "$(json_field pokes)" -eq 1 ]
	wait_for 5 eval 'log_has "client timed out"'
	kill "$holder" 2>/dev/null || true
	wait "$holder" 2>/dev/null || true
	run -64 "$MJ_QUEUESERV" -C "$CONF" status -x
	[[ "$output" == *usage:* ]]
}

@test "the init script starts, reports and stops the server" {
	qs_conf
	local init=$TOP/scripts/init/mj_queueserv.init
	export MJ_QUEUESERV MJQ_CONF=$CONF
	run -3 sh "$init" status
	[[ "$output" == *"not running"* ]]
	run -0 sh "$init" start
	# the daemon writes its pid file after it forked
	wait_for 10 test -s "$SPOOL/queueserv.pid"
	QS_PID=$(cat "$SPOOL/queueserv.pid")
	alive "$QS_PID"
	run -0 sh "$init" status
	[[ "$output" == *"is running"* ]]
	run -0 sh "$init" start # already running: LSB says success
	run -0 sh "$init" stop
	# not our child: "stop" returns as it exits, the kernel may
	# still be tearing it down
	wait_for 5 gone "$QS_PID"
	QS_PID=
	run -3 sh "$init" status
	run -0 sh "$init" stop # already stopped: success too
}

@test "no syslog daemon: the daemonized server and its runners log to the stderr they were started with" {
	[ "$(id -u)" -eq 0 ] || skip "needs root: a mount namespace"
	command -v unshare >/dev/null || skip "no unshare"
	qs_conf
	local err=$BATS_TEST_TMPDIR/stderr nolog=$BATS_TEST_TMPDIR/nolog
	: >"$nolog"
	# In a mount namespace of its own, /dev/log (where the machine has
	# one) is an empty file: no syslog daemon listens there.
	unshare -m sh -c '[ ! -e /dev/log ] || mount --bind "$1" /dev/log || exit 1
		exec "$2" -C "$3"' sh "$nolog" "$MJ_QUEUESERV" "$CONF" \
		</dev/null >/dev/null 2>"$err"
	# the daemon writes its pid file after it forked
	wait_for 10 test -s "$SPOOL/queueserv.pid"
	QS_PID=$(cat "$SPOOL/queueserv.pid")
	alive "$QS_PID"
	enqueue 1
	wait_for 20 eval '[ -z "$(queue_files)" ]'
	# the runner's delivery line and the server's lines
	wait_for 10 grep -q '^mj_queuerun: .*to=<sub@ex.test>, relay=.*status=sent' "$err"
	grep -q "^mj_queueserv: started for $SPOOL, runners" "$err"
	grep -q '^mj_queueserv: no syslog daemon listens on /dev/log: logging to stderr$' "$err"
	run -0 "$MJ_QUEUESERV" -C "$CONF" stop
	# not our child: "stop" returns as it exits, the kernel may
	# still be tearing it down
	wait_for 5 gone "$QS_PID"
	QS_PID=
	grep -q '^mj_queueserv: stopping' "$err"
}

@test "a syslog daemon on /dev/log: the daemonized server and its runners log there, nothing to stderr" {
	[ "$(id -u)" -eq 0 ] || skip "needs root: a mount namespace"
	command -v unshare >/dev/null || skip "no unshare"
	qs_conf
	local d=$BATS_TEST_TMPDIR/dev err=$BATS_TEST_TMPDIR/stderr
	local got=$BATS_TEST_TMPDIR/syslog
	mkdir "$d"
	# A /dev of its own in a mount namespace: the machine's null, zero
	# and urandom, and a syslog socket that mj_unixsock serves.
	unshare -m sh -c 'd=$1
		for n in null zero random urandom; do
			: >"$d/$n" && mount --bind "/dev/$n" "$d/$n" || exit 1
		done
		"$2" syslog "$d/log" "$3" </dev/null >/dev/null 2>&1 &
		echo $! >"$d/syslogd.pid"
		while [ ! -S "$d/log" ]; do sleep 0.05; done
		mount --rbind "$d" /dev || exit 1
		exec "$4" -C "$5"' sh "$d" "$TOP/t/tools/mj_unixsock" "$got" \
		"$MJ_QUEUESERV" "$CONF" </dev/null >/dev/null 2>"$err"
	SYSLOGD=$(cat "$d/syslogd.pid")
	wait_for 10 test -s "$SPOOL/queueserv.pid"
	QS_PID=$(cat "$SPOOL/queueserv.pid")
	enqueue 1
	wait_for 20 eval '[ -z "$(queue_files)" ]'
	wait_for 10 grep -q 'mj_queuerun\[[0-9]*\]: .*to=<sub@ex.test>, relay=.*status=sent' "$got"
	grep -q "mj_queueserv\[$QS_PID\]: started for $SPOOL, runners" "$got"
	run -0 "$MJ_QUEUESERV" -C "$CONF" stop
	wait_for 5 gone "$QS_PID"
	QS_PID=
	[ ! -s "$err" ]
}
