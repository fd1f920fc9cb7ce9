#!/usr/bin/env bats
# t/51-sched-shared.bats - the destination table shared by every runner
# ($spool/state/destinations): one concurrency window per destination over
# all runners, busy slots that a kill -9 cannot leak nor a batch that
# finds no memory (a fault of the test build), dead-destination
# state seen by every runner, its display in mj_queueserv status, and the
# feedback debug log.
#
# The sink is mj_testsmtpd --stats, which counts connections and the most
# sessions it ever had open at once, so "never more than the window" is
# checked at the server, not taken from the runners' word.  Session
# caching is off (smtp_connection_cache_time = 0): a cached idle session
# holds no delivery slot, as in Postfix, and would be counted by the sink.

bats_require_minimum_version 1.5.0
load helpers
load smtp_helpers

# Posting policy is t/76's; these lists take posts from anyone.
MJQ_LIST_POSTING=open

setup() {
	QS_PID=
	RUNNERS=
}

teardown() {
	stop_everything $RUNNERS $(runner_pids)
}

# conf [INI...] - sink "s" with the given mj_testsmtpd options in
# SMTPD_ARGS, d.test routed to it, list big@ex.org; extra [delivery] lines
conf() {
	smtpd_start s --stats "$BATS_TEST_TMPDIR/s/stats" "${SMTPD_ARGS[@]}"
	mjq_setup <<-EOF
		[queuerun]
		active_limit = 1
		[queueserv]
		runner_program = $MJ_QUEUERUN
		max_runners = 1
		handshake_timeout_ms = 200
		runner_kill_timeout = 1s
		queue_run_delay = 1h
		[delivery]
		destination_recipient_limit = 1
		destination_concurrency_limit = 2
		initial_destination_concurrency = 2
		smtp_connection_cache_time = 0
		minimal_backoff_time = 1s
		$(printf '%s\n' "$@")
		[transport_map]
		d.test = smtp:[127.0.0.1]:$PORT
	EOF
	DEST="smtp:[127.0.0.1]:$PORT"
}

# subscribers N - list big@ex.org with u1@d.test .. uN@d.test
subscribers() {
	mkdir -p "$LISTS/ex.org/big"
	seq -f 'u%g@d.test' 1 "$1" >"$LISTS/ex.org/big/subscribers"
	list_posting ex.org big
}

post() {
	printf 'From: p@example.net\nSubject: s%s\n\nhello\n' "$1" |
		"$MJ_ENQUEUE" -C "$CONF" -d ex.org -l big -r -f p@example.net
}

# runq NAME - one mj_queuerun -1, its log in $BATS_TEST_TMPDIR/NAME.log
runq() {
	timeout 30 "$MJ_QUEUERUN" -C "$CONF" -1 \
		2>>"$BATS_TEST_TMPDIR/$1.log" 3>&-
}

# stat NAME - a field of the sink's --stats line
stat() {
	tr ' ' '\n' <"$BATS_TEST_TMPDIR/s/stats" | sed -n "s/^$1=//p"
}

# deliveries - recipients the sink accepted (with repeats)
deliveries() {
	cat "$BATS_TEST_TMPDIR/s/log" 2>/dev/null | wc -l
}

# distinct - distinct recipients the sink accepted
distinct() {
	sed 's/.* to=//' "$BATS_TEST_TMPDIR/s/log" 2>/dev/null | sort -u |
		wc -l
}

# dest_line DELIVERED DEFERRED BOUNCED WINDOW BUSY POS_FB NEG_FB COHORTS
# DEAD TLS ERROR - the status row
dest_line() {
	printf '%-30s %9s %8s %7s %6d %4d %6.3f %6.3f %7.3f %8s %-9s %s' "$DEST" "$@"
}

# dest_head - the status header of the destination table
dest_head() {
	printf '%-30s %9s %8s %7s %6s %4s %6s %6s %7s %8s %-9s %s' destination \
		delivered deferred bounced window busy pos_fb neg_fb cohorts \
		dead tls 'last error'
}

# status_busy - the busy count status -j shows for the destination
status_busy() {
	"$MJ_QUEUESERV" -C "$CONF" status -j | grep -o '"busy":[0-9]*' |
		cut -d: -f2
}

@test "two runners share one window: the sink never sees more than 2 sessions" {
	SMTPD_ARGS=(--max-sessions 2 --delay eod=50)
	conf
	subscribers 12
	post 1
	post 2
	# active_limit = 1: each runner claims one message.
	runq a &
	RUNNERS="$RUNNERS $!"
	runq b &
	RUNNERS="$RUNNERS $!"
	wait_for 30 eval '[ "$(deliveries)" -ge 24 ] && [ -z "$(queue_files)" ]'
	wait $RUNNERS
	cat "$BATS_TEST_TMPDIR/s/stats"
	[ "$(deliveries)" -eq 24 ]
	[ "$(stat sessions)" -eq 24 ]
	[ "$(stat max_open)" -eq 2 ]
	[ "$(stat refused)" -eq 0 ]
	# both runners delivered
	grep -q 'status=sent' "$BATS_TEST_TMPDIR/a.log"
	grep -q 'status=sent' "$BATS_TEST_TMPDIR/b.log"
	[ -f "$SPOOL/state/destinations" ]
}

@test "kill -9 of a runner mid-delivery: busy returns to 0, the next runner delivers" {
	SMTPD_ARGS=(--max-sessions 2 --delay eod=400)
	conf
	subscribers 8
	queueserv_start
	post 1
	wait_for 10 eval '[ "$(status_busy)" = 2 ]'
	local old
	old=$(runner_pids)
	[ -n "$old" ]
	kill -KILL $old
	RUNNERS="$old"
	wait_for 30 eval '[ "$(distinct)" -eq 8 ] && [ -z "$(queue_files)" ]'
	wait_for 5 eval '[ "$(status_busy)" = 0 ]'
	[ "$(stat refused)" -eq 0 ]
	[ "$(stat max_open)" -le 2 ]
	run -0 "$MJ_QUEUESERV" -C "$CONF" status
	echo "$output"
	[[ "${lines[-3]}" =~ ^"recipients since "[0-9]+"s ago"$ ]]
	[ "${lines[-2]}" = "$(dest_head)" ]
	# each of the 8 recorded delivered once, the killed runner's
	# deliveries in flight not at all
	[ "${lines[-1]}" = "$(dest_line 8 0 0 2 0 0 0 0 - none -)" ]
	run -0 "$MJ_QUEUESERV" -C "$CONF" status -j
	[[ "$output" == *',"destinations":[{"transport":"smtp","nexthop":"[127.0.0.1]:'$PORT'","delivered":8,"deferred":0,"bounced":0,"window":2,"busy":0,"positive_feedback":0.0000,"negative_feedback":0.0000,"fail_cohorts":0.0000,"dead":false,"dead_until":null,"dead_in":null,"tls":"none","last_error":null,"last_error_at":null}],"mta_sts":[],"dkim_errors":[],"incidents":[],"lists":[{"list":"big@ex.org","judged":{"recipient":0,"mailbox":0,"policy":0,"transient":0,"unknown":0},"complaints":0,"disabled":0,"disabled_addresses":[],"incidents":0}]}' ]]
	[[ "$output" == *',"counts_since":'[0-9]*',"destinations":'* ]]
}

@test "a batch that finds no memory gives its slot back to the table (test build): the same runner delivers the rest through a window of 1" {
	local fr=$BATS_TEST_TMPDIR/fr
	mkdir -p "$fr"
	make -s -C "$TOP" fault-runner FAULT_DIR="$fr" >/dev/null
	conf "destination_concurrency_limit = 1" "initial_destination_concurrency = 1"
	subscribers 3
	post 1
	# The first batch finds no memory: the slot its admit took must go
	# back (dest_share_undo), or the window of 1 stays full for this
	# runner's life and it delivers nothing more (timeout fails).
	MJQ_TEST_FAULT_BATCHES=1 timeout 30 "$fr/mj_queuerun" -C "$CONF" -1 \
		2>>"$BATS_TEST_TMPDIR/a.log" 3>&-
	grep -q 'out of memory for a batch' "$BATS_TEST_TMPDIR/a.log"
	[ "$(distinct)" -ge 2 ]
	# the lost batch's recipient stayed pending: a later pass delivers it
	wait_for 30 eval 'runq b; [ "$(distinct)" -eq 3 ] && [ -z "$(queue_files)" ]'
	[ "$(deliveries)" -eq 3 ]
	[ "$(stat max_open)" -eq 1 ]
	[ "$(stat refused)" -eq 0 ]
}

@test "a destination one runner found dead is deferred by the next without a connection, then revived" {
	# The first two sessions get 421: a handshake failure each, one
	# failed pseudo-cohort of window 2, so the destination is dead.
	SMTPD_ARGS=(--fail-first-sessions 2)
	conf "destination_concurrency_failed_cohort_limit = 1" \
		"destination_concurrency_feedback_debug = yes" \
		"minimal_backoff_time = 2s"
	subscribers 2
	post 1
	runq a
	[ "$(stat sessions)" -eq 2 ]
	[ "$(deliveries)" -eq 0 ]
	grep -q "feedback dead: dest=\[127.0.0.1\]:$PORT " "$BATS_TEST_TMPDIR/a.log"
	# Another runner, another message: deferred at once, no connection.
	post 2
	runq b
	[ "$(stat sessions)" -eq 2 ]
	[ "$(deliveries)" -eq 0 ]
	grep -q "feedback shared dead: dest=\[127.0.0.1\]:$PORT " "$BATS_TEST_TMPDIR/b.log"
	grep -q 'status=deferred.*delivery temporarily suspended' "$BATS_TEST_TMPDIR/b.log"
	[ "$(grep -c 'status=deferred' "$BATS_TEST_TMPDIR/b.log")" -eq 2 ]
	# After the backoff one probe goes through and revives it for all.
	wait_for 10 eval 'find "$SPOOL/QUEUE" -type f ! -name ".*" -exec touch -d "1 hour ago" {} + ; runq c; [ "$(distinct)" -eq 2 ]'
	wait_for 10 eval 'find "$SPOOL/QUEUE" -type f ! -name ".*" -exec touch -d "1 hour ago" {} + ; runq c; [ -z "$(queue_files)" ]'
	[ "$(deliveries)" -eq 4 ]
	grep -q "feedback revive: dest=\[127.0.0.1\]:$PORT " "$BATS_TEST_TMPDIR/c.log"
}

@test "destination_concurrency_feedback_debug logs every feedback step with its variables" {
	conf "destination_concurrency_feedback_debug = yes" \
		"initial_destination_concurrency = 1" \
		"destination_concurrency_limit = 3"
	subscribers 3
	post 1
	runq a
	[ "$(deliveries)" -eq 3 ]
	grep 'feedback ' "$BATS_TEST_TMPDIR/a.log" >"$BATS_TEST_TMPDIR/fb"
	cat "$BATS_TEST_TMPDIR/fb"
	[ "$(wc -l <"$BATS_TEST_TMPDIR/fb")" -eq 3 ]
	grep -Eq "feedback positive: dest=\[127\.0\.0\.1\]:$PORT feedback=1\.0000 window=2 busy=1 success=0\.0000 failure=0\.0000 fail_cohorts=0\.0000$" "$BATS_TEST_TMPDIR/fb"
}

# traced_pair N STRACE_ARG... - runners a and b at once, each under
# strace (trace in NAME.trace, log in NAME.log); returns when the sink
# has N deliveries, the queue is empty and both have exited.  (Leak
# checking is off: LeakSanitizer cannot run under ptrace, make SAN=1.)
traced_pair() {
	local want=$1 n
	shift
	for n in a b; do
		ASAN_OPTIONS=detect_leaks=0 strace -f -qq "$@" \
			-o "$BATS_TEST_TMPDIR/$n.trace" \
			"$MJ_QUEUERUN" -C "$CONF" -1 2>>"$BATS_TEST_TMPDIR/$n.log" 3>&- &
		RUNNERS="$RUNNERS $!"
	done
	wait_for 60 eval '[ "$(deliveries)" -ge '"$want"' ] && [ -z "$(queue_files)" ]'
	wait $RUNNERS
	[ "$(deliveries)" -eq "$want" ]
}

# mail_times NAME... - when each traced runner wrote a MAIL FROM (strace
# -ttt), all of them in order
mail_times() {
	local n
	for n in "$@"; do
		grep 'MAIL FROM:' "$BATS_TEST_TMPDIR/$n.trace" | awk '{ print $2 }'
	done | sort -n
}

@test "two runners share destination_rate_limit: at most 4 transactions start in any second over both" {
	command -v strace >/dev/null || skip "no strace"
	SMTPD_ARGS=(--max-sessions 2 --delay eod=300)
	conf "destination_rate_limit = 4/1s"
	subscribers 6
	post 1
	post 2
	traced_pair 12 -ttt -e trace=write,sendto,sendmsg
	grep -q 'status=sent' "$BATS_TEST_TMPDIR/a.log"
	grep -q 'status=sent' "$BATS_TEST_TMPDIR/b.log"
	mail_times a b >"$BATS_TEST_TMPDIR/times"
	[ "$(wc -l <"$BATS_TEST_TMPDIR/times")" -eq 12 ]
	# starts are 0.25 s apart over both runners: any five span a second
	# (less 0.1 s for the gap between the admission and the write)
	run awk '{ t[NR] = $1 } END {
		for (i = 1; i + 4 <= NR; i++)
			if (t[i + 4] - t[i] < 0.9) { printf "5 starts in %.3f s from %s\n", t[i + 4] - t[i], t[i]; bad = 1 }
		exit bad }' "$BATS_TEST_TMPDIR/times"
	echo "$output"
	[ "$status" -eq 0 ]
}

@test "a destination_concurrency_limit above the shared table's 128 slots is refused with file, line and key" {
	mjq_setup <<-EOF
		[delivery]
		destination_concurrency_limit = 129
	EOF
	run -78 "$MJ_QUEUERUN" -C "$CONF" -1
	echo "$output"
	[[ "$output" == *"$CONF:10: [delivery] destination_concurrency_limit: must be at most 128, the deliveries in flight per destination that the runners' shared table holds" ]]
	sed -i 's/= 129/= 128/' "$CONF"
	run -0 "$MJ_QUEUERUN" -C "$CONF" -1
}

@test "status keeps its columns when a destination's name is long (a maildir path)" {
	conf
	long=$BATS_TEST_TMPDIR/a/rather/long/path/to/the/mail/of/the/list/members
	printf 'm.test = maildir:%s/${user}\n' "$long" >>"$CONF"
	mjq_list ex.org big u1@d.test u2@m.test
	post 1
	runq a
	[ -z "$(queue_files)" ]
	queueserv_start
	run -0 "$MJ_QUEUESERV" -C "$CONF" status
	echo "$output"
	# the header and both rows: "window" and the numbers end in one column
	local head smtp mail
	head=$(grep '^destination ' <<<"$output")
	smtp=$(grep '^smtp:' <<<"$output")
	mail=$(grep "^maildir:$long" <<<"$output")
	[ -n "$head" ] && [ -n "$smtp" ] && [ -n "$mail" ]
	w=$(awk '{ print index($0, "window") + 5 }' <<<"$head")
	for row in "$smtp" "$mail"; do
		[ "${row:w-1:1}" != " " ] && [ "${row:w:1}" = " " ]
	done
}

@test "a runner the shared window refuses sleeps until another runner's delivery ends, instead of asking ten times a second" {
	command -v strace >/dev/null || skip "no strace"
	SMTPD_ARGS=(--delay eod=1500)
	conf "destination_concurrency_limit = 1" "initial_destination_concurrency = 1"
	subscribers 1
	post 1
	post 2
	traced_pair 2 -e trace=fcntl,futex
	[ "$(stat max_open)" -eq 1 ]
	# one runner was refused: it slept on the table's shared futex (not
	# a private one), and the other's release woke it
	refused=
	for n in a b; do
		grep -q 'FUTEX_WAIT, ' "$BATS_TEST_TMPDIR/$n.trace" && refused="$refused $n"
	done
	echo "refused:$refused"
	[ "$(wc -w <<<"$refused")" -eq 1 ]
	other=a
	[ "$refused" = " a" ] && other=b
	grep -q 'FUTEX_WAKE, ' "$BATS_TEST_TMPDIR/$other.trace"
	# it took the table lock a few times in 1.5 s, where polling every
	# 0.1 s would have taken it 15 times or more
	locks=$(grep -c 'F_OFD_SETLKW' "$BATS_TEST_TMPDIR/${refused# }.trace")
	echo "table locks by the refused runner: $locks"
	[ "$locks" -le 10 ]
}

@test "status counts the recipients delivered, deferred and bounced per destination since the server started, and shows the last error" {
	SMTPD_ARGS=(--rcpt 'bad*@*=550 5.1.1 no such user'
		--rcpt 'later*@*=450 4.2.0 mailbox busy')
	conf
	# a deferred recipient is not tried again during the test
	sed -i 's/^minimal_backoff_time = .*/minimal_backoff_time = 1h/' "$CONF"
	mjq_list ex.org big u1@d.test u2@d.test later1@d.test bad1@d.test
	# a pass before the server starts: counted, then zeroed by the start
	post 0
	runq before
	queueserv_start
	run -0 "$MJ_QUEUESERV" -C "$CONF" status
	[ "$(awk -v d="$DEST" '$1 == d { print $2, $3, $4 }' <<<"$output")" = "0 0 0" ]
	post 1
	wait_for 20 eval '[ "$(distinct)" -ge 2 ] &&
		"$MJ_QUEUESERV" -C "$CONF" status | grep -q "^smtp:.* 2 *1 *1 "'
	run -0 "$MJ_QUEUESERV" -C "$CONF" status
	echo "$output"
	row=$(awk -v d="$DEST" '$1 == d' <<<"$output")
	[ "$(awk '{ print $2, $3, $4 }' <<<"$row")" = "2 1 1" ]
	# the last error is a refusal's reply, with its age
	[[ "$row" =~ " "[0-9]+"s ago: "(450|550)" " ]]
	run -0 "$MJ_QUEUESERV" -C "$CONF" status -j
	[[ "$output" == *'"delivered":2,"deferred":1,"bounced":1,'* ]]
	[[ "$output" == *'"last_error":"'* ]]
	[[ "$output" == *'"last_error_at":'[0-9]* ]]
}
