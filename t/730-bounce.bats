#!/usr/bin/env bats
# Bounces to <list>-owner (listfn/bounce.c, lists/bounce_parse.c): each failed
# address judged by its cause (lists/bounce_class.c), recipient and mailbox
# failures counted per subscriber, the subscriber removed after
# bounce_max_count within bounce_max_age and the owners told; other owner
# mail still forwarded.

load helpers
load request_helpers
load bounce_helpers
bats_require_minimum_version 1.5.0

# setup_file - a runner whose clock a test can move (make fault-runner:
# MJQ_TEST_CLOCK_OFFSET, honoured by a test build only)
setup_file() {
	make -s -C "$TOP" fault-runner FAULT_DIR="$BATS_FILE_TMPDIR" >/dev/null
}

setup() {
	request_setup
	mjq_list example.org mylist gone@dead.test live@users.test
	# bounce_max_count: the threshold's old name, still read
	printf '[list]\nowners = boss@owner.test\nverp = yes\nbounce_max_count = 3\nbounce_max_age = 7d\n' \
		>>"$LISTS/example.org/mylist/config"
	SUBS=$LISTS/example.org/mylist/subscribers
	BOUNCES=$LISTS/example.org/mylist/bounces
	MJ_QUEUERUN=$BATS_FILE_TMPDIR/mj_queuerun
	export MJQ_TEST_CLOCK_OFFSET=0
}

# teardown - the runners a test left in the background, if any
teardown() {
	local p
	for p in ${R1:-} ${R2:-}; do
		kill -9 "$p" 2>/dev/null || true
	done
}

# on_day N - the runner's clock N days ahead
on_day() {
	MJQ_TEST_CLOCK_OFFSET=$(($1 * 86400))
}

# counts ADDR - ADDR's counts in the bounces file, as "time:class" words
counts() {
	awk -v a="$1" '$1 == a { $1 = ""; sub(/^ /, ""); print }' "$BOUNCES"
}

# verp_bounce ADDR - an RFC 3464 report to the VERP address of ADDR
verp_bounce() {
	local verp="mylist-owner+${1/@/=}@example.org"
	owner_mail <<-EOF
	Delivered-To: $verp
	From: MAILER-DAEMON@mx.dead.test
	To: $verp
	Subject: Undelivered Mail Returned to Sender
	MIME-Version: 1.0
	Content-Type: multipart/report; report-type=delivery-status; boundary="B"

	--B
	Content-Type: text/plain

	Your message could not be delivered.
	--B
	Content-Type: message/delivery-status

	Reporting-MTA: dns; mx.dead.test

	Final-Recipient: rfc822; someone-else@dead.test
	Action: failed
	Status: 5.1.1
	--B--
	EOF
}

@test "VERP bounces count once a day; the third day's disables and tells the owners" {
	verp_bounce gone@dead.test
	verp_bounce gone@dead.test
	runq
	[ "$(wc -l <"$BOUNCES")" -eq 1 ]
	[ "$(awk '{print $1, NF - 1}' "$BOUNCES")" = "gone@dead.test 1" ]
	[[ "$(counts gone@dead.test)" =~ ^[0-9]+:r$ ]]
	grep -q 'bounce for <gone@dead.test> on mylist@example.org: recipient, already counted today, score 1.00 of 3.00' "$RUNLOG"
	on_day 1
	verp_bounce gone@dead.test
	runq
	[ "$(awk '{print $1, NF - 1}' "$BOUNCES")" = "gone@dead.test 2" ]
	[ ! -s "$SUBS.disabled" ]
	[ "$(mails boss@owner.test)" -eq 0 ]
	on_day 2
	verp_bounce gone@dead.test
	runq
	# disabled, not removed: still subscribed, with why and when
	[ "$(cat "$SUBS")" = $'gone@dead.test\nlive@users.test' ]
	[[ "$(cat "$SUBS.disabled")" =~ ^gone@dead.test\ [0-9]+\ 0\ 0\ -\ 0\ bounce\ score\ 3.00\ reached\ bounce_score_threshold$ ]]
	[ "$(cat "$BOUNCES")" = "" ]
	[ "$(mails boss@owner.test)" -eq 1 ]
	grep -qx 'Delivery to <gone@dead.test> on mylist@example.org is disabled: mail to it bounced' \
	    "$MAIL"/boss@owner.test/new/*
	grep -qx 'Auto-Submitted: auto-replied' "$MAIL"/boss@owner.test/new/*
	grep -q '<gone@dead.test> disabled on mylist@example.org: bounce score 3.00' "$RUNLOG"
	[ "$(queue_files)" = "" ]
	# who shows it, marked
	printf 'From: <boss@owner.test>\nSubject: commands\n\nwho\n' |
	    "$MJ_ENQUEUE" -C "$CONF" -d example.org -l mylist -q -f boss@owner.test
	runq
	last boss@owner.test | grep -qx '  live@users.test'
	last boss@owner.test | grep -Eqx '  gone@dead.test \(disabled since [0-9]{4}-[0-9]{2}-[0-9]{2}: bounce score 3.00 reached bounce_score_threshold; 0 probe\(s\) sent\)'
	last boss@owner.test | grep -qx '2 subscriber(s), 1 of them disabled after bounces.'
}

@test "with bounce_probes = 0 the threshold removes at once" {
	printf 'bounce_probes = 0\n' >>"$LISTS/example.org/mylist/config"
	for d in 0 1 2; do
		on_day $d
		verp_bounce gone@dead.test
		runq
	done
	[ "$(cat "$SUBS")" = "live@users.test" ]
	grep -qx '<gone@dead.test> has been removed from mylist@example.org: mail to it bounced' \
	    "$MAIL"/boss@owner.test/new/*
}

@test "bounces older than bounce_max_age do not count; counts written before classes are recipient ones" {
	old=$(($(date +%s) - 8 * 86400))
	recent=$(($(date +%s) - 2 * 86400))
	printf 'gone@dead.test %s %s %s\n' "$old" "$old" "$recent" >"$BOUNCES"
	verp_bounce gone@dead.test
	runq
	[ "$(awk '{print NF - 1}' "$BOUNCES")" -eq 2 ]
	[[ "$(counts gone@dead.test)" =~ ^$recent:r\ [0-9]+:r$ ]]
	grep -qx gone@dead.test "$SUBS"
}

@test "a plain RFC 3464 report without VERP: the failed Final-Recipient" {
	owner_mail <<-'EOF'
	From: Mail Delivery System <MAILER-DAEMON@mx.dead.test>
	Subject: failure
	Content-Type: multipart/report; report-type=delivery-status; boundary="B"

	--B
	Content-Type: message/delivery-status

	Reporting-MTA: dns; mx.dead.test

	Final-Recipient: rfc822; live@users.test
	Action: delayed

	Final-Recipient: rfc822;gone@dead.test
	Action: failed
	Status: 5.0.0
	Diagnostic-Code: smtp; 550-5.1.1 The email account that you tried to
	 reach does not exist.
	--B--
	EOF
	runq
	[ "$(awk '{print $1, NF - 1}' "$BOUNCES")" = "gone@dead.test 1" ]
	[ "$(mails boss@owner.test)" -eq 0 ]
}

# exim_bounce ADDR [FIELD] - Exim's report that ADDR failed (FIELD: one
# more header field)
exim_bounce() {
	local host=mx.${1#*@}
	printf 'From: Mail Delivery System <Mailer-Daemon@%s>\n' "$host"
	printf 'Subject: Mail delivery failed: returning message to sender\n'
	[ -z "${2:-}" ] || printf '%s\n' "$2"
	cat <<-EOF

	This message was created automatically by mail delivery software.

	A message that you sent could not be delivered to one or more of its
	recipients. This is a permanent error. The following address(es) failed:

	  $1
	    SMTP error from remote mail server after RCPT TO:<$1>:
	    host $host [192.0.2.7]: 550 5.1.1 <$1>:
	    Recipient address rejected: User unknown in local recipient table
	EOF
}

@test "qmail and Exim style bounces" {
	owner_mail <<-'EOF'
	From: MAILER-DAEMON@mx.dead.test
	Subject: failure notice

	Hi. This is the qmail-send program at mx.dead.test.
	I'm afraid I wasn't able to deliver your message to the following addresses.

	<gone@dead.test>:
	Sorry, no mailbox here by that name. (#5.1.1)
	EOF
	exim_bounce live@users.test | owner_mail
	runq
	[ "$(awk '{print $1, NF - 1}' "$BOUNCES" | sort)" = $'gone@dead.test 1\nlive@users.test 1' ]
}

@test "a delay warning and a bounce for a non-subscriber are dropped, not forwarded" {
	owner_mail <<-'EOF'
	From: MAILER-DAEMON@mx.dead.test
	Content-Type: multipart/report; report-type=delivery-status; boundary="B"

	--B
	Content-Type: message/delivery-status

	Final-Recipient: rfc822; gone@dead.test
	Action: delayed
	--B--
	EOF
	verp_bounce stranger@else.test
	runq
	[ ! -s "$BOUNCES" ]
	[ "$(mails boss@owner.test)" -eq 0 ]
	grep -q 'delivery delay warning, not counted' "$RUNLOG"
	grep -q 'bounce for <stranger@else.test> on mylist@example.org: recipient, not a subscriber of mylist' "$RUNLOG"
	[ "$(queue_files)" = "" ]
}

@test "owner mail that is not a bounce is forwarded to the owners" {
	printf 'From: Ann <ann@users.test>\nSubject: question\n\nhello owner\n' |
	    "$MJ_ENQUEUE" -C "$CONF" -d example.org -l mylist -o -f ann@users.test
	# A bounce that names nobody goes to a human as well.
	printf 'From: MAILER-DAEMON@mx.test\nSubject: failure\n\nsomething went wrong\n' |
	    owner_mail
	runq
	[ "$(mails boss@owner.test)" -eq 2 ]
	grep -qx 'hello owner' "$MAIL"/boss@owner.test/new/*
	[ ! -e "$BOUNCES" ]
}

@test "the classifier's table: each real server's reply in its class" {
	local data=$TOP/t/data/bounce-classes
	run sh -c "grep -v '^#' '$data' | cut -f3 | '$TOP/t/tools/mj_bounceclass'"
	[ "$status" -eq 0 ]
	got=$(paste -d '\t' <(printf '%s\n' "$output") <(grep -v '^#' "$data") |
	    awk -F'\t' '$1 != $2 { print "got " $1 ", want " $2 ": " $4 }')
	[ "$got" = "" ]
	# every class has its rows
	for c in recipient mailbox policy transient unknown; do
		[ "$(grep -c "^$c	" "$data")" -ge 2 ]
	done
	# a DSN's Status field decides before the text
	run "$TOP/t/tools/mj_bounceclass" -s 5.7.1 <<<'550 user unknown'
	[ "$output" = policy ]
}

@test "the classifier's rules (lists/bounce_rules.c): each row's example is decided by that row" {
	run "$TOP/t/tools/mj_bounceclass" -r
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$output" = "" ]
}

@test "policy, transient and unknown failures in reports are not counted" {
	dsn_bounce live@users.test 5.7.1 '554 5.7.1 Service unavailable; Client host [192.0.2.1] blocked using zen.spamhaus.org'
	dsn_bounce live@users.test 5.7.26 '550-5.7.26 This mail has been blocked because the sender is unauthenticated.'
	dsn_bounce live@users.test 5.0.0 '550 5.0.0 Sorry, we are blocking you: too many complaints'
	dsn_bounce gone@dead.test 5.0.0 '554 5.0.0 Service unavailable'
	runq
	[ ! -s "$BOUNCES" ]
	[ "$(grep -c 'bounce for <live@users.test> on mylist@example.org: policy, not counted' "$RUNLOG")" -eq 3 ]
	grep -q 'bounce for <gone@dead.test> on mylist@example.org: unknown, not counted' "$RUNLOG"
	[ "$(mails boss@owner.test)" -eq 0 ]
	# a full mailbox is counted
	dsn_bounce live@users.test 5.2.2 '552 5.2.2 <live@users.test>: mailbox full'
	runq
	[ "$(awk '{print $1, NF - 1}' "$BOUNCES")" = "live@users.test 1" ]
}

@test "a report naming more addresses than are kept is forwarded to the owners" {
	local i blocks=
	for i in $(seq 1 25); do
		blocks+=$'\n'"Final-Recipient: rfc822; u$i@dead.test"$'\n'"Action: failed"$'\n'"Status: 5.1.1"$'\n'
	done
	owner_mail <<-EOF
	From: MAILER-DAEMON@mx.dead.test
	Content-Type: multipart/report; report-type=delivery-status; boundary="B"

	--B
	Content-Type: message/delivery-status

	Reporting-MTA: dns; mx.dead.test
	$blocks
	--B--
	EOF
	runq
	grep -q 'bounce names 5 addresses more than the 20 counted; forwarded to the owners' "$RUNLOG"
	[ "$(mails boss@owner.test)" -eq 1 ]
	[ "$(queue_files)" = "" ]
}

@test "a full mailbox (552 5.2.2) for 3 days weighs half and is not removed; a real unknown user that day outweighs it" {
	local d
	for d in 0 1 2; do
		on_day $d
		dsn_bounce live@users.test 5.2.2 '552-5.2.2 The email account that you tried to reach is over quota.'
		runq
	done
	grep -qx live@users.test "$SUBS"
	[[ "$(counts live@users.test)" =~ ^[0-9]+:m\ [0-9]+:m\ [0-9]+:m$ ]]
	grep -q 'bounce for <live@users.test> on mylist@example.org: mailbox, counted, score 1.50 of 3.00' "$RUNLOG"
	[ "$(mails boss@owner.test)" -eq 0 ]
	# the same day, a stronger class replaces the day's count
	dsn_bounce live@users.test 5.1.1 '550 5.1.1 <live@users.test>: Recipient address rejected: User unknown'
	runq
	[[ "$(counts live@users.test)" =~ ^[0-9]+:m\ [0-9]+:m\ [0-9]+:r$ ]]
	grep -q 'recipient, counted, score 2.00 of 3.00' "$RUNLOG"
}

@test "forged bounces, from anyone, add at most one count a day" {
	local i
	for i in $(seq 1 30); do
		printf 'From: MAILER-DAEMON@forger.test\nSubject: failure\nContent-Type: multipart/report; report-type=delivery-status; boundary="B"\n\n--B\nContent-Type: message/delivery-status\n\nFinal-Recipient: rfc822; live@users.test\nAction: failed\nStatus: 5.1.1\n--B--\n' |
		    "$MJ_ENQUEUE" -C "$CONF" -d example.org -l mylist -o -f forger@forger.test
	done
	runq
	grep -qx live@users.test "$SUBS"
	[ "$(awk '{print $1, NF - 1}' "$BOUNCES")" = "live@users.test 1" ]
	[ "$(grep -c 'live@users.test> on mylist@example.org: recipient, already counted today' "$RUNLOG")" -eq 29 ]
	[ "$(mails boss@owner.test)" -eq 0 ]
	[ "$(queue_files)" = "" ]
}

@test "bounce weights and threshold are list keys" {
	printf 'bounce_weight_mailbox = 0\nbounce_score_threshold = 1.5\n' >>"$LISTS/example.org/mylist/config"
	dsn_bounce live@users.test 5.2.2 '552 5.2.2 mailbox full'
	runq
	[ ! -s "$BOUNCES" ]
	grep -q 'bounce for <live@users.test> on mylist@example.org: mailbox, not counted' "$RUNLOG"
	dsn_bounce gone@dead.test 5.1.1 '550 5.1.1 user unknown'
	runq
	grep -q 'score 1.00 of 1.50' "$RUNLOG"
	printf 'bounce_score_threshold = 1.555\n' >>"$LISTS/example.org/mylist/config"
	dsn_bounce gone@dead.test 5.1.1 '550 5.1.1 user unknown'
	runq
	grep -q 'bounce_score_threshold.*a score from 0 to 10000, at most two decimals: 1.555' "$RUNLOG"
}

@test "the clock offset moves only a test build's clock" {
	MJ_QUEUERUN=$TOP/queuerun/mj_queuerun
	verp_bounce gone@dead.test
	runq
	on_day 1
	verp_bounce gone@dead.test
	runq
	[ "$(awk '{print $1, NF - 1}' "$BOUNCES")" = "gone@dead.test 1" ]
	grep -q 'recipient, already counted today, score 1.00' "$RUNLOG"
}

# post - a post to mylist from ann@users.test
post() {
	printf 'From: ann@users.test\nSubject: %s\n\nhello\n' "$1" |
	    "$MJ_ENQUEUE" -C "$CONF" -d example.org -l mylist -r -f ann@users.test
}

# disable_gone - three days of bounces for gone@dead.test, days 0-2
disable_gone() {
	printf 'bounce_probes = 2\nbounce_probe_interval = 1d\n' >>"$LISTS/example.org/mylist/config"
	for d in 0 1 2; do
		on_day $d
		verp_bounce gone@dead.test
		runq
	done
	[ -s "$SUBS.disabled" ]
}

# probe_bounce TOKEN [RCPT [ACTION STATUS]] - an RFC 3464 report to the
# VERP address of the probe with TOKEN: that mail to RCPT (gone@dead.test)
# failed (ACTION failed, STATUS 5.1.1, with a Diagnostic-Code) or, say,
# was delayed
probe_bounce() {
	local verp="mylist-owner+probe-$1@example.org" rcpt=${2:-gone@dead.test}
	local action=${3:-failed} status=${4:-5.1.1} diag=
	[ "$action" != failed ] ||
	    diag="Diagnostic-Code: smtp; 550 5.1.1 <$rcpt>: User unknown"
	owner_mail <<-EOF
	Delivered-To: $verp
	From: MAILER-DAEMON@mx.dead.test
	To: $verp
	Subject: Undelivered Mail Returned to Sender
	Content-Type: multipart/report; report-type=delivery-status; boundary="B"

	--B
	Content-Type: message/delivery-status

	Final-Recipient: rfc822; $rcpt
	Action: $action
	Status: $status
	$diag
	--B--
	EOF
}

@test "a disabled address gets no posts but probes; removed after the last probe bounced" {
	disable_gone
	post one
	runq
	[ "$(mails live@users.test)" -eq 1 ]
	# probe 1, not the post
	[ "$(mails gone@dead.test)" -eq 1 ]
	grep -qx 'Subject: Delivery of mylist@example.org to you is disabled' "$MAIL"/gone@dead.test/new/*
	read -r a since probes ptime token failed why <"$SUBS.disabled"
	[ "$probes" = 1 ] && [ "$failed" = 0 ] && [[ "$token" =~ ^[0-9a-f]{16}$ ]]
	grep -q "probe 1 to <gone@dead.test> of mylist@example.org, token $token" "$RUNLOG"
	probe_bounce "$token"
	runq
	read -r a since probes ptime token1 failed why <"$SUBS.disabled"
	[ "$probes" = 1 ] && [ "$failed" = 1 ]
	grep -qx gone@dead.test "$SUBS"
	# the interval passes: probe 2 with a token of its own
	on_day 3
	post two
	runq
	[ "$(mails live@users.test)" -eq 2 ]
	[ "$(mails gone@dead.test)" -eq 2 ]
	read -r a since probes ptime token2 failed why <"$SUBS.disabled"
	[ "$probes" = 2 ] && [ "$token2" != "$token" ]
	# a stale token changes nothing
	probe_bounce "$token"
	runq
	grep -qx gone@dead.test "$SUBS"
	probe_bounce "$token2"
	runq
	[ "$(cat "$SUBS")" = "live@users.test" ]
	[ ! -s "$SUBS.disabled" ]
	grep -qx '<gone@dead.test> has been removed from mylist@example.org: mail to it bounced' \
	    "$MAIL"/boss@owner.test/new/*
	grep -q 'unsubscribed from mylist@example.org: and each of its 2 probes bounced' "$RUNLOG"
	[ "$(queue_files)" = "" ]
}

@test "a probe that is delivered (no bounce within the interval) enables the address again" {
	disable_gone
	post one
	runq
	[ "$(mails gone@dead.test)" -eq 1 ]
	on_day 3
	post two
	runq
	[ ! -s "$SUBS.disabled" ]
	grep -qx gone@dead.test "$SUBS"
	# enabled before the snapshot: the post reaches it
	[ "$(mails gone@dead.test)" -eq 2 ]
	grep -q '<gone@dead.test> enabled again on mylist@example.org: probe 1 did not bounce' "$RUNLOG"
	grep -qlx 'Delivery to <gone@dead.test> on mylist@example.org is enabled again: probe 1' \
	    "$MAIL"/boss@owner.test/new/*
}

# probe_auto TOKEN - an answer from the probe's mailbox, as the MTA alias
# delivers it to the probe's address: the null sender, the headers on stdin
# (a blank line and a body follow them)
probe_auto() {
	local to="mylist-owner+probe-$1@example.org"
	{
		printf 'Delivered-To: %s\nTo: <%s>\n' "$to" "$to"
		cat
	} | owner_mail
}

# one_probe_out - gone@dead.test disabled with one probe allowed, the probe
# sent; its token in $token
one_probe_out() {
	disable_gone
	printf 'bounce_probes = 1\n' >>"$LISTS/example.org/mylist/config"
	post one
	runq
	read -r a since probes ptime token failed why <"$SUBS.disabled"
	[ "$probes" = 1 ] && [ "$failed" = 0 ]
}

@test "auto-replies, delay warnings and unreadable reports to a probe do not fail it" {
	one_probe_out
	# RFC 3834
	probe_auto "$token" <<-'EOF'
	From: <gone@dead.test>
	Subject: Auto: Delivery of mylist@example.org to you is disabled
	Auto-Submitted: auto-replied (vacation)

	I am away until Monday.
	EOF
	# the usual vacation markers, without Auto-Submitted
	probe_auto "$token" <<-'EOF'
	From: Gone <gone@dead.test>
	Subject: Away
	X-Autoreply: yes

	<gone@dead.test>:
	I read mail again on Monday.
	EOF
	probe_auto "$token" <<-'EOF'
	From: gone@dead.test
	Subject: Re: Delivery of mylist@example.org to you is disabled
	Precedence: auto_reply

	Away.
	EOF
	probe_auto "$token" <<-'EOF'
	From: gone@dead.test
	Subject: Automatic reply: Delivery of mylist@example.org to you is disabled
	X-Auto-Response-Suppress: All

	Out of the office.
	EOF
	probe_auto "$token" <<-'EOF'
	From: gone@dead.test
	Subject: Out of Office
	X-Autorespond: Out of Office

	Out of the office.
	EOF
	# a delay warning for it
	probe_bounce "$token" gone@dead.test delayed 4.4.1
	# to the owner address itself: never counted
	owner_mail <<-'EOF'
	From: live@users.test
	Subject: Out of office
	Auto-Submitted: auto-replied

	<live@users.test>:
	Away, my mailbox is unknown to me until Monday (#5.1.1).
	EOF
	# a report that says nothing about it
	probe_auto "$token" <<-'EOF'
	From: MAILER-DAEMON@mx.dead.test
	Subject: failure

	something went wrong
	EOF
	runq
	# not removed, the probe not failed
	grep -qx gone@dead.test "$SUBS"
	read -r a since probes ptime token1 failed why <"$SUBS.disabled"
	[ "$probes" = 1 ] && [ "$failed" = 0 ] && [ "$token1" = "$token" ]
	[ "$(grep -c "an auto-reply to probe 1 of <gone@dead.test> on mylist@example.org, not a failure" "$RUNLOG")" -eq 5 ]
	[ -z "$(counts live@users.test)" ]
	grep -q 'an auto-reply, not a bounce: not counted' "$RUNLOG"
	# the unreadable report goes to the owners; auto-replies do not
	[ "$(grep -l 'something went wrong' "$MAIL"/boss@owner.test/new/* | wc -l)" -eq 1 ]
	run -1 grep -l 'Out of the office' "$MAIL"/boss@owner.test/new/*
	[ "$(queue_files)" = "" ]
	# the probe was delivered: enabled after the interval
	on_day 3
	post two
	runq
	[ ! -s "$SUBS.disabled" ]
	grep -qx gone@dead.test "$SUBS"
	grep -q '<gone@dead.test> enabled again on mylist@example.org: probe 1 did not bounce' "$RUNLOG"
}

@test "a probe fails on a failure report for its address, in a DSN or a recognised text, even one marked auto-replied" {
	one_probe_out
	# a DSN about another address (the report of some other copy) is none
	probe_bounce "$token" other@dead.test
	runq
	grep -qx gone@dead.test "$SUBS"
	read -r a since probes ptime token1 failed why <"$SUBS.disabled"
	[ "$failed" = 0 ]
	grep -q "a report on probe 1 of <gone@dead.test> on mylist@example.org names no failure of it, not counted" "$RUNLOG"
	# Exim marks its bounces Auto-Submitted: auto-replied
	exim_bounce gone@dead.test 'Auto-Submitted: auto-replied' |
	    probe_auto "$token"
	runq
	[ "$(cat "$SUBS")" = "live@users.test" ]
	[ ! -s "$SUBS.disabled" ]
	grep -q 'unsubscribed from mylist@example.org: and each of its 1 probes bounced' "$RUNLOG"
}

@test "a probe fails on a DSN with Action: failed for its address" {
	one_probe_out
	probe_bounce "$token"
	runq
	[ "$(cat "$SUBS")" = "live@users.test" ]
	grep -q 'unsubscribed from mylist@example.org: and each of its 1 probes bounced' "$RUNLOG"
}

# lock_waiter PID - the runner PID has a lock file of mylist open (it
# holds it or waits for it)
lock_waiter() {
	local f
	for f in /proc/"$1"/fd/*; do
		case $(readlink "$f" 2>/dev/null) in
		"$LISTS"/example.org/mylist/subscribers*.lock) return 0 ;;
		esac
	done
	return 1
}

@test "two runners at once send one probe, and the token kept is the one it carries" {
	disable_gone
	# the administrator holds the subscribers lock (fd 8 of this shell)
	# while each runner takes up a post of its own: each gets to the
	# probes and waits for a lock of the list
	exec 8>>"$SUBS.lock"
	flock -n 8
	post one
	"$MJ_QUEUERUN" -C "$CONF" -1 2>>"$RUNLOG" 3>&- 8>&- &
	R1=$!
	wait_for 60 lock_waiter "$R1"
	post two
	"$MJ_QUEUERUN" -C "$CONF" -1 2>>"$RUNLOG" 3>&- 8>&- &
	R2=$!
	wait_for 60 lock_waiter "$R2"
	exec 8>&-
	wait "$R1"
	wait "$R2"
	runq
	[ "$(mails live@users.test)" -eq 2 ]
	[ "$(mails gone@dead.test)" -eq 1 ]
	read -r a since probes ptime token failed why <"$SUBS.disabled"
	[ "$probes" = 1 ]
	grep -qx "Reply-To: <mylist-owner+probe-$token@example.org>" "$MAIL"/gone@dead.test/new/*
	[ "$(grep -c 'probe 1 to <gone@dead.test> of mylist@example.org' "$RUNLOG")" -eq 1 ]
}

@test "late bounces that reach the threshold again leave the probe out as it is" {
	disable_gone
	post one
	runq
	read -r a since probes ptime token failed why <"$SUBS.disabled"
	[ "$probes" = 1 ]
	# reports of older posts keep coming, three days of them
	for d in 3 4 5; do
		on_day $d
		verp_bounce gone@dead.test
		runq
	done
	read -r a since2 probes2 ptime2 token2 failed2 why2 <"$SUBS.disabled"
	[ "$since2 $probes2 $ptime2 $token2" = "$since $probes $ptime $token" ]
	grep -q '<gone@dead.test> is already disabled on mylist@example.org' "$RUNLOG"
	# the subscriber's answer to the probe it got still counts
	probe_reply "$token" gone@dead.test
	runq
	[ ! -s "$SUBS.disabled" ]
}

# arf FEEDBACK-TYPE RCPT-TO-LINE RETURN-PATH - an RFC 5965 report to
# mylist-owner from a provider's feedback loop
arf() {
	printf 'Return-Path: <%s>\nFrom: <ann@users.test>\nTo: <mylist@example.org>\nSubject: a post\n\nhello\n' \
	    "$3" >"$BATS_TEST_TMPDIR/copy"
	arf_report "$1" "$2" "$BATS_TEST_TMPDIR/copy"
}

@test "an ARF abuse report unsubscribes the reporter; the owners get one summary a day later; a malformed one is forwarded" {
	arf abuse 'Original-Rcpt-To: <live@users.test>' 'mylist-owner@example.org'
	runq
	[ "$(cat "$SUBS")" = "gone@dead.test" ]
	[[ "$(cat "$LISTS/example.org/mylist/complaints")" =~ ^[0-9]+\ live@users.test\ unsubscribed\ \(report\ [^[:space:]]+\)$ ]]
	grep -q "complaint (abuse report) from <live@users.test> about mylist@example.org, proven by the report's Original-Rcpt-To: unsubscribed" "$RUNLOG"
	[ "$(mails boss@owner.test)" -eq 0 ]
	# redacted Original-Rcpt-To: the returned post's VERP Return-Path tells
	echo live@users.test >>"$SUBS"
	arf abuse 'Original-Mail-From: <x@y.test>' 'mylist-owner+live=users.test@example.org'
	runq
	[ "$(cat "$SUBS")" = "gone@dead.test" ]
	# naming nobody, or not abuse: forwarded to the owners
	arf abuse 'Original-Mail-From: <x@y.test>' 'mylist-owner@example.org'
	arf not-spam 'Original-Rcpt-To: <gone@dead.test>' 'mylist-owner@example.org'
	runq
	[ "$(mails boss@owner.test)" -eq 2 ]
	grep -q 'feedback report (abuse) proving nobody: counted, removed nobody, forwarded to the owners' "$RUNLOG"
	grep -q 'feedback report (not-spam) naming gone@dead.test: forwarded to the owners' "$RUNLOG"
	grep -qx gone@dead.test "$SUBS"
	# a post the same day: no summary yet; a day later: one, and the file emptied
	post same-day
	runq
	[ "$(mails boss@owner.test)" -eq 2 ]
	on_day 1
	post next-day
	runq
	[ "$(mails boss@owner.test)" -eq 3 ]
	f=$(grep -l '^Complaints about mylist@example.org' "$MAIL"/boss@owner.test/new/*)
	[ "$(grep -c ' live@users.test unsubscribed (report [^ ]*)$' "$f")" -eq 2 ]
	[ ! -s "$LISTS/example.org/mylist/complaints" ]
}

@test "with complaint_unsubscribe = no the reporter stays, and the complaint is still summarized" {
	printf 'complaint_unsubscribe = no\n' >>"$LISTS/example.org/mylist/config"
	arf abuse 'Original-Rcpt-To: <live@users.test>' 'mylist-owner@example.org'
	runq
	grep -qx live@users.test "$SUBS"
	grep -q ' live@users.test kept (complaint_unsubscribe = no) (report [^ )]*)$' "$LISTS/example.org/mylist/complaints"
}

@test "the subscriber enables itself again with the mail command enable" {
	disable_gone
	printf 'From: <gone@dead.test>\nSubject: commands\n\nenable mylist\n' |
	    "$MJ_ENQUEUE" -C "$CONF" -d example.org -l mylist -q -f gone@dead.test
	printf 'From: <live@users.test>\nSubject: commands\n\nenable mylist\n' |
	    "$MJ_ENQUEUE" -C "$CONF" -d example.org -l mylist -q -f live@users.test
	runq
	[ ! -s "$SUBS.disabled" ]
	last gone@dead.test | grep -qx 'Delivery of mylist to <gone@dead.test> is enabled again.'
	last live@users.test | grep -qx 'Delivery of mylist to <live@users.test> is not disabled.'
	grep -q '<gone@dead.test> enabled again on mylist@example.org by its request' "$RUNLOG"
	post after
	runq
	grep -lqx 'Subject: after' "$MAIL"/gone@dead.test/new/*
}

@test "status shows each list's failures judged per class, its complaints, disabled addresses and incidents; mj_queueserv disabled lists them" {
	mjq_list example.org quiet q@users.test
	disable_gone
	# a policy failure in a report: judged, not counted
	owner_mail <<-'EOF2'
	From: Mail Delivery System <MAILER-DAEMON@mx.users.test>
	Content-Type: multipart/report; report-type=delivery-status; boundary="B"

	--B
	Content-Type: message/delivery-status

	Final-Recipient: rfc822; live@users.test
	Action: failed
	Status: 5.7.1
	Diagnostic-Code: smtp; 554 5.7.1 Service unavailable; blocked using zen.spamhaus.org
	--B--
	EOF2
	arf abuse 'Original-Rcpt-To: <nobody@users.test>' 'mylist-owner@example.org'
	runq
	[ "$(cat "$SPOOL/state/bounce-counts")" = "mylist@example.org 3 0 1 0 0 1" ]
	run -69 --separate-stderr "$MJ_QUEUESERV" -C "$CONF" status
	echo "$output"
	[[ "$output" == *$'\nlist: mylist@example.org judged recipient 3 mailbox 0 policy 1 transient 0 unknown 0, complaints 1, disabled 1, incidents 0\ndisabled: mylist@example.org gone@dead.test since='*' probes=0 last_probe=- probe=none why=bounce score 3.00 reached bounce_score_threshold' ]]
	# a list with nothing to show has no line
	[[ "$output" != *'quiet@example.org'* ]]
	run -69 --separate-stderr "$MJ_QUEUESERV" -C "$CONF" status -j
	echo "$output" | python3 -m json.tool >/dev/null
	[[ "$output" == *',"incidents":[],"lists":[{"list":"mylist@example.org","judged":{"recipient":3,"mailbox":0,"policy":1,"transient":0,"unknown":0},"complaints":1,"disabled":1,"disabled_addresses":[{"address":"gone@dead.test","since":'*',"probes":0,"last_probe":0,"probe":"none","why":"bounce score 3.00 reached bounce_score_threshold"}],"incidents":0},{"list":"quiet@example.org","judged":{"recipient":0,"mailbox":0,"policy":0,"transient":0,"unknown":0},"complaints":0,"disabled":0,"disabled_addresses":[],"incidents":0}]}' ]]
	run -69 --separate-stderr "$MJ_QUEUESERV" -C "$CONF" status -p
	[[ "$output" == *$'\nmjq_bounce_failures_total{list="mylist@example.org",class="recipient"} 3\nmjq_bounce_failures_total{list="mylist@example.org",class="mailbox"} 0\nmjq_bounce_failures_total{list="mylist@example.org",class="policy"} 1\n'* ]]
	[[ "$output" == *$'\n# TYPE mjq_complaints_total counter\nmjq_complaints_total{list="mylist@example.org"} 1\nmjq_complaints_total{list="quiet@example.org"} 0\n'* ]]
	[[ "$output" == *$'\nmjq_disabled_subscribers{list="mylist@example.org"} 1\n'* ]]
	[[ "$output" == *$'\nmjq_list_incidents{list="mylist@example.org"} 0\n'* ]]
	# Prometheus' own parser reads it (as t/760 checks the rest)
	"$MJ_QUEUESERV" -C "$CONF" status -p | /usr/bin/python3 -c '
import sys
from prometheus_client.parser import text_string_to_metric_families
n = {f.name: f.type for f in text_string_to_metric_families(sys.stdin.read())}
assert n["mjq_bounce_failures"] == "counter" and n["mjq_complaints"] == "counter", n
assert n["mjq_disabled_subscribers"] == "gauge", n
'

	# the probe goes out with the next post: its state shows
	post one
	runq
	run -0 "$MJ_QUEUESERV" -C "$CONF" disabled
	echo "$output"
	[ "${#lines[@]}" -eq 2 ]
	[[ "${lines[0]}" =~ ^mylist@example.org\ gone@dead.test\ since=[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:]{8}Z\ probes=1/2\ last_probe=[0-9-]{10}T[0-9:]{8}Z\ probe=out\ why=bounce\ score\ 3.00\ reached\ bounce_score_threshold$ ]]
	[ "${lines[1]}" = "1 disabled address" ]
	read -r a since probes ptime token failed why <"$SUBS.disabled"
	probe_bounce "$token"
	runq
	run -0 "$MJ_QUEUESERV" -C "$CONF" disabled mylist@example.org
	[[ "${lines[0]}" == *' probes=1/2 '*' probe=bounced why='* ]]
	run -0 "$MJ_QUEUESERV" -C "$CONF" disabled quiet@example.org
	[ "$output" = "0 disabled addresses" ]
	run -67 --separate-stderr "$MJ_QUEUESERV" -C "$CONF" disabled nosuch@example.org
	[ "$stderr" = "mj_queueserv: no list nosuch@example.org" ]
	run -64 --separate-stderr "$MJ_QUEUESERV" -C "$CONF" disabled a b
}

# probe_reply TOKEN FROM - a human's reply to the probe with TOKEN, as the
# MTA delivers it to the probe's address (the probe's Reply-To)
probe_reply() {
	local to="mylist-owner+probe-$1@example.org"
	"$MJ_ENQUEUE" -C "$CONF" -d example.org -l mylist -o -f "$2" <<-EOF
	Delivered-To: $to
	From: <$2>
	To: <$to>
	Subject: Re: Delivery of mylist@example.org to you is disabled

	It works again, thanks.
	EOF
}

@test "a subscriber answers a probe: a reply to it, or enable with its token, enables it; a wrong token changes nothing" {
	disable_gone
	post one
	runq
	read -r a since probes ptime token failed why <"$SUBS.disabled"
	f=$(ls "$MAIL"/gone@dead.test/new/*)
	grep -qx "Reply-To: <mylist-owner+probe-$token@example.org>" "$f"
	grep -qx "    enable mylist $token" "$f"
	grep -qx 'to <mylist-request@example.org>.' "$f"
	# forged answers: a wrong token, "-" (no probe yet), another list's
	# form; none enables, and they go to the owners like owner mail
	probe_reply 0123456789abcdef gone@dead.test
	probe_reply - gone@dead.test
	printf 'From: <x@evil.test>\nSubject: commands\n\nenable mylist 0123456789abcdef\n' |
	    "$MJ_ENQUEUE" -C "$CONF" -d example.org -l mylist -q -f x@evil.test
	runq
	[ "$(awk '{print $1}' "$SUBS.disabled")" = gone@dead.test ]
	last x@evil.test | grep -qx 'The token 0123456789abcdef is not that of a probe of mylist out now:'
	grep -q 'a reply for mylist@example.org with token 0123456789abcdef: no probe out has it, nothing enabled' "$RUNLOG"
	[ "$(grep -lc 'It works again' "$MAIL"/boss@owner.test/new/* | wc -l)" -eq 2 ]
	# the right token, in a reply from another address: enabled, told
	probe_reply "$token" gone.new@other.test
	runq
	[ ! -s "$SUBS.disabled" ]
	grep -qx gone@dead.test "$SUBS"
	grep -q "<gone@dead.test> enabled again on mylist@example.org: a reply to probe 1" "$RUNLOG"
	grep -lqx 'Delivery to <gone@dead.test> on mylist@example.org is enabled again: it answered' \
	    "$MAIL"/boss@owner.test/new/*
	# the reply itself is not forwarded
	[ "$(grep -l 'It works again' "$MAIL"/boss@owner.test/new/* | wc -l)" -eq 2 ]
	post two
	runq
	grep -lqx 'Subject: two' "$MAIL"/gone@dead.test/new/*
	# disabled again: the mail command with the probe's token, from
	# anyone, enables the address the probe went to
	printf 'bounce_probe_interval = 1d\n' >>"$LISTS/example.org/mylist/config"
	for d in 3 4 5; do
		on_day $d
		verp_bounce gone@dead.test
		runq
	done
	[ -s "$SUBS.disabled" ]
	post three
	runq
	read -r a since probes ptime token2 failed why <"$SUBS.disabled"
	[ "$token2" != "$token" ] && [ "$probes" = 1 ]
	# the old token is spent
	printf 'From: <helper@users.test>\nSubject: commands\n\nenable mylist %s\n' "$token" |
	    "$MJ_ENQUEUE" -C "$CONF" -d example.org -l mylist -q -f helper@users.test
	runq
	[ -s "$SUBS.disabled" ]
	printf 'From: <helper@users.test>\nSubject: commands\n\nenable mylist %s\n' "${token2^^}" |
	    "$MJ_ENQUEUE" -C "$CONF" -d example.org -l mylist -q -f helper@users.test
	runq
	[ ! -s "$SUBS.disabled" ]
	last helper@users.test | grep -qx 'Delivery of mylist to <gone@dead.test> is enabled again.'
	grep -q "<gone@dead.test> enabled again on mylist@example.org: the enable command to probe 1" "$RUNLOG"
}
