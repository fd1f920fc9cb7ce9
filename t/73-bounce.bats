#!/usr/bin/env bats
# Bounces to <list>-owner (listfn/bounce.c, lists/bounce_parse.c): counted per
# subscriber, the subscriber removed after bounce_max_count within
# bounce_max_age and the owners told; other owner mail still forwarded.

load helpers
load request_helpers

# Posting policy is t/76's; these lists take posts from anyone.
MJQ_LIST_POSTING=open

setup() {
	request_setup
	mjq_list example.org mylist gone@dead.test live@users.test
	printf '[list]\nowners = boss@owner.test\nverp = yes\nbounce_max_count = 3\nbounce_max_age = 1d\n' \
		>>"$LISTS/example.org/mylist/config"
	SUBS=$LISTS/example.org/mylist/subscribers
	BOUNCES=$LISTS/example.org/mylist/bounces
}

# owner_mail - a message on stdin to mylist-owner, from the null sender
owner_mail() {
	"$MJ_ENQUEUE" -C "$CONF" -d example.org -l mylist -o -f '' "$@"
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

@test "VERP bounces counted; the third unsubscribes and tells the owners" {
	verp_bounce gone@dead.test
	verp_bounce gone@dead.test
	runq
	[ "$(wc -l <"$BOUNCES")" -eq 1 ]
	[ "$(awk '{print $1, NF - 1}' "$BOUNCES")" = "gone@dead.test 2" ]
	grep -qx gone@dead.test "$SUBS"
	[ "$(mails boss@owner.test)" -eq 0 ]
	verp_bounce gone@dead.test
	runq
	[ "$(cat "$SUBS")" = "live@users.test" ]
	[ "$(cat "$BOUNCES")" = "" ]
	[ "$(mails boss@owner.test)" -eq 1 ]
	grep -qx '<gone@dead.test> has been removed from mylist@example.org: mail to it bounced' \
	    "$MAIL"/boss@owner.test/new/*
	grep -qx 'Auto-Submitted: auto-replied' "$MAIL"/boss@owner.test/new/*
	grep -q 'unsubscribed from mylist@example.org after 3 bounces' "$RUNLOG"
	[ "$(queue_files)" = "" ]
}

@test "bounces older than bounce_max_age do not count" {
	old=$(($(date +%s) - 2 * 86400))
	printf 'gone@dead.test %s %s\n' "$old" "$old" >"$BOUNCES"
	verp_bounce gone@dead.test
	runq
	[ "$(awk '{print NF - 1}' "$BOUNCES")" -eq 1 ]
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
	--B--
	EOF
	runq
	[ "$(awk '{print $1, NF - 1}' "$BOUNCES")" = "gone@dead.test 1" ]
	[ "$(mails boss@owner.test)" -eq 0 ]
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
	owner_mail <<-'EOF'
	From: Mail Delivery System <Mailer-Daemon@mx.users.test>
	Subject: Mail delivery failed: returning message to sender

	This message was created automatically by mail delivery software.

	A message that you sent could not be delivered to one or more of its
	recipients. This is a permanent error. The following address(es) failed:

	  live@users.test
	    SMTP error from remote mail server after RCPT TO:<live@users.test>:
	EOF
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
	grep -q 'bounce for <stranger@else.test>, not a subscriber of mylist' "$RUNLOG"
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
