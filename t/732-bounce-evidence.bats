#!/usr/bin/env bats
# Which part of a bounce is evidence (issue 34 items 4 and 8): the report
# names the failed address and its cause; the returned message, below
# an MTA's copy separator or in a message/rfc822 or text/rfc822-headers
# part, is never read for either.  And the most specific evidence wins:
# an enhanced status code in the reply over a generic Status.

load helpers
load request_helpers
load bounce_helpers
bats_require_minimum_version 1.5.0

setup() {
	request_setup
	mjq_list example.org mylist alice@alice.test bob@bob.test
	printf '[list]\nowners = boss@owner.test\n' \
		>>"$LISTS/example.org/mylist/config"
	BOUNCES=$LISTS/example.org/mylist/bounces
}

# counted - the addresses with counts in the bounces file, sorted
counted() {
	[ -e "$BOUNCES" ] || return 0
	awk 'NF > 1 { print $1 }' "$BOUNCES" | sort
}

# QUOTED - a post that quotes a bounce about bob, as a reader asking
# "what does this mean?" writes it
QUOTED='Subject: what does this mean?

Bob, your address bounced:

<bob@bob.test>:
Sorry, no mailbox here by that name. (#5.1.1)

  bob@bob.test
    SMTP error from remote mail server after RCPT TO:<bob@bob.test>:
    550 5.1.1 <bob@bob.test>: Recipient address rejected: User unknown

Final-Recipient: rfc822; bob@bob.test
Action: failed
Status: 5.1.1'

@test "qmail: the copy below the separator is not read; alice counted, bob not" {
	owner_mail <<-EOF
	From: MAILER-DAEMON@mx.alice.test
	To: mylist-owner@example.org
	Subject: failure notice

	Hi. This is the qmail-send program at mx.alice.test.
	I'm afraid I wasn't able to deliver your message to the following addresses.
	This is a permanent error; I've given up. Sorry it didn't work out.

	<alice@alice.test>:
	Sorry, no mailbox here by that name. (#5.1.1)

	--- Below this line is a copy of the message.

	Return-Path: <mylist-owner@example.org>
	From: carol@carol.test
	To: mylist@example.org
	$QUOTED
	EOF
	runq
	[ "$(counted)" = alice@alice.test ]
	run -1 grep -F 'bob@bob.test>' "$RUNLOG"
}

@test "Exim: the copy below its separator is not read; alice counted, bob not" {
	owner_mail <<-EOF
	From: Mail Delivery System <Mailer-Daemon@mx.alice.test>
	To: mylist-owner@example.org
	Subject: Mail delivery failed: returning message to sender
	X-Failed-Recipients: alice@alice.test

	This message was created automatically by mail delivery software.

	A message that you sent could not be delivered to one or more of its
	recipients. This is a permanent error. The following address(es) failed:

	  alice@alice.test
	    SMTP error from remote mail server after RCPT TO:<alice@alice.test>:
	    host mx.alice.test [192.0.2.7]: 550 5.1.1 No such user

	------ This is a copy of the message, including all the headers. ------

	Return-path: <mylist-owner@example.org>
	From: carol@carol.test
	To: mylist@example.org
	$QUOTED
	EOF
	runq
	[ "$(counted)" = alice@alice.test ]
	run -1 grep -F 'bob@bob.test>' "$RUNLOG"
}

# postfix_head - the header of a Postfix report without a delivery-status
# part (multipart/mixed, boundary P), for a body on stdin after it
postfix_head() {
	cat <<-'EOF'
	From: MAILER-DAEMON@mx.alice.test (Mail Delivery System)
	To: mylist-owner@example.org
	Subject: Undelivered Mail Returned to Sender
	MIME-Version: 1.0
	Content-Type: multipart/mixed; boundary="P"
	EOF
}

@test "Postfix without a delivery-status part: the message/rfc822 copy is not read" {
	{ postfix_head; cat; } <<-EOF | owner_mail

	--P
	Content-Description: Notification
	Content-Type: text/plain

	This is the mail system at host mx.alice.test.

	I'm sorry to have to inform you that your message could not
	be delivered to one or more recipients. It's attached below.

	                   The mail system

	<alice@alice.test>: host mx.alice.test[192.0.2.7] said: 550 5.1.1
	    <alice@alice.test>: Recipient address rejected: User unknown (in reply
	    to RCPT TO command)

	--P
	Content-Description: Undelivered Message
	Content-Type: message/rfc822

	Return-Path: <mylist-owner@example.org>
	From: carol@carol.test
	To: mylist@example.org
	Content-Type: text/plain
	$QUOTED

	--P--
	EOF
	runq
	[ "$(counted)" = alice@alice.test ]
	run -1 grep -F 'bob@bob.test>' "$RUNLOG"
}

@test "Postfix with returned headers only: text/rfc822-headers is not read, and a report naming nobody else counts nobody else" {
	{ postfix_head; cat; } <<-EOF | owner_mail

	--P
	Content-Type: text/plain

	This is the mail system at host mx.alice.test.

	<alice@alice.test>: host mx.alice.test[192.0.2.7] said: 554 5.7.1
	    Service unavailable; Client host [192.0.2.1] blocked using
	    zen.spamhaus.org (in reply to RCPT TO command)

	--P
	Content-Type: text/rfc822-headers

	Return-Path: <mylist-owner@example.org>
	From: <bob@bob.test>
	To: <bob@bob.test>:
	Subject: failed: <bob@bob.test>: user unknown

	--P--
	EOF
	runq
	[ "$(counted)" = "" ]
	grep -q 'bounce for <alice@alice.test> on mylist@example.org: policy, not counted' "$RUNLOG"
	run -1 grep -F 'bob@bob.test>' "$RUNLOG"
}

@test "a 5.7.1 in Diagnostic-Code under a generic Status 5.0.0 is policy, not a dead address" {
	dsn_bounce alice@alice.test 5.0.0 '554 5.7.1 <alice@alice.test>: Recipient address rejected: Access denied'
	runq
	grep -q 'bounce for <alice@alice.test> on mylist@example.org: policy, not counted' "$RUNLOG"
	[ "$(counted)" = "" ]
	# and the specific code decides the other way too
	dsn_bounce alice@alice.test 5.0.0 '550 5.1.1 <alice@alice.test>: mailbox unavailable'
	runq
	grep -q 'bounce for <alice@alice.test> on mylist@example.org: recipient, counted' "$RUNLOG"
}

@test "mj_queuerun --classify shows each address found, its class, the rule and the evidence" {
	local f=$BATS_TEST_TMPDIR/report.eml
	cat >"$f" <<-'EOF'
	Return-Path: <>
	From: Mail Delivery System <MAILER-DAEMON@relay.alice.test>
	Subject: Undelivered Mail Returned to Sender
	MIME-Version: 1.0
	Content-Type: multipart/report; report-type=delivery-status; boundary="B"

	--B
	Content-Type: message/delivery-status

	Final-Recipient: rfc822; alice@alice.test
	Action: failed
	Status: 5.0.0
	Diagnostic-Code: smtp; 554 5.7.1 <alice@alice.test>: Recipient address
	 rejected: Access denied

	Final-Recipient: rfc822;<bob@bob.test>
	Action: failed
	Status: 5.1.1
	--B--
	EOF
	run "$MJ_QUEUERUN" --classify "$f"
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = "alice@alice.test: policy" ]
	[ "${lines[1]}" = "    found by: RFC 3464" ]
	[ "${lines[2]}" = "    rule: code 5.7.1 in the reply" ]
	[ "${lines[3]}" = "    evidence: smtp; 554 5.7.1 <alice@alice.test>: Recipient address rejected: Access denied" ]
	[ "${lines[4]}" = "bob@bob.test: recipient" ]
	[ "${lines[6]}" = "    rule: code 5.1.1 in the Status" ]
	# a VERP address names the subscriber when the list is given
	printf 'Return-Path: <>\nDelivered-To: mylist-owner+carol=carol.test@example.org\nFrom: MAILER-DAEMON@mx.test\n\n<x@y.test>:\nSorry, no mailbox here by that name. (#5.1.1)\n' >"$f"
	run "$MJ_QUEUERUN" --classify "$f" mylist@example.org
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = "carol@carol.test: recipient" ]
	[ "${lines[1]}" = "    found by: VERP" ]
	# not a bounce; a file that is not there
	printf 'From: ann@users.test\nSubject: hi\n\nhello\n' >"$f"
	run "$MJ_QUEUERUN" --classify "$f"
	[ "$output" = "not a bounce" ]
	run -66 "$MJ_QUEUERUN" --classify "$BATS_TEST_TMPDIR/none"
	[[ "$output" =~ cannot\ read ]]
}

# classify TEXT - mj_queuerun --classify on TEXT (a report), its first
# line ("address: class") printed
classify() {
	printf '%s\n' "$1" >"$BATS_TEST_TMPDIR/r.eml"
	"$MJ_QUEUERUN" --classify "$BATS_TEST_TMPDIR/r.eml" | sed -n 1p
}

@test "formats read as their MTAs write them, beyond the corpus's samples" {
	# RFC 3464 written loosely: no address type, brackets, a boundary
	# that matches nothing
	run classify $'Return-Path: <>\nContent-Type: multipart/report; report-type=delivery-status; boundary="X"\n\n--Y\nContent-Type: message/delivery-status\n\nFinal-Recipient: <gone@dead.test>\nAction: failed\nStatus: 5.1.1\n--Y--'
	[ "$output" = "gone@dead.test: recipient" ]
	# Trend Micro InterScan's transcript
	run classify $'Return-Path: <>\nFrom: postmaster@gw.test\nSubject: Delivery Failure\n\nSent <<< RCPT TO:<gone@dead.test>\nReceived >>> 550 5.1.1 <gone@dead.test>... user unknown\n\nUnable to deliver message to <gone@dead.test>.'
	[ "$output" = "gone@dead.test: recipient" ]
	# Apache James
	run classify $'Return-Path: <>\nSubject: [BOUNCE]\n\nHi. This is the James mail server at mx.test.\nI\'m afraid I wasn\'t able to deliver your message to the following addresses.\nThis is a permanent error; I\'ve given up. Sorry it didn\'t work out.\nBelow I include the list of recipients and the reason why I was unable to deliver your message.\n\nFailed recipient(s):\ngone@dead.test\n\nError message:\n550 5.1.1 user unknown'
	[ "$output" = "gone@dead.test: recipient" ]
	# Amazon SES, a transient bounce: not a dead address
	run classify $'Return-Path: <x@amazonses.test>\nFrom: no-reply@sns.amazonaws.com\n\n{"notificationType":"Bounce","bounce":{"bounceType":"Transient","bouncedRecipients":[{"emailAddress":"full@users.test","status":"5.2.2","diagnosticCode":"smtp; 552 5.2.2 mailbox full"}]}}'
	[ "$output" = "full@users.test: mailbox" ]
	# a refusal of the sender, whatever code it carries
	run classify $'Return-Path: <>\nFrom: Mail Delivery System <MAILER-DAEMON@mx.test>\nX-Failed-Recipients: live@users.test\n\nA message that you sent could not be delivered to one or more of its\nrecipients. This is a permanent error. The following address(es) failed:\n\n  live@users.test\n    SMTP error from remote mail server after MAIL FROM:<list-owner@example.org>:\n    553 5.1.1 <list-owner@example.org>... No such user'
	[ "$output" = "live@users.test: policy" ]
	# ISO-2022-JP text read as UTF-8
	run classify $'Return-Path: <>\nFrom: MAILER-DAEMON@notes.test\nContent-Type: text/plain; charset=ISO-2022-JP\n\n------- Failure Reasons  --------\n\033$B%G%#%l%/%H%j$N%j%9%H$K$"$j$^$;$s\033(B\ngone@dead.test'
	[ "$output" = "gone@dead.test: recipient" ]
}
