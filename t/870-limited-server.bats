#!/usr/bin/env bats
# t/870-limited-server.bats - a server that answers 421 to every session
# beyond 3 at once (mj_testsmtpd --max-sessions 3), fed by mj_queueserv
# with 1, 2 and 4 runners and with two posts at once (issue 29): the
# sessions it refuses, counted by the server itself (--stats), stay
# within what Postfix's rules allow.
#
# The bound.  Both systems start a destination at
# initial_destination_concurrency = 5 sessions, so the first pseudo-
# cohort may meet 5 - 3 = 2 refusals before any feedback is heard.
# After that, SCHEDULER_README ("Impact of active server
# concurrency limiter") gives the share of deliveries a 421 limiter
# defers at 1/(1 + roundup(1/feedback)); with the default feedback
# 1/concurrency at the server's limit of 3 that is 1/4 of all
# deliveries, retries included.  T transactions (R recipients, 10 per
# transaction) and r refusals are T + r deliveries, so
#     r <= 2 + (T + r) / 4,   that is   r <= (8 + T) / 3.
# For T = 300 the bound is 102 refused sessions, and 1020 recipient
# deferrals (10 per refused session).  Before issue 29 mjq drew 120 to
# 160 refusals here (every delivery thread opening a session at once
# whenever the window let several start, long before the first 421 was
# heard); now a refusal teaches the runner the server's limit and the
# batch waits for a session to come back.
#
# Backoff is shortened to 1-2 s so that the refused recipients' retries
# come within the test; the run is waited on, never slept through.

bats_require_minimum_version 1.5.0
load helpers
load smtp_helpers

setup() {
	QS_PID=
}

teardown() {
	stop_everything
}

# limited RUNNERS POSTS RCPTS - the server, a list of RCPTS subscribers
# at d.test, mj_queueserv with RUNNERS runners, POSTS posts at once;
# returns once every recipient was delivered and the queue is empty
limited() {
	local runners=$1 posts=$2 rcpts=$3 p
	smtpd_start s --max-sessions 3 --stats "$BATS_TEST_TMPDIR/s/stats"
	mjq_setup <<-EOF
		[queueserv]
		runner_program = $MJ_QUEUERUN
		max_runners = $runners
		min_runners = $runners
		queue_run_delay = 1s
		[delivery]
		destination_recipient_limit = 10
		minimal_backoff_time = 1s
		maximal_backoff_time = 2s
		[transport_map]
		d.test = smtp:[127.0.0.1]:$PORT
	EOF
	mjq_list ex.org big
	seq -f 'u%g@d.test' 1 "$rcpts" >"$LISTS/ex.org/big/subscribers"
	queueserv_start
	for p in $(seq "$posts"); do
		printf 'From: p@example.net\nSubject: s%s\n\nhello\n' "$p" |
			"$MJ_ENQUEUE" -C "$CONF" -d ex.org -l big -r -f p@example.net
	done
	wait_for 120 eval '[ "$(lines)" -ge $((posts * rcpts)) ] && [ -z "$(queue_files)" ]'
	queueserv_stop
	cat "$BATS_TEST_TMPDIR/s/stats"
	[ "$(lines)" -eq $((posts * rcpts)) ]
}

# lines - recipients the server accepted
lines() {
	wc -l <"$BATS_TEST_TMPDIR/s/log" | tr -d ' '
}

# stat NAME - a field of the server's --stats line
stat() {
	tr ' ' '\n' <"$BATS_TEST_TMPDIR/s/stats" | sed -n "s/^$1=//p"
}

# within_bound T - refusals and recipient deferrals within the bound
# for T transactions (the file's header)
within_bound() {
	local bound=$(((8 + $1) / 3)) refused deferred
	refused=$(stat refused)
	deferred=$(grep -c 'status=deferred' "$QS_LOG" || true)
	echo "refused $refused deferred $deferred (bound $bound, $((bound * 10)))"
	[ "$refused" -le "$bound" ]
	[ "$deferred" -le $((bound * 10)) ]
}

@test "one runner, one post of 300 transactions: refusals within Postfix's bound" {
	limited 1 1 3000
	within_bound 300
}

@test "two runners, one post: refusals within Postfix's bound" {
	limited 2 1 3000
	within_bound 300
}

@test "four runners, one post: refusals within Postfix's bound" {
	limited 4 1 3000
	within_bound 300
}

@test "two posts at once to two runners: refusals within Postfix's bound" {
	limited 2 2 1500
	within_bound 300
}
