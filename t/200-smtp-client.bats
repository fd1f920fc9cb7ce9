#!/usr/bin/env bats
# The SMTP client (smtp/smtp_*) driven by mj_smtptry against
# mj_testsmtpd and Postfix's smtp-sink on loopback: delivery, extensions,
# per-recipient outcomes, feedback classes and misbehaving servers.

load helpers
load smtp_helpers
bats_require_minimum_version 1.5.0

setup() {
	MSG=$BATS_TEST_TMPDIR/msg
	# Dot-stuffing, bare CR, CRLF, bare LF and no final newline at once.
	printf 'Subject: t\n\n.dot\nbare\rcr\r\nmixed\n..two\n.\nend' >"$MSG"
	WIRE=$BATS_TEST_TMPDIR/wire
	printf 'Subject: t\r\n\r\n.dot\r\nbare\r\ncr\r\nmixed\r\n..two\r\n.\r\nend\r\n' >"$WIRE"
}

teardown() {
	servers_stop
}

try() {
	"$MJ_SMTPTRY" -H 127.0.0.1 -p "$PORT" -f sender@example.org -m "$MSG" "$@"
}

S=$BATS_TEST_TMPDIR/s

# tries_at_once N - N clients at once, one recipient each; output in out.*
tries_at_once() {
	local i pids=
	for i in $(seq 1 "$1"); do
		"$MJ_SMTPTRY" -H 127.0.0.1 -p "$PORT" -f s@x -r "r$i@x.org" \
			-m "$MSG" >"$BATS_TEST_TMPDIR/out.$i" 3>&- &
		pids="$pids $!"
	done
	wait $pids
}

@test "a message arrives byte for byte: CRLF everywhere, dots unstuffed" {
	smtpd_start s
	run try -r a@example.com -r b@example.com
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = "session ok relay=127.0.0.1[127.0.0.1]:$PORT esmtp=1 pipelining=1 size=1/10240000 8bitmime=1" ]
	[ "${lines[1]}" = "xact=1 to=<a@example.com> status=sent code=250 dsn=2.0.0 text=250 2.0.0 Ok: queued as 1 (end of data)" ]
	[ "${lines[2]}" = "xact=1 to=<b@example.com> status=sent code=250 dsn=2.0.0 text=250 2.0.0 Ok: queued as 1 (end of data)" ]
	[ "${lines[3]}" = "feedback=positive" ]
	[ "${#lines[@]}" -eq 4 ]
	cmp "$WIRE" "$S/save/new/1"
	[ "$(ls "$S/save/new")" = "1" ]
	[ "$(cat "$S/log")" = "1 1 from=<sender@example.org> to=<a@example.com>
1 1 from=<sender@example.org> to=<b@example.com>" ]
	# SIZE= is the size on the wire, stuffing dots included
	grep -qx "1 2 MAIL FROM:<sender@example.org> SIZE=$(($(wc -c <"$WIRE") + 3))" "$S/trace"
	grep -qx '1 [0-9]* QUIT' "$S/trace"
}

@test "a copy made whole in memory (a one-click copy's) declares the SIZE= of its file's text: the final CRLF it is sent with counted" {
	# the setup's message: no final newline, stuffed dots
	smtpd_start s --check-size
	run try -W -r a@example.com
	[ "${lines[1]}" = "xact=1 to=<a@example.com> status=sent code=250 dsn=2.0.0 text=250 2.0.0 Ok: queued as 1 (end of data)" ]
	cmp "$WIRE" "$S/save/new/1"
	grep -qx "1 2 MAIL FROM:<sender@example.org> SIZE=$(($(wc -c <"$WIRE") + 3))" "$S/trace"
	# no dot to stuff: the server (--check-size) takes no copy larger
	# than its SIZE= said (RFC 1870)
	printf 'Subject: t\n\nend' >"$MSG"
	run try -W -r a@example.com
	[ "${lines[1]}" = "xact=1 to=<a@example.com> status=sent code=250 dsn=2.0.0 text=250 2.0.0 Ok: queued as 2 (end of data)" ]
	grep -qx '2 2 MAIL FROM:<sender@example.org> SIZE=19' "$S/trace"
	printf 'Subject: t\r\n\r\nend\r\n' | cmp - "$S/save/new/2"
}

@test "an empty message and one ending in CRLF get exactly one final CRLF" {
	smtpd_start s
	: >"$MSG"
	run try -r a@x.org
	[ "${lines[1]}" = "xact=1 to=<a@x.org> status=sent code=250 dsn=2.0.0 text=250 2.0.0 Ok: queued as 1 (end of data)" ]
	[ -e "$S/save/new/1" ] && [ ! -s "$S/save/new/1" ]
	printf 'a\r\nb\r\n' >"$MSG"
	run try -r a@x.org
	[ "${lines[1]}" = "xact=1 to=<a@x.org> status=sent code=250 dsn=2.0.0 text=250 2.0.0 Ok: queued as 2 (end of data)" ]
	cmp "$MSG" "$S/save/new/2"
}

@test "the message may come from a pipe" {
	smtpd_start s
	run "$MJ_SMTPTRY" -H 127.0.0.1 -p "$PORT" -f s@x -r a@x.org <"$MSG"
	[ "${lines[1]}" = "xact=1 to=<a@x.org> status=sent code=250 dsn=2.0.0 text=250 2.0.0 Ok: queued as 1 (end of data)" ]
	run "$MJ_SMTPTRY" -H 127.0.0.1 -p "$PORT" -f s@x -r a@x.org < <(cat "$MSG")
	[ "${lines[1]}" = "xact=1 to=<a@x.org> status=sent code=250 dsn=2.0.0 text=250 2.0.0 Ok: queued as 2 (end of data)" ]
	cmp "$WIRE" "$S/save/new/2"
}

@test "EHLO refused: the client falls back to HELO and plain SMTP" {
	smtpd_start s --reply 'ehlo=502 5.5.2 no ESMTP here'
	run try -r a@x.org
	[ "${lines[0]}" = "session ok relay=127.0.0.1[127.0.0.1]:$PORT esmtp=0 pipelining=0 size=0/0 8bitmime=0" ]
	[ "${lines[1]}" = "xact=1 to=<a@x.org> status=sent code=250 dsn=2.0.0 text=250 2.0.0 Ok: queued as 1 (end of data)" ]
	[ "$(cut -d' ' -f3- "$S/trace")" = "EHLO localhost
HELO localhost
MAIL FROM:<sender@example.org>
RCPT TO:<a@x.org>
DATA
QUIT" ]
}

@test "EHLO answered 421 is a handshake failure: negative feedback, no HELO" {
	smtpd_start s --reply 'ehlo=421 4.3.2 shutting down'
	run try -r a@x.org
	[ "${lines[0]}" = "session failed status=deferred code=421 dsn=4.3.2 text=421 4.3.2 shutting down (EHLO)" ]
	[ "${lines[1]}" = "feedback=negative" ]
	[ "$(cut -d' ' -f3- "$S/trace")" = "EHLO localhost" ]
}

@test "PIPELINING: MAIL, RCPTs and DATA arrive in one read; without it, one by one" {
	smtpd_start s
	run try -r a@x.org -r b@x.org
	[ "${lines[3]}" = "feedback=positive" ]
	# all four commands carry the same read number
	[ "$(grep -E ' (MAIL|RCPT|DATA)' "$S/trace" | cut -d' ' -f2 | sort -u | wc -l)" -eq 1 ]
	[ "$(grep -cE ' (MAIL|RCPT|DATA)' "$S/trace")" -eq 4 ]

	smtpd_start p --no-pipelining
	run try -r a@x.org -r b@x.org
	[ "${lines[0]}" = "session ok relay=127.0.0.1[127.0.0.1]:$PORT esmtp=1 pipelining=0 size=1/10240000 8bitmime=1" ]
	[ "${lines[3]}" = "feedback=positive" ]
	[ "$(grep -E ' (MAIL|RCPT|DATA)' "$BATS_TEST_TMPDIR/p/trace" | cut -d' ' -f2 | sort -u | wc -l)" -eq 4 ]
	[ "$(wc -l <"$BATS_TEST_TMPDIR/p/log")" -eq 2 ]
}

@test "without PIPELINING, no DATA is sent when every recipient was refused" {
	smtpd_start s --no-pipelining --rcpt '*=550 5.1.1 nobody'
	run try -r a@x.org -r b@x.org
	[ "${lines[1]}" = "xact=1 to=<a@x.org> status=bounced code=550 dsn=5.1.1 text=550 5.1.1 nobody (RCPT TO)" ]
	[ "${lines[2]}" = "xact=1 to=<b@x.org> status=bounced code=550 dsn=5.1.1 text=550 5.1.1 nobody (RCPT TO)" ]
	run ! grep -q ' DATA$' "$S/trace"
	[ ! -s "$S/log" ]
}

@test "with PIPELINING and every recipient refused, the DATA reply is read and the session stays usable" {
	smtpd_start s --rcpt 'no*=550 5.1.1 nobody'
	run try -r no1@x.org -N -r yes@x.org
	[ "${lines[1]}" = "xact=1 to=<no1@x.org> status=bounced code=550 dsn=5.1.1 text=550 5.1.1 nobody (RCPT TO)" ]
	[ "${lines[2]}" = "xact=2 to=<yes@x.org> status=sent code=250 dsn=2.0.0 text=250 2.0.0 Ok: queued as 1 (end of data)" ]
	[ "$(cat "$S/log")" = "1 1 from=<sender@example.org> to=<yes@x.org>" ]
}

@test "SIZE: a message over the server's limit bounces without a MAIL command" {
	smtpd_start s --size 20
	run try -r a@x.org
	[ "${lines[1]}" = "xact=1 to=<a@x.org> status=bounced code=0 dsn=5.3.4 text=message size $(($(wc -c <"$WIRE") + 3)) exceeds size limit 20 of server 127.0.0.1[127.0.0.1]:$PORT (MAIL FROM)" ]
	[ "${lines[2]}" = "feedback=positive" ]
	run ! grep -q ' MAIL ' "$S/trace"
}

@test "SIZE: a server that refuses the SIZE= at MAIL bounces every recipient" {
	smtpd_start s --reply 'mail=552 5.3.4 too big for us'
	run try -r a@x.org -r b@x.org
	[ "${lines[1]}" = "xact=1 to=<a@x.org> status=bounced code=552 dsn=5.3.4 text=552 5.3.4 too big for us (MAIL FROM)" ]
	[ "${lines[2]}" = "xact=1 to=<b@x.org> status=bounced code=552 dsn=5.3.4 text=552 5.3.4 too big for us (MAIL FROM)" ]
	[ "${lines[3]}" = "feedback=positive" ]
}

@test "8BITMIME: BODY=8BITMIME only for 8-bit text and only when offered" {
	printf 'Subject: caf\xc3\xa9\n\nx\n' >"$MSG"
	smtpd_start s
	run try -r a@x.org
	[ "${lines[1]}" = "xact=1 to=<a@x.org> status=sent code=250 dsn=2.0.0 text=250 2.0.0 Ok: queued as 1 (end of data)" ]
	grep -qx '1 2 MAIL FROM:<sender@example.org> SIZE=21 BODY=8BITMIME' "$S/trace"
	smtpd_start n --no-8bitmime
	run try -r a@x.org
	grep -qx '1 2 MAIL FROM:<sender@example.org> SIZE=21' "$BATS_TEST_TMPDIR/n/trace"
	printf 'seven bit\n' >"$MSG"
	run try -r a@x.org
	grep -qx '2 2 MAIL FROM:<sender@example.org> SIZE=11' "$BATS_TEST_TMPDIR/n/trace"
}

@test "per-recipient 2xx, 4xx and 5xx outcomes in one transaction" {
	smtpd_start s --rcpt 'bad*@*=550 5.1.1 no such user' --rcpt 'slow*=451 4.3.0 try later'
	run try -r ok@x.org -r bad1@x.org -r slow@x.org -r ok2@x.org
	[ "${lines[1]}" = "xact=1 to=<ok@x.org> status=sent code=250 dsn=2.0.0 text=250 2.0.0 Ok: queued as 1 (end of data)" ]
	[ "${lines[2]}" = "xact=1 to=<bad1@x.org> status=bounced code=550 dsn=5.1.1 text=550 5.1.1 no such user (RCPT TO)" ]
	[ "${lines[3]}" = "xact=1 to=<slow@x.org> status=deferred code=451 dsn=4.3.0 text=451 4.3.0 try later (RCPT TO)" ]
	[ "${lines[4]}" = "xact=1 to=<ok2@x.org> status=sent code=250 dsn=2.0.0 text=250 2.0.0 Ok: queued as 1 (end of data)" ]
	[ "${lines[5]}" = "feedback=positive" ]
	[ "$(cut -d' ' -f4 "$S/log")" = "to=<ok@x.org>
to=<ok2@x.org>" ]
}

@test "the end-of-data reply decides for every accepted recipient" {
	smtpd_start s --reply 'eod=554 5.7.1 spam'
	run try -r a@x.org -r b@x.org
	[ "${lines[1]}" = "xact=1 to=<a@x.org> status=bounced code=554 dsn=5.7.1 text=554 5.7.1 spam (end of data)" ]
	[ "${lines[2]}" = "xact=1 to=<b@x.org> status=bounced code=554 dsn=5.7.1 text=554 5.7.1 spam (end of data)" ]
	smtpd_start d --reply 'data=451 4.3.0 not now'
	run try -r a@x.org
	[ "${lines[1]}" = "xact=1 to=<a@x.org> status=deferred code=451 dsn=4.3.0 text=451 4.3.0 not now (DATA)" ]
	[ "${lines[2]}" = "feedback=positive" ]
}

@test "452 after N recipients defers only the recipients past the limit" {
	smtpd_start s --rcpt-limit 2
	run try -r a@x.org -r b@x.org -r c@x.org
	[ "${lines[1]}" = "xact=1 to=<a@x.org> status=sent code=250 dsn=2.0.0 text=250 2.0.0 Ok: queued as 1 (end of data)" ]
	[ "${lines[2]}" = "xact=1 to=<b@x.org> status=sent code=250 dsn=2.0.0 text=250 2.0.0 Ok: queued as 1 (end of data)" ]
	[ "${lines[3]}" = "xact=1 to=<c@x.org> status=deferred code=452 dsn=4.5.3 text=452 4.5.3 too many recipients (RCPT TO)" ]
	[ "${lines[4]}" = "feedback=positive" ]
	[ "$(wc -l <"$S/log")" -eq 2 ]
}

@test "421 at the greeting: deferred with negative feedback" {
	smtpd_start s --reply 'greeting=421 4.3.2 too busy'
	run try -r a@x.org
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = "session failed status=deferred code=421 dsn=4.3.2 text=421 4.3.2 too busy (greeting)" ]
	[ "${lines[1]}" = "feedback=negative" ]
	[ "${#lines[@]}" -eq 2 ]
	[ ! -s "$S/trace" ]
}

@test "a 554 greeting is deferred too, and never bounces the message" {
	smtpd_start s --reply 'greeting=554 5.7.1 go away'
	run try -r a@x.org
	[ "${lines[0]}" = "session failed status=deferred code=554 dsn=4.7.1 text=554 5.7.1 go away (greeting)" ]
	[ "${lines[1]}" = "feedback=negative" ]
}

@test "server down, then up: --fail-first-sessions gives 421 to the first sessions only" {
	smtpd_start s --fail-first-sessions 2
	for i in 1 2; do
		run try -r a@x.org
		[ "${lines[0]}" = "session failed status=deferred code=421 dsn=4.3.2 text=421 4.3.2 service not available (greeting)" ]
		[ "${lines[1]}" = "feedback=negative" ]
	done
	run try -r a@x.org
	[ "${lines[1]}" = "xact=1 to=<a@x.org> status=sent code=250 dsn=2.0.0 text=250 2.0.0 Ok: queued as 1 (end of data)" ]
	[ "${lines[2]}" = "feedback=positive" ]
	[ "$(cat "$S/log")" = "3 1 from=<sender@example.org> to=<a@x.org>" ]
}

@test "connection refused: deferred with negative feedback" {
	PORT=$(free_port)
	run try -r a@x.org
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = "session failed status=deferred code=0 dsn=4.4.1 text=connect to 127.0.0.1[127.0.0.1]:$PORT: Connection refused (connect)" ]
	[ "${lines[1]}" = "feedback=negative" ]
}

@test "a silent server times out at the greeting (negative) within the timeout" {
	smtpd_start s --silent greeting
	SECONDS=0
	run timeout 20 "$MJ_SMTPTRY" -H 127.0.0.1 -p "$PORT" -f s@x -r a@x.org -m "$MSG" -T greeting=300
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = "session failed status=deferred code=0 dsn=4.4.2 text=conversation with 127.0.0.1[127.0.0.1]:$PORT timed out while receiving the initial server greeting (receiving the initial server greeting)" ]
	[ "${lines[1]}" = "feedback=negative" ]
	[ "$SECONDS" -lt 10 ]
}

@test "a server silent after DATA: deferred, positive, may be sent twice" {
	smtpd_start s --silent eod
	run try -r a@x.org -t 300
	[ "$status" -eq 0 ]
	[ "${lines[1]}" = "xact=1 to=<a@x.org> status=deferred code=0 dsn=4.4.2 text=conversation with 127.0.0.1[127.0.0.1]:$PORT timed out while sending end of data -- message may be sent more than once (sending end of data -- message may be sent more than once)" ]
	[ "${lines[2]}" = "feedback=positive" ]
}

@test "a slow server within the timeout is fine" {
	smtpd_start s --delay greeting=200 --delay rcpt=100 --delay eod=200
	run try -r a@x.org -t 5000
	[ "${lines[1]}" = "xact=1 to=<a@x.org> status=sent code=250 dsn=2.0.0 text=250 2.0.0 Ok: queued as 1 (end of data)" ]
}

@test "garbage replies are a protocol error: greeting negative, later positive" {
	smtpd_start s --garbage greeting
	run try -r a@x.org
	[ "${lines[0]}" = "session failed status=deferred code=0 dsn=4.5.0 text=protocol error from 127.0.0.1[127.0.0.1]:$PORT while receiving the initial server greeting: malformed reply line (receiving the initial server greeting)" ]
	[ "${lines[1]}" = "feedback=negative" ]
	smtpd_start r --garbage rcpt
	run try -r a@x.org -r b@x.org
	[ "${lines[1]}" = "xact=1 to=<a@x.org> status=deferred code=0 dsn=4.5.0 text=protocol error from 127.0.0.1[127.0.0.1]:$PORT while sending RCPT TO: malformed reply line (sending RCPT TO)" ]
	[ "${lines[2]}" = "xact=1 to=<b@x.org> status=deferred code=0 dsn=4.5.0 text=protocol error from 127.0.0.1[127.0.0.1]:$PORT while sending RCPT TO: malformed reply line (sending RCPT TO)" ]
	[ "${lines[3]}" = "feedback=positive" ]
	[ ! -s "$BATS_TEST_TMPDIR/r/log" ]
}

@test "a 2 MB reply line is a protocol error, not a crash" {
	smtpd_start s --long-reply mail
	run try -r a@x.org
	[ "$status" -eq 0 ]
	[ "${lines[1]}" = "xact=1 to=<a@x.org> status=deferred code=0 dsn=4.5.0 text=protocol error from 127.0.0.1[127.0.0.1]:$PORT while sending MAIL FROM: reply line too long (sending MAIL FROM)" ]
	[ "${lines[2]}" = "feedback=positive" ]
	smtpd_start g --long-reply greeting
	run try -r a@x.org
	[ "${lines[0]}" = "session failed status=deferred code=0 dsn=4.5.0 text=protocol error from 127.0.0.1[127.0.0.1]:$PORT while receiving the initial server greeting: reply line too long (receiving the initial server greeting)" ]
}

@test "replies split one byte per write are reassembled" {
	smtpd_start s --split --rcpt 'bad*=550 5.1.1 no such user'
	run try -r a@x.org -r bad@x.org -N -r c@x.org
	[ "${lines[0]}" = "session ok relay=127.0.0.1[127.0.0.1]:$PORT esmtp=1 pipelining=1 size=1/10240000 8bitmime=1" ]
	[ "${lines[1]}" = "xact=1 to=<a@x.org> status=sent code=250 dsn=2.0.0 text=250 2.0.0 Ok: queued as 1 (end of data)" ]
	[ "${lines[2]}" = "xact=1 to=<bad@x.org> status=bounced code=550 dsn=5.1.1 text=550 5.1.1 no such user (RCPT TO)" ]
	[ "${lines[3]}" = "xact=2 to=<c@x.org> status=sent code=250 dsn=2.0.0 text=250 2.0.0 Ok: queued as 2 (end of data)" ]
	[ "${lines[4]}" = "feedback=positive" ]
}

@test "a connection dropped mid-DATA defers the batch and logs no delivery" {
	# a large message, so the drop meets the client while it writes
	head -c 3000000 /dev/zero | tr '\0' 'x' | fold -w 70 >"$MSG"
	smtpd_start s --drop body
	run try -r a@x.org -r b@x.org
	[ "$status" -eq 0 ]
	[[ "${lines[1]}" =~ ^"xact=1 to=<a@x.org> status=deferred code=0 dsn=4.4.2 text=lost connection with 127.0.0.1[127.0.0.1]:$PORT while sending "(the message body|end of data) ]]
	[[ "${lines[2]}" =~ ^"xact=1 to=<b@x.org> status=deferred code=0 dsn=4.4.2 " ]]
	[ "${lines[3]}" = "feedback=positive" ]
	[ ! -s "$S/log" ]
	[ -z "$(ls "$S/save/new")" ]
}

@test "a connection dropped at RCPT defers every recipient" {
	smtpd_start s --drop rcpt --no-pipelining
	run try -r a@x.org -r b@x.org
	[ "${lines[1]}" = "xact=1 to=<a@x.org> status=deferred code=0 dsn=4.4.2 text=lost connection with 127.0.0.1[127.0.0.1]:$PORT while sending RCPT TO (sending RCPT TO)" ]
	[ "${lines[2]}" = "xact=1 to=<b@x.org> status=deferred code=0 dsn=4.4.2 text=lost connection with 127.0.0.1[127.0.0.1]:$PORT while sending RCPT TO (sending RCPT TO)" ]
	[ "${lines[3]}" = "feedback=positive" ]
	# pipelined, the drop also loses the reply to MAIL
	smtpd_start p --drop rcpt
	run try -r a@x.org
	[ "${lines[1]}" = "xact=1 to=<a@x.org> status=deferred code=0 dsn=4.4.2 text=lost connection with 127.0.0.1[127.0.0.1]:$PORT while sending MAIL FROM (sending MAIL FROM)" ]
}

@test "several transactions over one session, RSET between, batches of N" {
	smtpd_start s
	run try -b 2 -r a@x.org -r b@x.org -r c@x.org -N -r d@x.org
	[ "${#lines[@]}" -eq 6 ]
	[ "${lines[1]}" = "xact=1 to=<a@x.org> status=sent code=250 dsn=2.0.0 text=250 2.0.0 Ok: queued as 1 (end of data)" ]
	[ "${lines[2]}" = "xact=1 to=<b@x.org> status=sent code=250 dsn=2.0.0 text=250 2.0.0 Ok: queued as 1 (end of data)" ]
	[ "${lines[3]}" = "xact=2 to=<c@x.org> status=sent code=250 dsn=2.0.0 text=250 2.0.0 Ok: queued as 2 (end of data)" ]
	[ "${lines[4]}" = "xact=3 to=<d@x.org> status=sent code=250 dsn=2.0.0 text=250 2.0.0 Ok: queued as 3 (end of data)" ]
	# one session (number 1) carried three messages
	[ "$(cat "$S/log")" = "1 1 from=<sender@example.org> to=<a@x.org>
1 1 from=<sender@example.org> to=<b@x.org>
1 2 from=<sender@example.org> to=<c@x.org>
1 3 from=<sender@example.org> to=<d@x.org>" ]
	[ "$(grep -cx '1 [0-9]* RSET' "$S/trace")" -eq 2 ]
	[ "$(grep -c ' EHLO ' "$S/trace")" -eq 1 ]
	for m in 1 2 3; do cmp "$WIRE" "$S/save/new/$m"; done
}

@test "a refused RSET makes the session stale: the caller reopens and delivers" {
	smtpd_start s --reply 'rset=421 4.3.2 bye'
	run try -r a@x.org -N -r b@x.org
	[ "${lines[1]}" = "xact=1 to=<a@x.org> status=sent code=250 dsn=2.0.0 text=250 2.0.0 Ok: queued as 1 (end of data)" ]
	[ "${lines[2]}" = "xact=2 stale" ]
	[ "${lines[3]}" = "session ok relay=127.0.0.1[127.0.0.1]:$PORT esmtp=1 pipelining=1 size=1/10240000 8bitmime=1" ]
	[ "${lines[4]}" = "xact=3 to=<b@x.org> status=sent code=250 dsn=2.0.0 text=250 2.0.0 Ok: queued as 2 (end of data)" ]
	[ "$(cut -d' ' -f1,2 "$S/log")" = "1 1
2 2" ]
}

@test "addresses with CR, LF or brackets are refused locally, never sent" {
	smtpd_start s
	run try -r $'evil@x.org\r\nRCPT TO:<inject@x.org>' -r 'a<b@x.org' -r ok@x.org
	[ "${lines[1]}" = "xact=1 to=<evil@x.org"$'\r' ]
	[ "${lines[2]}" = "RCPT TO:<inject@x.org>> status=bounced code=0 dsn=5.1.3 text=bad recipient address syntax (RCPT TO)" ]
	[ "${lines[3]}" = "xact=1 to=<a<b@x.org> status=bounced code=0 dsn=5.1.3 text=bad recipient address syntax (RCPT TO)" ]
	[ "${lines[4]}" = "xact=1 to=<ok@x.org> status=sent code=250 dsn=2.0.0 text=250 2.0.0 Ok: queued as 1 (end of data)" ]
	run ! grep -q inject "$S/trace"
	[ "$(cut -d' ' -f4 "$S/log")" = "to=<ok@x.org>" ]
}

@test "mj_testsmtpd sustains hundreds of concurrent sessions" {
	smtpd_start s --delay greeting=1500
	tries_at_once 300
	[ "$(cat "$BATS_TEST_TMPDIR"/out.* | grep -c 'status=sent')" -eq 300 ]
	[ "$(wc -l <"$S/log")" -eq 300 ]
	[ "$(cut -d' ' -f4 "$S/log" | sort -u | wc -l)" -eq 300 ]
}

@test "--max-sessions: sessions past N get 421 and negative feedback" {
	# every session holds its slot 3 s, so all 20 overlap
	smtpd_start s --max-sessions 10 --delay greeting=3000
	tries_at_once 20
	[ "$(cat "$BATS_TEST_TMPDIR"/out.* | grep -c '^feedback=positive$')" -eq 10 ]
	[ "$(cat "$BATS_TEST_TMPDIR"/out.* | grep -c '^session failed status=deferred code=421 dsn=4.3.2 ')" -eq 10 ]
	[ "$(wc -l <"$S/log")" -eq 10 ]
}

@test "mj_testsmtpd stops on SIGTERM and removes its pid file" {
	smtpd_start s
	pid=$(cat "$S/pid")
	kill -0 "$pid"
	stop_pid "$pid"
	[ ! -e "$S/pid" ]
	run "$MJ_TESTSMTPD" --bogus
	[ "$status" -eq 1 ]
	run "$MJ_TESTSMTPD" -h
	[ "$status" -eq 0 ]
	[[ "${lines[0]}" = "usage: mj_testsmtpd [options]" ]]
}

@test "Postfix smtp-sink receives the same bytes, without SIZE" {
	PORT=$(free_port)
	# smtp-sink drops root for nobody: chrooted (as root) into the dump
	# directory first, it needs no way to it through TMPDIR's parents,
	# which may be closed to others (a checkout under /root, 0700)
	mkdir -m 777 "$BATS_TEST_TMPDIR/sink"
	smtp-sink -R "$BATS_TEST_TMPDIR/sink" -u nobody -d /m. "127.0.0.1:$PORT" 100 3>&- &
	echo $! >>"$BATS_TEST_TMPDIR/server.pids"
	wait_for 5 eval "ss -ltn | grep -q '127.0.0.1:$PORT '"
	run try -r a@x.org -r b@x.org
	[ "${lines[0]}" = "session ok relay=127.0.0.1[127.0.0.1]:$PORT esmtp=1 pipelining=1 size=0/0 8bitmime=1" ]
	[ "${lines[1]}" = "xact=1 to=<a@x.org> status=sent code=250 dsn=2.0.0 text=250 2.0.0 Ok (end of data)" ]
	[ "${lines[2]}" = "xact=1 to=<b@x.org> status=sent code=250 dsn=2.0.0 text=250 2.0.0 Ok (end of data)" ]
	[ "${lines[3]}" = "feedback=positive" ]
	dump=$(ls "$BATS_TEST_TMPDIR"/sink/m.*)
	grep -qx 'X-Mail-Args: <sender@example.org>' "$dump"
	[ "$(grep -c '^X-Rcpt-Args: <[ab]@x.org>$' "$dump")" -eq 2 ]
	# the dump stores LF line ends and a blank line after the message
	sed -n '/^Subject: t$/,$p' "$dump" >"$BATS_TEST_TMPDIR/got"
	{ tr -d '\r' <"$WIRE"; echo; } >"$BATS_TEST_TMPDIR/want"
	cmp "$BATS_TEST_TMPDIR/want" "$BATS_TEST_TMPDIR/got"
}

@test "reply parser: multi-line, enhanced codes, any chunking gives the same replies" {
	in=$'250-mx.example\r\n250-PIPELINING\r\n250 SIZE 100\r\n550 5.1.1 <x>: no\r\n451-4.3.0 a\r\n451-4.3.0 b\r\n451 4.3.0 c\r\n354 go\n250\r\n550 5.1 odd\r\n'
	want="lines=3 250 2.0.0 mx.example PIPELINING SIZE 100
lines=1 550 5.1.1 <x>: no
lines=3 451 4.3.0 a b c
lines=1 354 3.0.0 go
lines=1 250 2.0.0
lines=1 550 5.0.0 5.1 odd"
	for c in 1 2 7 4096; do
		run "$TOP/t/tools/mj_replyparse" -c "$c" < <(printf %s "$in")
		[ "$output" = "$want" ]
	done
}

@test "reply parser: garbage, changing codes, long lines and control bytes" {
	run "$TOP/t/tools/mj_replyparse" <<<$'hello\r\n'
	[ "$output" = "error: malformed reply line" ]
	run "$TOP/t/tools/mj_replyparse" <<<$'250-a\r\n251 b\r\n'
	[ "$output" = "error: reply code changes between lines" ]
	run "$TOP/t/tools/mj_replyparse" <<<$'600 no such class\r\n'
	[ "$output" = "error: malformed reply line" ]
	run "$TOP/t/tools/mj_replyparse" < <(printf '250 '; head -c 3000 /dev/zero | tr '\0' x; printf '\r\n')
	[ "$output" = "error: reply line too long" ]
	run "$TOP/t/tools/mj_replyparse" < <(printf '250 a\001b\033c\r\n250 x')
	[ "$output" = "lines=1 250 2.0.0 a?b?c
incomplete" ]
}
