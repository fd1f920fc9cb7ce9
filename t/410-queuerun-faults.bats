#!/usr/bin/env bats
# t/410-queuerun-faults.bats - mj_queuerun when things go wrong: a runner
# killed mid-delivery, servers that refuse sessions or drop them, repeated
# crashes, damaged state; and MX selection on canned DNS answers.

load helpers
load smtp_helpers

setup() {
	mjq_setup </dev/null
}

teardown() {
	[ -z "${RUNNER:-}" ] || kill -9 "$RUNNER" 2>/dev/null || true
	servers_stop
}

post() {
	printf 'From: poster@example.net\nSubject: hi\n\nhello\n' |
		"$MJ_ENQUEUE" -C "$CONF" -d "$1" -l "$2" -r -f poster@example.net
}

# lines FILE... - how many lines in all of them
lines() {
	cat "$@" 2>/dev/null | wc -l
}

@test "a runner killed mid-delivery: nothing missing, duplicates only from batches in flight" {
	local d i
	for d in 0 1 2 3 4; do
		smtpd_start "s$d" --delay eod=100
		echo "d$d.test = smtp:[127.0.0.1]:$PORT" >>"$BATS_TEST_TMPDIR/map"
	done
	{
		printf '[delivery]\ndestination_concurrency_limit = 2\n'
		printf 'destination_recipient_limit = 10\n[transport_map]\n'
		cat "$BATS_TEST_TMPDIR/map"
	} >>"$CONF"
	mkdir -p "$LISTS/ex.org/big"
	for i in $(seq 1 1000); do echo "u$i@d$((i % 5)).test"; done \
		>"$LISTS/ex.org/big/subscribers"
	list_posting ex.org big
	post ex.org big
	"$MJ_QUEUERUN" -C "$CONF" -1 2>"$BATS_TEST_TMPDIR/run1.log" &
	RUNNER=$!
	RUNNER_PID=$RUNNER
	wait_for 20 eval '[ "$(lines "$BATS_TEST_TMPDIR"/s*/log)" -ge 300 ]'
	kill -9 "$RUNNER"
	wait "$RUNNER" || true
	RUNNER=
	before=$(lines "$BATS_TEST_TMPDIR"/s*/log)
	[ "$before" -lt 1000 ]
	# the state file names the runner that held it
	grep -qx "active  *$RUNNER_PID" "$(state_files)"
	runq
	cat "$BATS_TEST_TMPDIR"/s*/log | sed 's/.* to=//' | sort >"$BATS_TEST_TMPDIR/got"
	# nobody missing
	[ "$(sort -u "$BATS_TEST_TMPDIR/got" | wc -l)" -eq 1000 ]
	# duplicates: at most the batches in flight at the kill, 5 servers
	# x 2 sessions x 10 recipients (and what was acknowledged but not
	# yet collected by the main thread, which is the same batches)
	dups=$(($(wc -l <"$BATS_TEST_TMPDIR/got") - 1000))
	echo "delivered before the kill: $before, duplicates: $dups" >&3
	[ "$dups" -le 100 ]
	[ -z "$(queue_files)" ]
}

@test "a server that refuses sessions past 2 (421): nothing lost, the rest after the retry" {
	smtpd_start s --max-sessions 2 --delay eod=50
	printf '[delivery]\ndestination_recipient_limit = 5\n[transport_map]\nd.test = smtp:[127.0.0.1]:%s\n' \
		"$PORT" >>"$CONF"
	mkdir -p "$LISTS/ex.org/l"
	for i in $(seq 1 100); do echo "u$i@d.test"; done >"$LISTS/ex.org/l/subscribers"
	list_posting ex.org l
	post ex.org l
	runq
	first=$(lines "$BATS_TEST_TMPDIR/s/log")
	deferred=$(grep -c 'status=deferred' "$BATS_TEST_TMPDIR/run.log" || true)
	[ $((first + deferred)) -eq 100 ]
	[ "$deferred" -eq 0 ] || grep -q 'status=deferred (421 ' "$BATS_TEST_TMPDIR/run.log"
	# flush until done: each pass defers only what met a 421
	for pass in 1 2 3 4 5 6 7 8 9 10; do
		[ -n "$(queue_files)" ] || break
		make_due
		runq
	done
	[ "$(sed 's/.* to=//' "$BATS_TEST_TMPDIR/s/log" | sort -u | wc -l)" -eq 100 ]
	[ "$(lines "$BATS_TEST_TMPDIR/s/log")" -eq 100 ]
	[ -z "$(queue_files)" ]
}

@test "one session carries several transactions to a destination" {
	smtpd_start s
	printf '[delivery]\ndestination_concurrency_limit = 1\n[transport_map]\nd.test = smtp:[127.0.0.1]:%s\n' \
		"$PORT" >>"$CONF"
	mkdir -p "$LISTS/ex.org/l"
	for i in $(seq 1 200); do echo "u$i@d.test"; done >"$LISTS/ex.org/l/subscribers"
	list_posting ex.org l
	post ex.org l
	runq
	[ "$(lines "$BATS_TEST_TMPDIR/s/log")" -eq 200 ]
	[ "$(awk '{print $1}' "$BATS_TEST_TMPDIR/s/log" | sort -u | wc -l)" -eq 1 ]
	[ "$(awk '{print $2}' "$BATS_TEST_TMPDIR/s/log" | sort -u | wc -l)" -eq 4 ]
	[ "$(grep -c '^[0-9]* [0-9]* RSET' "$BATS_TEST_TMPDIR/s/trace")" -eq 3 ]
}

@test "a connection dropped at DATA defers the batch; the retry delivers it once" {
	smtpd_start s --drop data
	printf '[transport_map]\nd.test = smtp:[127.0.0.1]:%s\n' "$PORT" >>"$CONF"
	mjq_list ex.org l a@d.test b@d.test
	post ex.org l
	runq
	[ "$(lines "$BATS_TEST_TMPDIR/s/log")" -eq 0 ]
	[ "$(grep -c '^deferred ' "$(state_files)")" -eq 2 ]
	servers_stop
	smtpd_start s2 --port "$PORT"
	make_due
	runq
	[ "$(lines "$BATS_TEST_TMPDIR/s2/log")" -eq 2 ]
}

# died_twice - a post to a dead server, its state file then as if two
# runners had died holding it and a third one now; due again
died_twice() {
	P=$(free_port)
	printf '[transport_map]\nd.test = smtp:[127.0.0.1]:%s\n' "$P" >>"$CONF"
	mjq_list ex.org l a@d.test
	post ex.org l
	runq
	st=$(state_files)
	sed -i 's/^crashes      0$/crashes      2/; s/^active  *0$/active          1/' "$st"
	grep -qx 'crashes      2' "$st"
	make_due
}

@test "a message whose runner died max_crashes times goes to BAD/ with its state and a reason" {
	died_twice
	runq
	[ -z "$(queue_files)" ]
	[ -z "$(state_files)" ]
	bad=$(find "$SPOOL/BAD" -type f ! -name '.*')
	[ -f "$(dirname "$bad")/.$(basename "$bad")" ]
	grep -q 'died 3 times' "$(dirname "$bad")/.$(basename "$bad").why"
	grep -q 'moved to BAD: a runner died 3 times' "$BATS_TEST_TMPDIR/run.log"
}

# crashed_unwritable CALL N - a message whose runner died max_crashes
# times, taken by a runner for which every CALL (fdatasync, pwrite64) on
# its state file fails for real (EIO): N failures logged, it stays in
# QUEUE/, put off, and the next try, where the call works, moves it to
# BAD/
crashed_unwritable() {
	command -v strace >/dev/null || skip "no strace"
	died_twice
	ASAN_OPTIONS=detect_leaks=0 timeout 60 strace -f -qq -o /dev/null \
		-P "$st" -e trace="$1" -e inject="$1":error=EIO \
		"$MJ_QUEUERUN" -C "$CONF" -1 2>>"$BATS_TEST_TMPDIR/run.log"
	[ "$(grep -c "cannot update $st: Input/output error" \
		"$BATS_TEST_TMPDIR/run.log")" -eq "$2" ]
	[ -z "$(find "$SPOOL/BAD" -type f 2>/dev/null)" ]
	[ -n "$(queue_files)" ]
	[ "$(state_files)" = "$st" ]
	# put off: its next try is in the future
	[ "$(stat -c %Y "$SPOOL/$(queue_files)")" -gt "$(date +%s)" ]
	make_due
	runq
	[ -z "$(queue_files)" ]
	[ -z "$(state_files)" ]
	bad=$(find "$SPOOL/BAD" -type f ! -name '.*')
	grep -q 'died 3 times' "$(dirname "$bad")/.$(basename "$bad").why"
}

@test "max_crashes reached but the state file cannot be synced: the message stays in QUEUE/, put off; the next try moves it to BAD/" {
	# the count that sends it to BAD/ cannot be made durable
	crashed_unwritable fdatasync 1
}

@test "max_crashes reached but the state file cannot be written: the message stays in QUEUE/, put off; the next try moves it to BAD/" {
	# the count cannot be written, nor "no longer active" when put off
	crashed_unwritable pwrite64 2
}

@test "a damaged state file sends the message to BAD/ instead of crashing" {
	P=$(free_port)
	printf '[transport_map]\nd.test = smtp:[127.0.0.1]:%s\n' "$P" >>"$CONF"
	mjq_list ex.org l a@d.test
	post ex.org l
	runq
	st=$(state_files)
	printf 'garbage\n' >"$st"
	make_due
	runq
	[ -z "$(queue_files)" ]
	grep -q '^damaged state file: not a state file' \
		"$(find "$SPOOL/BAD" -name '*.why')"
}

@test "the state file is plain text: sender, arrival, tries, one fixed-width line per recipient" {
	P=$(free_port)
	printf '[transport_map]\nd.test = smtp:[127.0.0.1]:%s\n' "$P" >>"$CONF"
	mjq_list ex.org l a@d.test b@d.test
	post ex.org l
	runq
	st=$(state_files)
	# the message line: the message file's size and 64-bit FNV-1a
	msg=$SPOOL/$(queue_files)
	local h=-3750763034362895579 b # 14695981039346656037 as a signed 64-bit
	for b in $(od -An -tu1 -v "$msg"); do
		h=$(( (h ^ b) * 1099511628211 ))
	done
	[ "$(sed -n 1,5p "$st" | tr '\n' '|')" = \
		"mjq-state 2|message $(stat -c %s "$msg") $(printf '%016x' "$h")|kind post|sender <l-owner@ex.org>|from <poster@example.net>|" ]
	grep -q '^arrival [0-9]*$' "$st"
	grep -qx 'tries      1' "$st"
	grep -qx 'active          0' "$st"
	grep -qx 'crash_settled          0' "$st"
	grep -qx 'recipients          2' "$st"
	[ "$(tail -2 "$st" | tr '\n' '|')" = "deferred  a@d.test|deferred  b@d.test|" ]
	# the error line is fixed width: 6 + 200 characters
	[ "$(grep '^error ' "$st" | awk '{ print length($0) }')" -eq 206 ]
}

@test "MX selection: preference order, the next MX when the first refuses" {
	smtpd_start s
	cat >"$BATS_TEST_TMPDIR/zone" <<-EOF
	mx.test	MX	20 mx2.mx.test
	mx.test	MX	10 mx1.mx.test
	mx1.mx.test	A	127.0.0.2
	mx2.mx.test	A	127.0.0.1
	EOF
	dnsd_start "$BATS_TEST_TMPDIR/zone"
	printf '[delivery]\ndns_server = 127.0.0.1:%s\n[transport_map]\nmx.test = smtp:mx.test:%s\n' \
		"$DNS_PORT" "$PORT" >>"$CONF"
	mjq_list ex.org l a@mx.test
	post ex.org l
	runq
	[ "$(lines "$BATS_TEST_TMPDIR/s/log")" -eq 1 ]
	grep -q "to=<a@mx.test>, relay=mx2.mx.test\[127.0.0.1\]:$PORT, .*status=sent" \
		"$BATS_TEST_TMPDIR/run.log"
	grep -qx 'mx.test MX' "$BATS_TEST_TMPDIR/dns/log"
}

@test "MX selection: a domain that does not exist bounces, no connection tried" {
	smtpd_start owner
	printf '[delivery]\ndns_server = 127.0.0.1:%s\n[transport_map]\nex.org = smtp:[127.0.0.1]:%s\n' \
		"$(echo)" "$PORT" >>"$CONF"
	cat >"$BATS_TEST_TMPDIR/zone" <<-EOF
	other.test	A	127.0.0.1
	EOF
	dnsd_start "$BATS_TEST_TMPDIR/zone"
	sed -i "s/^dns_server = .*/dns_server = 127.0.0.1:$DNS_PORT/" "$CONF"
	mjq_list ex.org l a@nowhere.test
	# a DSN of the post, not the runner's own judging (bounce_judge)
	printf '[list]\nbounce_judge = no\n' >>"$LISTS/ex.org/l/config"
	post ex.org l
	runq
	grep -q 'to=<a@nowhere.test>, .*dsn=5.4.4, status=bounced' "$BATS_TEST_TMPDIR/run.log"
	[ "$(lines "$BATS_TEST_TMPDIR/owner/log")" -eq 1 ]
}

# order_of - the lists of the messages in the order the runner finished them
order_of() {
	grep -o '[A-Z]*-[0-9]*-[a-z]*: removed' "$BATS_TEST_TMPDIR/run.log" |
		sed 's/.*-\([a-z]*\): removed/\1/' | tr '\n' ' '
}

@test "the walk takes higher priority tiers first, and a starving message before them" {
	printf '[queuerun]\nactive_limit = 1\nstarvation_age = 10m\n[transport_map]\nd.test = discard:\n' >>"$CONF"
	mjq_list ex.org lo a@d.test
	mjq_list ex.org hi a@d.test
	printf 'Subject: x\n\nx\n' | "$MJ_ENQUEUE" -C "$CONF" -d ex.org -l lo -r -f a@b.c
	printf 'Subject: x\n\nx\n' | "$MJ_ENQUEUE" -C "$CONF" -d ex.org -l hi -r -P 20 -f a@b.c
	runq
	[ "$(order_of)" = "hi lo " ]
	: >"$BATS_TEST_TMPDIR/run.log"
	printf 'Subject: x\n\nx\n' | "$MJ_ENQUEUE" -C "$CONF" -d ex.org -l lo -r -f a@b.c
	find "$SPOOL/QUEUE" -type f -name '*-lo' -exec touch -d '1 hour ago' {} +
	printf 'Subject: x\n\nx\n' | "$MJ_ENQUEUE" -C "$CONF" -d ex.org -l hi -r -P 20 -f a@b.c
	runq
	[ "$(order_of)" = "lo hi " ]
}

@test "a message that killed runners before its state file existed goes to BAD/ after max_crashes" {
	printf '[transport_map]\nd.test = discard:\n' >>"$CONF"
	mjq_list ex.org l a@d.test
	post ex.org l
	f=$SPOOL/$(queue_files)
	# as if three runners had died in its first processing
	echo 3 >"$(dirname "$f")/.$(basename "$f").try"
	runq
	[ -z "$(queue_files)" ]
	[ -z "$(find "$SPOOL/QUEUE" -name '*.try')" ]
	grep -q 'died 3 times while processing it the first time' \
		"$(find "$SPOOL/BAD" -name '*.why')"
	# below the limit the count is forgotten once processing succeeds
	post ex.org l
	f=$SPOOL/$(queue_files)
	echo 2 >"$(dirname "$f")/.$(basename "$f").try"
	runq
	[ -z "$(queue_files)" ]
	[ -z "$(find "$SPOOL/QUEUE" -name '*.try')" ]
	grep -q 'to=<a@d.test>, relay=discard, .*status=sent' "$BATS_TEST_TMPDIR/run.log"
}

@test "many messages through a small active set: each delivered once, the queue drained" {
	smtpd_start s
	printf '[queuerun]\nactive_limit = 3\n[transport_map]\nd.test = smtp:[127.0.0.1]:%s\n' "$PORT" >>"$CONF"
	mjq_list ex.org l a@d.test b@d.test
	for i in $(seq 1 40); do
		printf 'Subject: m%s\n\nx\n' "$i" |
			"$MJ_ENQUEUE" -C "$CONF" -d ex.org -l l -r -f a@b.c
	done
	runq
	[ -z "$(queue_files)" ]
	[ "$(lines "$BATS_TEST_TMPDIR/s/log")" -eq 80 ]
	[ "$(grep -c ': removed$' "$BATS_TEST_TMPDIR/run.log")" -eq 40 ]
}

@test "a maildir whose new/ cannot be synced (EIO injected): that recipient deferred, the retry delivers it once" {
	command -v strace >/dev/null || skip "no strace"
	printf '[transport_map]\nd.test = maildir:%s/mail/${user}\n' "$BATS_TEST_TMPDIR" >>"$CONF"
	mjq_list ex.org l a@d.test b@d.test
	mkdir -p "$BATS_TEST_TMPDIR"/mail/a/{new,cur,tmp}
	post ex.org l
	# every fsync of a's new/ fails for real (the kernel call returns EIO)
	ASAN_OPTIONS=detect_leaks=0 timeout 60 strace -f -qq -o /dev/null \
		-P "$BATS_TEST_TMPDIR/mail/a/new" -e trace=fsync \
		-e inject=fsync:error=EIO \
		"$MJ_QUEUERUN" -C "$CONF" -1 2>"$BATS_TEST_TMPDIR/run.log"
	grep -q 'to=<a@d.test>, relay=maildir, .*status=deferred (cannot sync .*/mail/a/new/.*: Input/output error)' \
		"$BATS_TEST_TMPDIR/run.log"
	grep -q 'to=<b@d.test>, relay=maildir, .*status=sent' "$BATS_TEST_TMPDIR/run.log"
	# the copy whose name may not last is taken back; b has its one
	[ -z "$(find "$BATS_TEST_TMPDIR/mail/a" -type f)" ]
	[ "$(ls "$BATS_TEST_TMPDIR/mail/b/new" | wc -l)" -eq 1 ]
	[ -n "$(queue_files)" ]
	make_due
	runq
	[ "$(ls "$BATS_TEST_TMPDIR/mail/a/new" | wc -l)" -eq 1 ]
	[ "$(ls "$BATS_TEST_TMPDIR/mail/b/new" | wc -l)" -eq 1 ]
	[ -z "$(queue_files)" ]
}

@test "mj_queuerun -l shows a deferred message's last error" {
	smtpd_start s --rcpt 'later@*=450 4.2.0 mailbox busy'
	printf '[transport_map]\nd.test = smtp:[127.0.0.1]:%s\n' "$PORT" >>"$CONF"
	mjq_list ex.org l later@d.test
	post ex.org l
	runq
	listq_one '^QUEUE/.*/list/.* left=1/1 next=[^ ]+ error=4\.2\.0 .*450 4\.2\.0 mailbox busy'
}
