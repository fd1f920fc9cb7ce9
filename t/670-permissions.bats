#!/usr/bin/env bats
# t/670-permissions.bats - spool files the runners cannot read or write,
# for real: mj_queueserv is started as root and drops to [queueserv]
# user (a test account that owns the spool, as mjq-newlist and the README
# say), so modes and owners bind its runners as they bind the mjq user.
# Each test spoils one thing: a message file (root's, 0600), state files
# (root's 0600, read-only 0440), a domain and a function directory of
# QUEUE/ (root's, 0700), tmp/ (0550).  Every time: the runner does not
# die (same pid, no death in the log), the problem is logged with its
# path and strerror once, not at every walk (the server starts a walk
# every second here), the victim stays where it is, byte for byte, the
# other messages are delivered, mj_queuerun -c as the user names it and
# leaves it, and as root repairs it, after which the victim is
# delivered too.
#
# Needs root (useradd, chown, runuser); the account is removed in
# teardown.

bats_require_minimum_version 1.5.0
load helpers
load smtp_helpers

# The DSNs of posts are tested here: the runner makes them rather than
# judging its posts' failures itself (bounce_judge, t/730 and t/731).
MJQ_LIST_KEYS='bounce_judge = no'

setup() {
	QS_PID=
	TUSER=
	[ "$(id -u)" -eq 0 ] || skip "needs root: creates a user, chowns"
	TUSER=mjqpm$$
	useradd -M -U -s /usr/sbin/nologin "$TUSER"
	user_programs
	smtpd_start sink --rcpt 'bad*@*=550 5.1.1 no such user' \
		--rcpt 'later@*=450 4.2.0 try later'
	mjq_setup <<-EOF
		[queueserv]
		user = $TUSER
		runner_program = $MJ_QUEUERUN
		min_runners = 1
		max_runners = 1
		queue_run_delay = 1s
		handshake_timeout_ms = 1000
		runner_idle_timeout = 1h
		[transport_map]
		ok.test = smtp:[127.0.0.1]:$PORT
		ex.org = smtp:[127.0.0.1]:$PORT
	EOF
	# The same spool with every delivery refused (port 1): a pass with
	# it gives messages their state files and leaves them deferred.
	DEFER_CONF=$BATS_TEST_TMPDIR/defer.conf
	sed "s/:$PORT\$/:1/" "$CONF" >"$DEFER_CONF"
	local d
	for d in ex.org ex.net ex.com; do
		mjq_list "$d" l u@ok.test
	done
	chown -R "$TUSER:" "$SPOOL"
	chmod o+r "$CONF" "$DEFER_CONF"
	chmod -R o+rX "$LISTS"
	open_path "$BATS_TEST_TMPDIR"
}

teardown() {
	queueserv_stop
	servers_stop
	[ -z "$TUSER" ] || userdel "$TUSER" 2>/dev/null || true
	return 0
}

# as_user COMMAND... - run it as the spool's user
as_user() {
	runuser -u "$TUSER" -- "$@"
}

# post DOMAIN SUBJECT - a post to l@DOMAIN, enqueued by the spool's user
# as the MTA would run mj_enqueue
post() {
	printf 'From: poster@example.net\nSubject: %s\n\nbody\n' "$2" |
		as_user "$MJ_ENQUEUE" -C "$CONF" -d "$1" -l l -r \
			-f poster@example.net
}

# path_of SUBJECT - the queued message with that subject
path_of() {
	grep -lx "Subject: $1" $(find "$SPOOL/QUEUE" -type f ! -name '.*')
}

# delivered SUBJECT - the sink received it
delivered() {
	grep -qsE "^Subject: $1"$'\r?$' "$BATS_TEST_TMPDIR"/sink/save/new/*
}

# start - the server, as root (it drops to $TUSER); $RUNNER is its one
# runner
start() {
	queueserv_start
	wait_for 10 eval '[ -n "$(pgrep -P "$QS_PID" -x mj_queuerun)" ]'
	RUNNER=$(pgrep -P "$QS_PID" -x mj_queuerun)
	[ "$(ps -o user= -p "$RUNNER")" = "$TUSER" ]
}

# runs - walks the server has started so far
runs() {
	grep -c 'runner [0-9]* (slot [0-9]*) runs' "$QS_LOG"
}

# more_walks N - wait until the runner has been sent N more runs (one
# a second, queue_run_delay) and has answered the last
more_walks() {
	local until=$(($(runs) + $1 + 1))
	wait_for 30 eval '[ "$(runs)" -ge '"$until"' ]'
}

# said TEXT - how many log lines hold TEXT
said() {
	grep -cF -- "$1" "$QS_LOG" || true
}

# runner_intact - the runner of start is the one running, and nothing
# died
runner_intact() {
	alive "$QS_PID"
	[ "$(pgrep -P "$QS_PID" -x mj_queuerun)" = "$RUNNER" ]
	! grep -E 'exited with status|killed by signal' "$QS_LOG" || return 1
}

# check_as WHO - mj_queuerun -c as the spool's user ("user") or root;
# its findings sorted in $lines, summary last
check_as() {
	if [ "$1" = user ]; then
		run as_user "$MJ_QUEUERUN" -C "$CONF" -c
	else
		run "$MJ_QUEUERUN" -C "$CONF" -c
	fi
	echo "$output"
	mapfile -t lines < <(echo "$output" | grep -v '^check: ' | sort; echo "$output" | grep '^check: ')
}

# nothing_bad - BAD/ holds nothing
nothing_bad() {
	[ ! -d "$SPOOL/BAD" ] || [ -z "$(find "$SPOOL/BAD" -type f)" ]
}

@test "message files not the user's (root's 0600, root's 0644 with a deferral) stay, are logged once, named by -c and repaired as root" {
	# later@ok.test gets 450: its message must be put off, and only the
	# file's owner can set the mtime that says when
	echo later@ok.test >>"$LISTS/ex.com/l/subscribers"
	post ex.org victim
	post ex.com readable
	post ex.org other1
	post ex.net other2
	local v rel v2 rel2
	v=$(path_of victim)
	rel=${v#"$SPOOL"/}
	v2=$(path_of readable)
	rel2=${v2#"$SPOOL"/}
	cp "$v" "$BATS_TEST_TMPDIR/victim.copy"
	cp "$v2" "$BATS_TEST_TMPDIR/readable.copy"
	chown root:root "$v" "$v2"
	chmod 0600 "$v"
	chmod 0644 "$v2"
	start
	wait_for 20 eval 'delivered other1 && delivered other2'
	more_walks 3
	runner_intact
	[ "$(said "$v: cannot open the message: Permission denied")" -eq 1 ]
	[ "$(said "$v2: not owned by the runner's user, so it could not be put off: Operation not permitted")" -eq 1 ]
	# not taken, so never delivered again and again
	[ "$(said "cannot set its next try")" -eq 0 ]
	run -1 delivered victim
	run -1 delivered readable
	cmp "$v" "$BATS_TEST_TMPDIR/victim.copy"
	cmp "$v2" "$BATS_TEST_TMPDIR/readable.copy"
	[ "$(stat -c '%U %a' "$v")" = "root 600" ]
	# the spool's user sees what its runners see
	check_as user
	[ "$status" -eq 1 ]
	[ "${lines[0]}" = "$rel2: wrong permissions: owner root, mode 0644 (want $TUSER, 0640): left (mj_queuerun -c as root gives it to $TUSER)" ]
	[ "${lines[1]}" = "$rel: cannot open: Permission denied; owner root, mode 0600 (want $TUSER, 0640): left (mj_queuerun -c as root gives it to $TUSER)" ]
	[ "${lines[2]}" = "check: 2 messages, 2 findings, 0 repaired, 2 left" ]
	nothing_bad
	# root repairs them, and the runner delivers them at its next walk
	check_as root
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = "$rel2: wrong permissions: owner root, mode 0644 (want $TUSER, 0640): owner and mode set to $TUSER, 0640" ]
	[ "${lines[1]}" = "$rel: wrong permissions: owner root, mode 0600 (want $TUSER, 0640): owner and mode set to $TUSER, 0640" ]
	[ "$(stat -c '%U %a' "$v")" = "$TUSER 640" ]
	wait_for 20 eval 'delivered victim && delivered readable'
	# later@ok.test keeps its message, put off
	wait_for 10 eval '[ "$(queue_files)" = "$rel2" ]'
	[ "$(stat -c %Y "$v2")" -gt "$(date +%s)" ]
	more_walks 2
	[ "$(said "$(basename "$v2"): to=<later@ok.test>")" -eq 1 ]
	runner_intact
	nothing_bad
}

@test "state files the runner cannot open (root's 0600, read-only 0440) keep their messages, logged once, named by -c" {
	post ex.org victim1
	post ex.net victim2
	# a pass that defers both: they have state files now
	as_user "$MJ_QUEUERUN" -C "$DEFER_CONF" -1 2>/dev/null
	[ "$(state_files | wc -l)" -eq 2 ]
	post ex.com other
	make_due
	local v1 v2 s1 s2
	v1=$(path_of victim1)
	v2=$(path_of victim2)
	s1=$(dirname "$v1")/.$(basename "$v1")
	s2=$(dirname "$v2")/.$(basename "$v2")
	cp "$s1" "$BATS_TEST_TMPDIR/s1.copy"
	cp "$s2" "$BATS_TEST_TMPDIR/s2.copy"
	chown root:root "$s1"
	chmod 0600 "$s1"
	chmod 0440 "$s2"
	start
	wait_for 20 delivered other
	more_walks 3
	runner_intact
	# once each: the message is put off by minimal_backoff_time
	[ "$(said "$(basename "$v1"): cannot open its state file $s1: Permission denied")" -eq 1 ]
	[ "$(said "$(basename "$v2"): cannot open its state file $s2: Permission denied")" -eq 1 ]
	run -1 delivered victim1
	run -1 delivered victim2
	cmp "$s1" "$BATS_TEST_TMPDIR/s1.copy"
	cmp "$s2" "$BATS_TEST_TMPDIR/s2.copy"
	[ -f "$v1" ] && [ -f "$v2" ]
	# -c as the user: a permission finding, not a damaged state file,
	# and nothing goes to BAD/
	check_as user
	[ "$status" -eq 1 ]
	local r1=${s1#"$SPOOL"/} r2=${s2#"$SPOOL"/}
	grep -qxF "$r1: cannot open: Permission denied; owner root, mode 0600 (want $TUSER, 0640): left (mj_queuerun -c as root gives it to $TUSER)" <<<"$output"
	grep -qxF "$r2: cannot open: Permission denied; owner $TUSER, mode 0440 (want $TUSER, 0640): left (mj_queuerun -c as root gives it to $TUSER)" <<<"$output"
	[ "${lines[-1]}" = "check: 2 messages, 2 findings, 0 repaired, 2 left" ]
	[[ "$output" != *damaged* ]]
	nothing_bad
	[ -f "$v1" ] && [ -f "$v2" ]
	check_as root
	[ "$status" -eq 0 ]
	grep -qxF "$r1: wrong permissions: owner root, mode 0600 (want $TUSER, 0640): owner and mode set to $TUSER, 0640" <<<"$output"
	grep -qxF "$r2: wrong permissions: owner $TUSER, mode 0440 (want $TUSER, 0640): owner and mode set to $TUSER, 0640" <<<"$output"
	# they were put off; flushed, they go
	"$MJ_QUEUESERV" -C "$CONF" flush >/dev/null
	wait_for 20 eval 'delivered victim1 && delivered victim2'
	wait_for 10 eval '[ -z "$(queue_files)" ]'
	runner_intact
	nothing_bad
}

@test "the runner's log names an unopenable state file by its path" {
	post ex.org victim
	as_user "$MJ_QUEUERUN" -C "$DEFER_CONF" -1 2>/dev/null
	make_due
	local v s
	v=$(path_of victim)
	s=$(dirname "$v")/.$(basename "$v")
	chown root:root "$s"
	chmod 0600 "$s"
	as_user "$MJ_QUEUERUN" -C "$CONF" -1 2>"$BATS_TEST_TMPDIR/run.log"
	grep -qF "$s: Permission denied" "$BATS_TEST_TMPDIR/run.log"
	[ -f "$v" ] && [ -f "$s" ]
}

@test "a domain and a function directory of QUEUE/ the runner cannot read (root's, 0700): logged once each, the rest delivered" {
	post ex.org victim1
	post ex.net victim2
	post ex.com other
	local d1=$SPOOL/QUEUE/10/ex.org d2=$SPOOL/QUEUE/10/ex.net/10/list
	[ -d "$d1" ] && [ -d "$d2" ]
	chown root:root "$d1" "$d2"
	chmod 0700 "$d1" "$d2"
	start
	wait_for 20 delivered other
	more_walks 3
	runner_intact
	[ "$(said "$d1: cannot read this directory of the queue: Permission denied")" -eq 1 ]
	[ "$(said "$d2: cannot read this directory of the queue: Permission denied")" -eq 1 ]
	run -1 delivered victim1
	run -1 delivered victim2
	[ "$(queue_files | wc -l)" -eq 2 ]
	check_as user
	[ "$status" -eq 1 ]
	[ "${lines[0]}" = "QUEUE/10/ex.net/10/list: cannot read or write: Permission denied; owner root, mode 0700 (want $TUSER, 0750): left (mj_queuerun -c as root gives it to $TUSER)" ]
	[ "${lines[1]}" = "QUEUE/10/ex.org: cannot read or write: Permission denied; owner root, mode 0700 (want $TUSER, 0750): left (mj_queuerun -c as root gives it to $TUSER)" ]
	[ "${lines[2]}" = "check: 0 messages, 2 findings, 0 repaired, 2 left" ]
	check_as root
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = "QUEUE/10/ex.net/10/list: wrong permissions: owner root, mode 0700 (want $TUSER, 0750): owner and mode set to $TUSER, 0750" ]
	[ "${lines[1]}" = "QUEUE/10/ex.org: wrong permissions: owner root, mode 0700 (want $TUSER, 0750): owner and mode set to $TUSER, 0750" ]
	[ "${lines[2]}" = "check: 2 messages, 2 findings, 2 repaired, 0 left" ]
	wait_for 20 eval 'delivered victim1 && delivered victim2'
	wait_for 10 eval '[ -z "$(queue_files)" ]'
	runner_intact
	nothing_bad
}

@test "an unwritable tmp/: mj_enqueue defers (75), a new message waits, one in progress is delivered, a bounce waits; logged once, repaired by -c" {
	# bad@, bad2@ and bad3@ok.test get 550: their reasons and their
	# bounce need tmp/
	printf 'bad@ok.test\nbad2@ok.test\nbad3@ok.test\n' >>"$LISTS/ex.org/l/subscribers"
	post ex.org started
	as_user "$MJ_QUEUERUN" -C "$DEFER_CONF" -1 2>/dev/null
	[ "$(state_files | wc -l)" -eq 1 ]
	local st
	st=$(state_files)
	post ex.net new
	make_due
	chmod 0550 "$SPOOL/tmp"
	# the MTA is told to try again later: nothing accepted, nothing lost
	run -75 post ex.com refused
	[[ "$output" == "mj_enqueue: cannot create spool file tmp/"*": Permission denied" ]]
	[ "$(queue_files | wc -l)" -eq 2 ]
	start
	wait_for 20 delivered started
	more_walks 3
	runner_intact
	[ "$(said "$SPOOL/tmp: cannot write the spool's tmp/: new messages wait: Permission denied")" -eq 1 ]
	[ "$(said "$(basename "$(path_of new)"): cannot create its state file: Permission denied")" -eq 1 ]
	run -1 delivered new
	# the refused recipient is not bounced without its reason: it waits,
	# deferred, with its message
	# one line for the pass, not one per recipient, and a count
	[ "$(said "cannot keep failure reasons in $SPOOL/tmp; failed recipients are deferred instead: Permission denied")" -eq 1 ]
	[ "$(said "3 failed recipient(s) deferred instead of bounced: their reasons could not be kept")" -eq 1 ]
	grep -qx 'deferred  bad@ok.test' "$st"
	grep -qx 'deferred  bad3@ok.test' "$st"
	[ "$(queue_files | wc -l)" -eq 2 ]
	check_as user
	[ "$status" -eq 1 ]
	[ "${lines[0]}" = "tmp: cannot read or write: Permission denied; owner $TUSER, mode 0550 (want $TUSER, 0750): left (mj_queuerun -c as root gives it to $TUSER)" ]
	check_as root
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = "tmp: wrong permissions: owner $TUSER, mode 0550 (want $TUSER, 0750): owner and mode set to $TUSER, 0750" ]
	"$MJ_QUEUESERV" -C "$CONF" flush >/dev/null
	wait_for 20 delivered new
	# and the bounce of bad@ok.test goes to the list's owner
	wait_for 20 eval 'grep -qs "^Final-Recipient: rfc822; *bad@ok.test" "$BATS_TEST_TMPDIR"/sink/save/new/*'
	post ex.com after
	wait_for 20 delivered after
	wait_for 10 eval '[ -z "$(queue_files)" ]'
	runner_intact
	nothing_bad
}
