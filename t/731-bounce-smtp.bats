#!/usr/bin/env bats
# t/731-bounce-smtp.bats - receivers that push back, end to end: posts go
# out over loopback to mj_testsmtpd servers answering RCPT as a real
# provider would (--rcpt PATTERN=REPLY), the runner's DSNs come back to
# <list>-owner through a pipe as an MTA alias delivers them (with
# Delivered-To, so VERP works), and the list's bounce handling judges
# them (lists/bounce_class.c, lists/bounce_score.c, listfn/bounce_probe.c).

load helpers
load smtp_helpers
load request_helpers
bats_require_minimum_version 1.5.0

BLOCKED_OPTS=()

SPAMHAUS='554 5.7.1 Service unavailable; Client host [127.0.0.1] blocked using zen.spamhaus.org; https://www.spamhaus.org/query/ip/127.0.0.1'
UNKNOWN='550 5.1.1 <x@ok.test>: Recipient address rejected: User unknown in local recipient table'

# setup_file - a runner whose clock a test can move (make fault-runner:
# MJQ_TEST_CLOCK_OFFSET, honoured by a test build only)
setup_file() {
	make -s -C "$TOP" fault-runner FAULT_DIR="$BATS_FILE_TMPDIR" >/dev/null
}

teardown() {
	servers_stop
}

# on_day N - the test runner's clock N days ahead
on_day() {
	MJ_QUEUERUN=$BATS_FILE_TMPDIR/mj_queuerun
	export MJQ_TEST_CLOCK_OFFSET=$(($1 * 86400))
}

# bounce_setup REPLY - a list of 80: b1..b40@blocked.test, whose server
# answers every RCPT with REPLY (none: with the options in the array
# BLOCKED_OPTS); o1..o37@ok.test and gone1..gone3@ok.test
# (550 5.1.1 user unknown) at a healthy server; DSNs to mylist-owner come
# back through the pipe owner-in, as the MTA's alias would deliver them
bounce_setup() {
	local i
	MAIL=$BATS_TEST_TMPDIR/mail
	RUNLOG=$BATS_TEST_TMPDIR/runner.log
	smtpd_start ok --rcpt "gone*@ok.test=$UNKNOWN"
	OK_PORT=$PORT
	smtpd_start blocked ${1:+--rcpt "*=$1"} "${BLOCKED_OPTS[@]}"
	BLOCKED_PORT=$PORT
	mjq_setup <<-EOF
	${BOUNCE_CONF:-}
	[transport_map]
	ok.test = smtp:[127.0.0.1]:$OK_PORT
	blocked.test = smtp:[127.0.0.1]:$BLOCKED_PORT
	example.org = pipe:$BATS_TEST_TMPDIR/owner-in \${recipient}
	* = maildir:$MAIL/\${recipient}
	EOF
	cat >"$BATS_TEST_TMPDIR/owner-in" <<-EOF
	#!/bin/sh
	{ printf 'Delivered-To: %s\n' "\$1"; cat; } |
	    exec "$MJ_ENQUEUE" -C "$CONF" -d example.org -l mylist -o -f ''
	EOF
	chmod +x "$BATS_TEST_TMPDIR/owner-in"
	mjq_list example.org mylist \
	    $(for i in $(seq 1 40); do echo "b$i@blocked.test"; done) \
	    $(for i in $(seq 1 37); do echo "o$i@ok.test"; done) \
	    gone1@ok.test gone2@ok.test gone3@ok.test
	printf '[list]\nowners = boss@owner.test\nverp = yes\n' \
	    >>"$LISTS/example.org/mylist/config"
	SUBS=$LISTS/example.org/mylist/subscribers
	BOUNCES=$LISTS/example.org/mylist/bounces
}

# runq_empty - the runner until the queue is empty
runq_empty() {
	local i
	for i in 1 2 3 4 5 6; do
		runq
		[ -n "$(queue_files)" ] || return 0
	done
	echo "queue not empty: $(queue_files)" >&2
	return 1
}

# post N - the Nth post, through the runner until the queue is empty
# (the post, its DSNs, then the owner mail they became)
post() {
	printf 'From: poster@users.test\nSubject: post %s\n\nhello\n' "$1" |
	    "$MJ_ENQUEUE" -C "$CONF" -d example.org -l mylist -r -f poster@users.test
	runq_empty
}

# delivered PORT-NAME - recipients the server accepted so far
delivered() {
	wc -l <"$BATS_TEST_TMPDIR/$1/log"
}

@test "a blocklisting: 40 of 80 at a 554 5.7.1 domain over 20 posts remove and disable nobody; once it accepts again, a post reaches them all" {
	bounce_setup "$SPAMHAUS"
	local n
	for n in $(seq 1 20); do
		post "$n"
	done
	# every blocked recipient was refused on every post, and judged
	# where the runner heard it: no DSN to mylist-owner
	[ "$(grep -c '43 failed recipient(s) of mylist@example.org judged: recipient 3, mailbox 0, policy 40, transient 0, unknown 0' "$RUNLOG")" -eq 20 ]
	run -1 grep -q 'sender non-delivery notification' "$RUNLOG"
	echo "subscribers left: $(wc -l <"$SUBS")" >&3
	[ "$(wc -l <"$SUBS")" -eq 80 ]
	[ ! -s "$SUBS.disabled" ]
	run -1 grep -q '@blocked.test' "$BOUNCES"
	# the unknown users: one count each, on one day
	[ "$(grep -c ' ' "$BOUNCES")" -eq 3 ]
	[ "$(awk '{print NF - 1}' "$BOUNCES" | sort -u)" = 1 ]
	# one incident, one notice to the owners, not one per post
	[ "$(mails boss@owner.test)" -eq 1 ]
	f=$(ls "$MAIL"/boss@owner.test/new/*)
	grep -qx 'An incident: blocked.test refused 40 of the 40 recipients there of a' "$f"
	grep -qx 'post of mylist@example.org with a policy failure:' "$f"
	grep -qxF "    $SPAMHAUS" "$f"
	[ "$(grep -c 'incident at blocked.test for mylist@example.org: 40 of 40 recipients, policy' "$RUNLOG")" -eq 1 ]
	[ "$(grep -c 'incident at blocked.test goes on' "$RUNLOG")" -eq 19 ]
	# shown by mj_queueserv status, as text, JSON and Prometheus
	run -69 --separate-stderr "$MJ_QUEUESERV" -C "$CONF" status
	[[ "$output" == *$'
incident: mylist@example.org at blocked.test: policy, 40 of 40 recipients, since '*"s ago: $SPAMHAUS"* ]]
	# with every failure the runner judged, per class, for the list
	[[ "$output" == *$'\nlist: mylist@example.org judged recipient 60 mailbox 0 policy 800 transient 0 unknown 0, complaints 0, disabled 0, incidents 1'* ]]
	run -69 --separate-stderr "$MJ_QUEUESERV" -C "$CONF" status -j
	[[ "$output" == *'"incidents":[{"list":"mylist@example.org","destination":"blocked.test","class":"policy","count":40,"total":40,'* ]]
	[[ "$output" == *',"lists":[{"list":"mylist@example.org","judged":{"recipient":60,"mailbox":0,"policy":800,"transient":0,"unknown":0},"complaints":0,"disabled":0,"disabled_addresses":[],"incidents":1}]}' ]]
	run -69 --separate-stderr "$MJ_QUEUESERV" -C "$CONF" status -p
	[[ "$output" == *$'
mjq_bounce_incidents 1
'* ]]
	[[ "$output" == *$'
mjq_bounce_incident_recipients{list="mylist@example.org",destination="blocked.test",class="policy"} 40
'* ]]
	[[ "$output" == *$'
mjq_bounce_failures_total{list="mylist@example.org",class="recipient"} 60
mjq_bounce_failures_total{list="mylist@example.org",class="mailbox"} 0
mjq_bounce_failures_total{list="mylist@example.org",class="policy"} 800
'* ]]
	[[ "$output" == *$'
mjq_list_incidents{list="mylist@example.org"} 1
'* ]]
	[ "$(delivered ok)" -eq $((20 * 37)) ]
	# the provider takes mail again: the next post reaches all 40 there
	stop_pid "$(cat "$BATS_TEST_TMPDIR/blocked/pid")"
	smtpd_start blocked2 --port "$BLOCKED_PORT"
	post 21
	[ "$(delivered blocked2)" -eq 40 ]
	[ "$(delivered ok)" -eq $((21 * 37)) ]
}

@test "DMARC rejections (550 5.7.26) of 40 of 80 over 6 posts remove and disable nobody; one incident notice" {
	bounce_setup "550 5.7.26 Unauthenticated email from example.org is not accepted due to domain's DMARC policy. Please contact the administrator of example.org domain if this was a legitimate mail."
	local n
	for n in $(seq 1 6); do
		post "$n"
	done
	[ "$(grep -c '43 failed recipient(s) of mylist@example.org judged: recipient 3, mailbox 0, policy 40, transient 0, unknown 0' "$RUNLOG")" -eq 6 ]
	[ "$(wc -l <"$SUBS")" -eq 80 ]
	[ ! -s "$SUBS.disabled" ]
	run -1 grep -q '@blocked.test' "$BOUNCES"
	[ "$(mails boss@owner.test)" -eq 1 ]
	grep -q "DMARC policy" "$MAIL"/boss@owner.test/new/*
}

@test "a real unknown user (550 5.1.1) over SMTP: disabled on the fifth day, probed, removed after the last probe bounced back through the owner address" {
	bounce_setup "$SPAMHAUS"
	printf 'bounce_probes = 2\nbounce_probe_interval = 1d\n' >>"$LISTS/example.org/mylist/config"
	# a goodbye text: the owners hear it was not sent to a dead mailbox
	printf 'Goodbye from $LIST.\n' >"$LISTS/example.org/mylist/goodbye"
	local d
	for d in 0 1 2 3; do
		on_day $d
		post "day$d"
	done
	[ ! -s "$SUBS.disabled" ]
	[ "$(awk '$1 == "gone1@ok.test" {print NF - 1}' "$BOUNCES")" -eq 4 ]
	on_day 4
	post day4
	# disabled, all three, and told; still subscribed
	[ "$(cut -d' ' -f1 "$SUBS.disabled" | sort | tr '\n' ' ')" = "gone1@ok.test gone2@ok.test gone3@ok.test " ]
	[ "$(wc -l <"$SUBS")" -eq 80 ]
	# three disable notices, and the blocklisting's one incident notice
	[ "$(mails boss@owner.test)" -eq 4 ]
	# the next post skips them and probes them; the probes fail at the
	# server, their DSNs come back to mylist-owner+probe-<token>
	on_day 5
	post day5
	grep -q ': 3 disabled subscriber(s) left out' "$RUNLOG"
	[ "$(grep -c 'nrcpt=77$' "$RUNLOG")" -eq 1 ]
	[ "$(grep -c 'probe 1 to <gone[123]@ok.test> bounced: recipient' "$RUNLOG")" -eq 3 ]
	[ "$(awk '{print $3, $6}' "$SUBS.disabled" | sort -u)" = "1 1" ]
	on_day 6
	post day6
	[ ! -s "$SUBS.disabled" ]
	[ "$(wc -l <"$SUBS")" -eq 77 ]
	run -1 grep -q gone "$SUBS"
	[ "$(grep -c 'and each of its 2 probes bounced' "$RUNLOG")" -eq 3 ]
	[ "$(mails boss@owner.test)" -eq 7 ]
	[ "$(grep -l 'has been removed from mylist@example.org' "$MAIL"/boss@owner.test/new/* | wc -l)" -eq 3 ]
	[ "$(grep -l "The list's goodbye text was not sent to it: mail to it bounces." "$MAIL"/boss@owner.test/new/* | wc -l)" -eq 3 ]
	# no goodbye (nor any other mail) queued to a removed address
	run -1 grep -q 'reply .* to <gone[123]@ok.test>' "$RUNLOG"
	# the blocklisted 40 all along: nothing
	run -1 grep -q '@blocked.test' "$BOUNCES"
}

# storm CLASS N - after N posts: nobody removed, disabled or counted at
# blocked.test, and one incident notice of CLASS to the owners
storm() {
	local n
	for n in $(seq 1 "$2"); do
		post "$n"
	done
	[ "$(wc -l <"$SUBS")" -eq 80 ]
	[ ! -s "$SUBS.disabled" ]
	run -1 grep -q '@blocked.test' "$BOUNCES"
	[ "$(mails boss@owner.test)" -eq 1 ]
	grep -q "^post of mylist@example.org with a $1 failure:" "$MAIL"/boss@owner.test/new/*
	[ "$(grep -c 'incident at blocked.test goes on' "$RUNLOG")" -eq $(($2 - 1)) ]
}

@test "a 451 'try later' storm (4.7.1), expired in the queue (4.4.7), over 6 posts: transient, nobody removed, one incident notice" {
	BOUNCE_CONF=$'[delivery]\nmaximal_queue_lifetime = 0'
	bounce_setup '451 4.7.1 Please try again later'
	storm transient 6
	grep -qF '    x-mjq; delivery time expired (last error: 4.7.1 451 4.7.1 Please try again later)' \
	    "$MAIL"/boss@owner.test/new/*
}

@test "a 421 storm, expired in the queue, over 6 posts: nobody removed, one incident notice" {
	BOUNCE_CONF=$'[delivery]\nmaximal_queue_lifetime = 0'
	BLOCKED_OPTS=(--reply 'rcpt=421 4.3.2 Service not available, closing transmission channel')
	bounce_setup ''
	storm transient 6
}

@test "452 too many recipients past 10 a transaction, expired in the queue, over 6 posts: policy, nobody removed, one incident notice" {
	BOUNCE_CONF=$'[delivery]\nmaximal_queue_lifetime = 0'
	BLOCKED_OPTS=(--rcpt-limit 10)
	bounce_setup ''
	# without VERP a transaction carries many recipients
	printf 'verp = no\n' >>"$LISTS/example.org/mylist/config"
	storm policy 6
	# 10 of each post's 40 there delivered, 30 refused
	[ "$(delivered blocked)" -eq $((6 * 10)) ]
	grep -q 'An incident: blocked.test refused 30 of the 40 recipients there of a' "$MAIL"/boss@owner.test/new/*
	grep -qF 'last error: 4.5.3 452 4.5.3 too many recipients' "$MAIL"/boss@owner.test/new/*
}

# complaint_setup [one-click] - mylist of carol, dave and erin at
# users.test, whose server keeps each copy it accepts; owner mail comes
# back through the pipe owner-in as in bounce_setup.  With one-click the
# list writes each copy's own unsubscribe link (a per-copy token).
complaint_setup() {
	MAIL=$BATS_TEST_TMPDIR/mail
	RUNLOG=$BATS_TEST_TMPDIR/runner.log
	smtpd_start users
	mjq_setup <<-EOF
	[unsubscribe]
	secret_file = $BATS_TEST_TMPDIR/unsubscribe.secret
	[transport_map]
	users.test = smtp:[127.0.0.1]:$PORT
	example.org = pipe:$BATS_TEST_TMPDIR/owner-in \${recipient}
	* = maildir:$MAIL/\${recipient}
	EOF
	"$TOP/scripts/mjq-unsubsecret" "$BATS_TEST_TMPDIR/unsubscribe.secret"
	cat >"$BATS_TEST_TMPDIR/owner-in" <<-EOF
	#!/bin/sh
	{ printf 'Delivered-To: %s\n' "\$1"; cat; } |
	    exec "$MJ_ENQUEUE" -C "$CONF" -d example.org -l mylist -o -f ''
	EOF
	chmod +x "$BATS_TEST_TMPDIR/owner-in"
	mjq_list example.org mylist carol@users.test dave@users.test erin@users.test
	printf '[list]\nowners = boss@owner.test\n' >>"$LISTS/example.org/mylist/config"
	[ "${1:-}" != one-click ] ||
	    printf 'unsubscribe_url = https://lists.example.org/u\n' >>"$LISTS/example.org/mylist/config"
	SUBS=$LISTS/example.org/mylist/subscribers
}

# reply_post - erin's reply "To: carol, Cc: the list", through the runner
# until the queue is empty
reply_post() {
	printf 'From: erin@users.test\nTo: carol@users.test\nCc: mylist@example.org\nSubject: Re: lunch\n\nyes\n' |
	    "$MJ_ENQUEUE" -C "$CONF" -d example.org -l mylist -r -f erin@users.test
	runq_empty
}

# copy_of ADDR - the copy users.test accepted for ADDR, as its final
# delivery agent stores it (Return-Path on top, LF line ends)
copy_of() {
	local line msg from
	line=$(grep " to=<$1>" "$BATS_TEST_TMPDIR/users/log" | tail -1)
	msg=$(echo "$line" | awk '{print $2}')
	from=$(echo "$line" | sed 's/.* from=<\([^>]*\)>.*/\1/')
	printf 'Return-Path: <%s>\n' "$from"
	tr -d '\r' <"$BATS_TEST_TMPDIR/users/save/new/$msg"
}

# complain ADDR [RCPT-TO-LINE] - a provider's abuse report (RFC 5965) on
# ADDR's copy to mylist-owner, with RCPT-TO-LINE in its feedback part
complain() {
	copy_of "$1" >"$BATS_TEST_TMPDIR/copy"
	arf_report abuse "${2:-Original-Mail-From: <mylist-owner@example.org>}" \
	    "$BATS_TEST_TMPDIR/copy"
	runq_empty
}

# complaints_counted - the list's complaints as mj_queueserv status shows
complaints_counted() {
	run -69 --separate-stderr "$MJ_QUEUESERV" -C "$CONF" status
	echo "$output" | sed -n 's/^list: mylist@example.org .*, complaints \([0-9]*\),.*/\1/p'
}

@test "a complaint on a plain list: dave's report without Original-Rcpt-To proves nobody (the post's To: carol is the poster's), counted and shown to the owners; with it, dave leaves" {
	complaint_setup
	reply_post
	[ "$(grep -c ' to=<' "$BATS_TEST_TMPDIR/users/log")" -eq 3 ]
	complain dave@users.test
	echo "subscribers: $(paste -sd" " "$SUBS")"
	[ "$(cat "$SUBS")" = $'carol@users.test\ndave@users.test\nerin@users.test' ]
	[ "$(complaints_counted)" = 1 ]
	[ "$(mails boss@owner.test)" -eq 1 ]
	grep -q 'report-type=feedback-report' "$MAIL"/boss@owner.test/new/*
	grep -q 'feedback report (abuse) proving nobody: counted, removed nobody, forwarded to the owners' "$RUNLOG"
	[ ! -s "$LISTS/example.org/mylist/complaints" ]
	complain dave@users.test 'Original-Rcpt-To: <dave@users.test>'
	echo "subscribers: $(paste -sd" " "$SUBS")"
	[ "$(cat "$SUBS")" = $'carol@users.test\nerin@users.test' ]
	[ "$(complaints_counted)" = 2 ]
	grep -q "complaint (abuse report) from <dave@users.test> about mylist@example.org, proven by the report's Original-Rcpt-To: unsubscribed" "$RUNLOG"
}

@test "a complaint on a one-click list: the per-copy token proves dave without Original-Rcpt-To; a forged token proves nobody" {
	complaint_setup one-click
	reply_post
	# each copy its own transaction, each with its recipient's link
	[ "$(grep -c ' to=<' "$BATS_TEST_TMPDIR/users/log")" -eq 3 ]
	copy_of dave@users.test | grep -q '^List-Unsubscribe: <https://lists.example.org/u?l=mylist%40example.org&a=dave%40users.test&t='
	complain dave@users.test
	echo "subscribers: $(paste -sd" " "$SUBS")"
	[ "$(cat "$SUBS")" = $'carol@users.test\nerin@users.test' ]
	grep -q "complaint (abuse report) from <dave@users.test> about mylist@example.org, proven by the copy's one-click link: unsubscribed" "$RUNLOG"
	# with Original-Rcpt-To too: the same answer
	echo dave@users.test >>"$SUBS"
	complain dave@users.test 'Original-Rcpt-To: <dave@users.test>'
	echo "subscribers: $(paste -sd" " "$SUBS")"
	[ "$(cat "$SUBS")" = $'carol@users.test\nerin@users.test' ]
	[ "$(complaints_counted)" = 2 ]
	[ "$(mails boss@owner.test)" -eq 0 ]
	# a token whose address was changed to carol's no longer verifies
	echo dave@users.test >>"$SUBS"
	copy_of dave@users.test | sed 's/a=dave%40users.test/a=carol%40users.test/' >"$BATS_TEST_TMPDIR/forged"
	grep -q 'a=carol%40users.test' "$BATS_TEST_TMPDIR/forged"
	copy_of() { cat "$BATS_TEST_TMPDIR/forged"; }
	complain dave@users.test
	echo "subscribers: $(paste -sd" " "$SUBS")"
	[ "$(cat "$SUBS")" = $'carol@users.test\nerin@users.test\ndave@users.test' ]
	[ "$(complaints_counted)" = 3 ]
	[ "$(mails boss@owner.test)" -eq 1 ]
}

# complaint_crashed FEEDBACK-LINE - dave's report, its runner killed as
# the report's state file (its forward, or its end) is linked in, after
# the complaint was taken and counted
complaint_crashed() {
	local name
	complaint_setup
	reply_post
	copy_of dave@users.test >"$BATS_TEST_TMPDIR/copy"
	arf_report abuse "$1" "$BATS_TEST_TMPDIR/copy"
	name=$(queue_files | tail -1)
	crash_at link "$SPOOL/$(dirname "$name")/.$(basename "$name")"
	[ "$(complaints_counted)" = 1 ]
}

@test "a complaint proving nobody is counted once and forwarded once when its runner is killed between the count and the forward" {
	command -v strace >/dev/null || skip "no strace"
	complaint_crashed 'Original-Mail-From: <mylist-owner@example.org>'
	runq_empty
	echo "complaints counted: $(complaints_counted)"
	[ "$(complaints_counted)" = 1 ]
	[ "$(mails boss@owner.test)" -eq 1 ]
	# the count's mark of the message is gone with it
	[ "$(cat "$SPOOL/state/bounce-counts")" = "mylist@example.org 0 0 0 0 0 1" ]
	# and the next report counts again
	arf_report abuse 'Original-Mail-From: <mylist-owner@example.org>' "$BATS_TEST_TMPDIR/copy"
	runq_empty
	[ "$(complaints_counted)" = 2 ]
	[ "$(mails boss@owner.test)" -eq 2 ]
}

@test "a complaint that unsubscribes is counted once when its runner is killed before the report's state file: the retry removes nobody more and counts nothing more" {
	command -v strace >/dev/null || skip "no strace"
	complaint_crashed 'Original-Rcpt-To: <dave@users.test>'
	[ "$(cat "$SUBS")" = $'carol@users.test\nerin@users.test' ]
	runq_empty
	echo "complaints counted: $(complaints_counted)"
	cat "$LISTS/example.org/mylist/complaints" || true
	[ "$(complaints_counted)" = 1 ]
	[ "$(mails boss@owner.test)" -eq 0 ]
	grep -q 'complaint about <dave@users.test> taken before its state file was made: not taken again' "$RUNLOG"
	[ "$(cat "$SPOOL/state/bounce-counts")" = "mylist@example.org 0 0 0 0 0 1" ]
	# noted once, as what was done then
	[[ "$(cat "$LISTS/example.org/mylist/complaints")" =~ ^[0-9]+\ dave@users.test\ unsubscribed\ \(report\ [^[:space:]]+\)$ ]]
}

@test "a complaint is noted once in the list's complaints file when its runner is killed after the note, before the count: the retry notes nothing more" {
	command -v strace >/dev/null || skip "no strace"
	complaint_setup
	reply_post
	copy_of dave@users.test >"$BATS_TEST_TMPDIR/copy"
	arf_report abuse 'Original-Rcpt-To: <dave@users.test>' "$BATS_TEST_TMPDIR/copy"
	# killed as the count's new file is renamed into place (strace
	# matches rename(2) by its first path): dave removed and noted
	crash_at rename "$SPOOL/state/bounce-counts.tmp"
	[ "$(cat "$SUBS")" = $'carol@users.test\nerin@users.test' ]
	[ ! -e "$SPOOL/state/bounce-counts" ]
	[ "$(grep -c ' dave@users.test ' "$LISTS/example.org/mylist/complaints")" -eq 1 ]
	runq_empty
	cat "$LISTS/example.org/mylist/complaints"
	[ "$(complaints_counted)" = 1 ]
	# one line, as what was done then
	[ "$(grep -c ' dave@users.test ' "$LISTS/example.org/mylist/complaints")" -eq 1 ]
	grep -q "^[0-9]* dave@users.test unsubscribed (report [^ )]*)$" "$LISTS/example.org/mylist/complaints"
}
