#!/usr/bin/env bats
# t/400-queuerun-deliver.bats - mj_queuerun end to end over real sockets:
# list expansion, SMTP delivery to several servers, state files, the
# maildir and pipe transports, owner mail, VERP, loops.

load helpers
load smtp_helpers
bats_require_minimum_version 1.5.0

# The DSNs of posts are tested here: the runner makes them rather than
# judging its posts' failures itself (bounce_judge, t/730 and t/731).
MJQ_LIST_KEYS='bounce_judge = no'

setup() {
	mjq_setup </dev/null
}

teardown() {
	queueserv_stop
	servers_stop
}

# post DOMAIN LIST [SUBJECT] - a post from poster@example.net via -r
post() {
	printf 'From: poster@example.net\nSubject: %s\nMessage-Id: <1@x>\n\nhello\n.dot line\n' \
		"${3:-hi}" | "$MJ_ENQUEUE" -C "$CONF" -d "$1" -l "$2" -r \
		-f poster@example.net
}

# saved SERVER - the one message SERVER saved, without CRs: its path
saved() {
	local f
	f=$(find "$BATS_TEST_TMPDIR/$1/save/new" -type f)
	[ "$(echo "$f" | wc -l)" -eq 1 ] || return 1
	tr -d '\r' <"$f" >"$BATS_TEST_TMPDIR/$1.txt"
	echo "$BATS_TEST_TMPDIR/$1.txt"
}

@test "a post to 1000 subscribers over 10 domains arrives exactly once each" {
	local d i
	for d in 0 1 2 3 4 5 6 7 8 9; do
		smtpd_start "s$d"
		echo "d$d.test = smtp:[127.0.0.1]:$PORT" >>"$BATS_TEST_TMPDIR/map"
	done
	{ echo '[transport_map]'; cat "$BATS_TEST_TMPDIR/map"; } >>"$CONF"
	mkdir -p "$LISTS/ex.org/big"
	for i in $(seq 1 1000); do echo "u$i@d$((i % 10)).test"; done \
		>"$LISTS/ex.org/big/subscribers"
	printf '[list]\nposting = open\n' >"$LISTS/ex.org/big/config"
	post ex.org big
	runq
	# every server got exactly its 100, and nobody twice
	for d in 0 1 2 3 4 5 6 7 8 9; do
		[ "$(wc -l <"$BATS_TEST_TMPDIR/s$d/log")" -eq 100 ]
		run -1 grep -v "to=<u[0-9]*@d$d.test>" "$BATS_TEST_TMPDIR/s$d/log"
	done
	cat "$BATS_TEST_TMPDIR"/s*/log | sed 's/.* to=//' | sort >"$BATS_TEST_TMPDIR/got"
	[ "$(sort -u "$BATS_TEST_TMPDIR/got" | wc -l)" -eq 1000 ]
	# batches of destination_recipient_limit (50): 2 messages per server
	[ "$(awk '{print $1, $2}' "$BATS_TEST_TMPDIR/s0/log" | sort -u | wc -l)" -eq 2 ]
	# the envelope sender is the owner, the queue is empty
	grep -q 'from=<big-owner@ex.org>' "$BATS_TEST_TMPDIR/s3/log"
	[ -z "$(queue_files)" ]
	[ -z "$(state_files)" ]
	[ "$(grep -c 'status=sent' "$BATS_TEST_TMPDIR/run.log")" -eq 1000 ]
	grep -q 'to=<u7@d7.test>, relay=127.0.0.1\[127.0.0.1\]:[0-9]*, delay=[0-9.]*, dsn=2.0.0, status=sent (250 ' \
		"$BATS_TEST_TMPDIR/run.log"
}

@test "the subscribers get the list headers, the prefix and dot-stuffed text intact" {
	smtpd_start s
	printf '[transport_map]\nex.org = smtp:[127.0.0.1]:%s\n' "$PORT" >>"$CONF"
	mjq_list ex.org demo a@ex.org
	printf '[list]\nsubject_prefix = [$LIST]\nreply_to = list\n' \
		>>"$LISTS/ex.org/demo/config"
	post ex.org demo "hello world"
	runq
	f=$(saved s)
	grep -qx 'List-Id: <demo.ex.org>' "$f"
	grep -qx 'List-Post: <mailto:demo@ex.org>' "$f"
	grep -qx 'List-Unsubscribe: <mailto:majordomo@ex.org?body=unsubscribe%20demo>' "$f"
	grep -qx 'List-Owner: <mailto:demo-owner@ex.org>' "$f"
	grep -qx 'Precedence: list' "$f"
	grep -qx 'Reply-To: <demo@ex.org>' "$f"
	grep -qx 'Subject: \[demo\] hello world' "$f"
	grep -qx '.dot line' "$f"
	run -1 grep -q '^Return-Path:' "$f"
}

@test "4xx recipients are deferred with a future mtime, then delivered after the next pass" {
	smtpd_start s --rcpt 'u1*@d.test=450 4.2.0 mailbox busy'
	printf '[transport_map]\nd.test = smtp:[127.0.0.1]:%s\n' "$PORT" >>"$CONF"
	mjq_list ex.org l u1@d.test u2@d.test u3@d.test u10@d.test u11@d.test
	post ex.org l
	runq
	[ "$(wc -l <"$BATS_TEST_TMPDIR/s/log")" -eq 2 ]
	# one message left, due in minimal_backoff_time (300 s) or more
	f=$SPOOL/$(queue_files)
	[ "$(stat -c %Y "$f")" -gt "$(($(date +%s) + 250))" ]
	st=$(state_files)
	[ "$(grep -c '^deferred  u1[01]*@d.test$' "$st")" -eq 3 ]
	[ "$(grep -c '^delivered u[23]@d.test$' "$st")" -eq 2 ]
	grep -q '^tries      1$' "$st"
	grep -q '^error 4.2.0 450 4.2.0 mailbox busy' "$st"
	# not due: a pass does nothing
	runq
	[ "$(wc -l <"$BATS_TEST_TMPDIR/s/log")" -eq 2 ]
	# the server recovers; the message is made due (as flush does)
	servers_stop
	smtpd_start s2 --port "$PORT"
	make_due
	runq
	[ "$(cat "$BATS_TEST_TMPDIR/s2/log" | sed 's/.* to=//' | sort | tr '\n' ' ')" = \
		"<u10@d.test> <u11@d.test> <u1@d.test> " ]
	[ -z "$(queue_files)" ]
}

@test "5xx recipients bounce: one DSN to the list owner, from the null sender" {
	smtpd_start s --rcpt 'bad*@d.test=550 5.1.1 no such user'
	SPORT=$PORT
	smtpd_start owner
	printf '[transport_map]\nd.test = smtp:[127.0.0.1]:%s\nex.org = smtp:[127.0.0.1]:%s\n' \
		"$SPORT" "$PORT" >>"$CONF"
	mjq_list ex.org l good@d.test bad1@d.test bad2@d.test
	post ex.org l
	runq
	grep -q 'to=<bad1@d.test>, relay=.*, dsn=5.1.1, status=bounced (550 5.1.1 no such user)' \
		"$BATS_TEST_TMPDIR/run.log"
	[ "$(wc -l <"$BATS_TEST_TMPDIR/s/log")" -eq 1 ]
	# the DSN went through the queue to l-owner@ex.org, sender <>
	[ "$(wc -l <"$BATS_TEST_TMPDIR/owner/log")" -eq 1 ]
	grep -q 'from=<> to=<l-owner@ex.org>' "$BATS_TEST_TMPDIR/owner/log"
	f=$(saved owner)
	grep -q '^Content-Type: multipart/report; report-type=delivery-status;' "$f"
	grep -qx 'Final-Recipient: rfc822; bad1@d.test' "$f"
	grep -qx 'Final-Recipient: rfc822; bad2@d.test' "$f"
	run -1 grep -q 'Final-Recipient: rfc822; good@d.test' "$f"
	grep -qx 'Status: 5.1.1' "$f"
	grep -qx 'Diagnostic-Code: smtp; 550 5.1.1 no such user' "$f"
	grep -qx 'Auto-Submitted: auto-replied' "$f"
	grep -qx 'List-Id: <l.ex.org>' "$f"
	[ -z "$(queue_files)" ]
}

@test "a server that is down defers everything; when it is up the mail goes" {
	P=$(free_port)
	printf '[transport_map]\nd.test = smtp:[127.0.0.1]:%s\n' "$P" >>"$CONF"
	mjq_list ex.org l a@d.test b@d.test
	post ex.org l
	runq
	grep -q 'to=<a@d.test>, .*status=deferred (.*' "$BATS_TEST_TMPDIR/run.log"
	st=$(state_files)
	[ "$(grep -c '^deferred ' "$st")" -eq 2 ]
	smtpd_start s --port "$P"
	make_due
	runq
	[ "$(wc -l <"$BATS_TEST_TMPDIR/s/log")" -eq 2 ]
	[ -z "$(queue_files)" ]
}

@test "past maximal_queue_lifetime deferred recipients bounce as expired" {
	P=$(free_port)
	smtpd_start owner
	printf '[delivery]\nmaximal_queue_lifetime = 0\n[transport_map]\nd.test = smtp:[127.0.0.1]:%s\nex.org = smtp:[127.0.0.1]:%s\n' \
		"$P" "$PORT" >>"$CONF"
	mjq_list ex.org l a@d.test
	post ex.org l
	runq
	[ "$(wc -l <"$BATS_TEST_TMPDIR/owner/log")" -eq 1 ]
	f=$(saved owner)
	grep -qx 'Status: 4.4.7' "$f"
	grep -q '^Diagnostic-Code: x-mjq; delivery time expired' "$f"
	[ -z "$(queue_files)" ]
}

@test "maildir transport: one file per recipient in new/, with Return-Path and Delivered-To" {
	printf '[transport_map]\nd.test = maildir:%s/mail/${user}\n' "$BATS_TEST_TMPDIR" >>"$CONF"
	mjq_list ex.org l a@d.test b@d.test
	post ex.org l
	runq
	[ "$(ls "$BATS_TEST_TMPDIR/mail/a/new" | wc -l)" -eq 1 ]
	[ "$(ls "$BATS_TEST_TMPDIR/mail/b/new" | wc -l)" -eq 1 ]
	[ -z "$(ls "$BATS_TEST_TMPDIR/mail/a/tmp")" ]
	f=$(find "$BATS_TEST_TMPDIR/mail/b/new" -type f)
	[ "$(sed -n 1p "$f")" = "Return-Path: <l-owner@ex.org>" ]
	[ "$(sed -n 2p "$f")" = "Delivered-To: b@d.test" ]
	[ "$(tail -2 "$f" | tr '\n' '|')" = "hello|.dot line|" ]
}

@test "pipe transport: argv without a shell, stdin the message, exit codes map through sysexits" {
	cat >"$BATS_TEST_TMPDIR/deliver" <<-EOF
	#!/bin/sh
	printf '%s|%s|%s|%s\n' "\$1" "\$2" "\$3" "\$#" >>"$BATS_TEST_TMPDIR/args"
	cat >"$BATS_TEST_TMPDIR/stdin.\$2"
	case "\$2" in
	nouser@*) echo "no such user"; exit 67 ;;
	later@*) exit 75 ;;
	esac
	exit 0
	EOF
	chmod +x "$BATS_TEST_TMPDIR/deliver"
	printf '[transport:pipe]\ndestination_recipient_limit = 1\n[transport_map]\nd.test = pipe:%s/deliver ${sender} ${recipient} x;y\nex.org = discard:\n' \
		"$BATS_TEST_TMPDIR" >>"$CONF"
	mjq_list ex.org l ok@d.test nouser@d.test later@d.test
	post ex.org l
	runq
	grep -qx 'l-owner@ex.org|ok@d.test|x;y|3' "$BATS_TEST_TMPDIR/args"
	[ "$(cat "$BATS_TEST_TMPDIR"/stdin.* | grep -c '^List-Id: <l.ex.org>$')" -eq 3 ]
	[ "$(tail -2 "$BATS_TEST_TMPDIR/stdin.ok@d.test" | tr '\n' '|')" = "hello|.dot line|" ]
	grep -q 'to=<ok@d.test>, relay=pipe, .*status=sent' "$BATS_TEST_TMPDIR/run.log"
	grep -q 'to=<nouser@d.test>, relay=pipe, .*dsn=5.1.1, status=bounced (command exit 67 (user unknown): no such user)' \
		"$BATS_TEST_TMPDIR/run.log"
	grep -q 'to=<later@d.test>, relay=pipe, .*dsn=4.3.0, status=deferred' "$BATS_TEST_TMPDIR/run.log"
	st=$(state_files)
	grep -qx 'bounced   nouser@d.test' "$st"
	grep -qx 'deferred  later@d.test' "$st"
	grep -qx 'delivered ok@d.test' "$st"
}

@test "pipe transport: a command that hangs without a word is killed at pipe_timeout, with what it started, and deferred" {
	printf '#!/bin/sh\nsleep 300 &\necho $! >%s/child\nwait\n' "$BATS_TEST_TMPDIR" \
		>"$BATS_TEST_TMPDIR/hang"
	chmod +x "$BATS_TEST_TMPDIR/hang"
	printf '[transport:pipe]\npipe_timeout = 1s\n[transport_map]\nd.test = pipe:%s/hang\nex.org = discard:\n' \
		"$BATS_TEST_TMPDIR" >>"$CONF"
	mjq_list ex.org l u@d.test
	post ex.org l
	SECONDS=0
	RUNQ_TIMEOUT=30 runq
	[ "$SECONDS" -lt 10 ]
	grep -q 'to=<u@d.test>, relay=pipe, .*dsn=4.4.2, status=deferred (command timed out (pipe_timeout))$' \
		"$BATS_TEST_TMPDIR/run.log"
	# the command's own child went with it (its process group)
	run ! alive "$(cat "$BATS_TEST_TMPDIR/child")"
	grep -qx 'deferred  u@d.test' "$(state_files)"
}

@test "owner mail goes to the owners with the original sender" {
	smtpd_start s
	printf '[transport_map]\nex.org = smtp:[127.0.0.1]:%s\n' "$PORT" >>"$CONF"
	mjq_list ex.org l
	printf '[list]\nowners = boss@ex.org, deputy@ex.org\n' >>"$LISTS/ex.org/l/config"
	printf 'From: someone@example.net\nSubject: help\n\nplease\n' |
		"$MJ_ENQUEUE" -C "$CONF" -d ex.org -l l -o -f someone@example.net
	runq
	[ "$(sed 's/^[0-9]* [0-9]* //' "$BATS_TEST_TMPDIR/s/log" | sort | tr '\n' ' ')" = \
		"from=<someone@example.net> to=<boss@ex.org> from=<someone@example.net> to=<deputy@ex.org> " ]
}

@test "verp = yes gives each recipient its own envelope sender" {
	smtpd_start s
	printf '[transport_map]\nd.test = smtp:[127.0.0.1]:%s\n' "$PORT" >>"$CONF"
	mjq_list ex.org l a@d.test b@d.test
	printf '[list]\nverp = yes\n' >>"$LISTS/ex.org/l/config"
	post ex.org l
	runq
	grep -q 'from=<l-owner+a=d.test@ex.org> to=<a@d.test>' "$BATS_TEST_TMPDIR/s/log"
	grep -q 'from=<l-owner+b=d.test@ex.org> to=<b@d.test>' "$BATS_TEST_TMPDIR/s/log"
}

@test "a post carrying the list's own List-Id is a loop: BAD/ with a reason" {
	mjq_list ex.org l a@d.test
	printf 'List-Id: <l.ex.org>\nSubject: loop\n\nx\n' |
		"$MJ_ENQUEUE" -C "$CONF" -d ex.org -l l -r -f l-owner@ex.org
	runq
	[ -z "$(queue_files)" ]
	why=$(find "$SPOOL/BAD" -name '*.why')
	grep -q '^mail loop' "$why"
	[ "$(find "$SPOOL/BAD" -type f ! -name '.*' | wc -l)" -eq 1 ]
}

@test "a post over the list's max_message_size is held in HOLD/ with a reason" {
	mjq_list ex.org l a@d.test
	printf '[list]\nmax_message_size = 10\n' >>"$LISTS/ex.org/l/config"
	post ex.org l
	runq
	[ -z "$(queue_files)" ]
	grep -q 'over the list.s max_message_size of 10' "$(find "$SPOOL/HOLD" -name '*.why')"
}

@test "max_message_size counts what the poster sent: exactly the limit with an envelope sender goes out, one byte more is held" {
	printf '[transport_map]\nd.test = maildir:%s/mail/${user}\n' "$BATS_TEST_TMPDIR" >>"$CONF"
	mjq_list ex.org l a@d.test
	printf '[list]\nmax_message_size = 1000\n' >>"$LISTS/ex.org/l/config"
	# 1000 and 1001 bytes as the poster sent them; mj_enqueue puts
	# "Return-Path: <poster@example.net>" on top of each
	local i
	for i in 1000 1001; do
		{
			printf 'From: poster@example.net\nSubject: s%s\n\n' "$i"
			head -c 2000 /dev/zero | tr '\0' x
		} | head -c "$i" >"$BATS_TEST_TMPDIR/m$i"
		[ "$(stat -c %s "$BATS_TEST_TMPDIR/m$i")" -eq "$i" ]
		"$MJ_ENQUEUE" -C "$CONF" -d ex.org -l l -r -f poster@example.net \
			<"$BATS_TEST_TMPDIR/m$i"
	done
	runq
	[ -z "$(queue_files)" ]
	f=$(find "$BATS_TEST_TMPDIR/mail/a/new" -type f)
	[ "$(echo "$f" | wc -l)" -eq 1 ]
	grep -qx 'Subject: s1000' "$f"
	[ "$(find "$SPOOL/HOLD" -type f ! -name '.*' | wc -l)" -eq 1 ]
	grep -qx 'Subject: s1001' "$(find "$SPOOL/HOLD" -type f ! -name '.*')"
	grep -qx 'message of 1001 bytes is over the list.s max_message_size of 1000' \
		"$(find "$SPOOL/HOLD" -name '*.why')"
}

@test "an unknown [delivery] key stops the runner with file, line and key" {
	printf '[delivery]\nno_such_key = 1\n' >>"$CONF"
	line=$(wc -l <"$CONF")
	run "$MJ_QUEUERUN" -C "$CONF" -1
	[ "$status" -eq 78 ]
	[[ "$output" == *"mjq.conf:$line: [delivery] no_such_key: unknown key" ]]
}

@test "an smtp nexthop the client could never use stops the runner with file, line and key" {
	local n bad=$BATS_TEST_TMPDIR/bad.conf
	# notes after the nexthop (as an example in a guide once had), a
	# bracket not closed, a port that is not one, a blank in the host
	for n in '[192.0.2.1]:2525   no MX lookup' '[192.0.2.1' 'mx.d.test:x' \
		'mx.d.test:70000' 'mx d.test'; do
		{ cat "$CONF"; printf '[transport_map]\nd.test = smtp:%s\n' "$n"; } >"$bad"
		run -78 "$MJ_QUEUERUN" -C "$bad" -1
		[ "$output" = "mj_queuerun: $bad:$(wc -l <"$bad"): [transport_map] d.test: bad smtp nexthop \"$n\": want [host]:port, [host], host:port or host" ]
		{ cat "$CONF"; printf '[delivery]\nrelayhost = %s\n' "$n"; } >"$bad"
		run -78 "$MJ_QUEUERUN" -C "$bad" -1
		[ "$output" = "mj_queuerun: $bad:$(wc -l <"$bad"): [delivery] relayhost: bad smtp nexthop \"$n\": want [host]:port, [host], host:port or host" ]
	done
	# the forms the client takes are taken
	for n in '[192.0.2.1]:2525' '[mx.d.test]' 'mx.d.test:2525' 'mx.d.test'; do
		{ cat "$CONF"; printf '[transport_map]\nd.test = smtp:%s\n[delivery]\nrelayhost = %s\n' "$n" "$n"; } >"$bad"
		run -0 "$MJ_QUEUERUN" -C "$bad" -1
	done
}

@test "through mj_queueserv: 4xx recipients wait, and go after mj_queueserv flush" {
	smtpd_start s --rcpt 'later*@d.test=451 4.3.0 try again'
	cat >>"$CONF" <<-EOF
		[queueserv]
		runner_program = $MJ_QUEUERUN
		queue_run_delay = 1h
		[transport_map]
		d.test = smtp:[127.0.0.1]:$PORT
	EOF
	mjq_list ex.org l now@d.test later1@d.test later2@d.test
	queueserv_start
	post ex.org l
	wait_for 10 eval '[ "$(wc -l <"$BATS_TEST_TMPDIR/s/log")" -eq 1 ]'
	wait_for 10 eval 'grep -q "2 recipient(s) deferred" "$QS_LOG"'
	[ -n "$(queue_files)" ]
	servers_stop
	smtpd_start s2 --port "$PORT"
	run "$MJ_QUEUESERV" -C "$CONF" flush
	[ "$status" -eq 0 ]
	wait_for 10 eval '[ -z "$(queue_files)" ]'
	[ "$(sed 's/.* to=//' "$BATS_TEST_TMPDIR/s2/log" | sort | tr '\n' ' ')" = "<later1@d.test> <later2@d.test> " ]
	[ "$(wc -l <"$BATS_TEST_TMPDIR/s/log")" -eq 1 ]
}

@test "a list archive maildir gets one copy of each post, recorded like a recipient" {
	printf '[transport_map]\nd.test = discard:\n' >>"$CONF"
	mjq_list ex.org l a@d.test b@d.test
	printf '[list]\narchive = %s/archive\n' "$BATS_TEST_TMPDIR" >>"$LISTS/ex.org/l/config"
	post ex.org l
	runq
	[ "$(ls "$BATS_TEST_TMPDIR/archive/new" | wc -l)" -eq 1 ]
	f=$(find "$BATS_TEST_TMPDIR/archive/new" -type f)
	grep -qx 'Delivered-To: l-archive@ex.org' "$f"
	grep -qx 'List-Id: <l.ex.org>' "$f"
	grep -q 'to=<l-archive@ex.org>, relay=maildir, .*status=sent' "$BATS_TEST_TMPDIR/run.log"
	[ -z "$(queue_files)" ]
}

@test "a bounce that cannot be delivered past bounce_queue_lifetime is dropped, never bounced again" {
	P=$(free_port)
	printf '[delivery]\nmaximal_queue_lifetime = 0\nbounce_queue_lifetime = 0\n[transport_map]\nd.test = smtp:[127.0.0.1]:%s\nex.org = smtp:[127.0.0.1]:%s\n' \
		"$P" "$P" >>"$CONF"
	mjq_list ex.org l a@d.test
	post ex.org l
	runq
	grep -q 'sender non-delivery notification' "$BATS_TEST_TMPDIR/run.log"
	grep -q 'to=<l-owner@ex.org>, .*status=deferred' "$BATS_TEST_TMPDIR/run.log"
	grep -q 'sender is the null sender: no bounce for 1 recipient' "$BATS_TEST_TMPDIR/run.log"
	[ "$(grep -c 'sender non-delivery notification' "$BATS_TEST_TMPDIR/run.log")" -eq 1 ]
	[ -z "$(queue_files)" ]
}
