#!/usr/bin/env bats
# Bans (lists/bans.c) end to end over SMTP: the list's bans file and the
# server's [lists] bans_file keep an address, a domain or a regex match
# from posting (discarded before moderation), subscribing (at the
# request, at its confirmation and at an owner's approval) and set.
# Posts and requests go in through mj_enqueue, the runner delivers
# everything to mj_testsmtpd.

load helpers
load smtp_helpers
load request_helpers

bats_require_minimum_version 1.5.0

# Posting policy is what this file tests: its lists start with the
# program's default (posting = subscribers), not the helpers' open one.
MJQ_LIST_POSTING=

setup() {
	mjq_setup </dev/null
	mjq_list example.org mylist a@users.test b@users.test bad@users.test
	printf '[list]\nowners = boss@users.test\n' >"$LISTS/example.org/mylist/config"
	smtpd_start users
	printf '[transport_map]\n* = smtp:[127.0.0.1]:%s\n' "$PORT" >>"$CONF"
	SLOG=$BATS_TEST_TMPDIR/users/log
	SAVE=$BATS_TEST_TMPDIR/users/save/new
	RUNLOG=$BATS_TEST_TMPDIR/run.log
	BANS=$LISTS/example.org/mylist/bans
	SUBS=$LISTS/example.org/mylist/subscribers
}

teardown() {
	stop_everything
}

# post FROM [SUBJECT] - a post from FROM (From and envelope)
post() {
	printf 'From: <%s>\nSubject: %s\nMessage-Id: <%s@users.test>\n\nhello from %s\n' \
		"$1" "${2:-hi}" "$RANDOM$RANDOM" "$1" |
		"$MJ_ENQUEUE" -C "$CONF" -d example.org -l mylist -r -f "$1"
}

# request FROM TEXT - TEXT as the body of a message to mylist-request
request() {
	printf 'From: <%s>\nSubject: commands\nMessage-Id: <%s@users.test>\n\n%s\n' \
		"$1" "$RANDOM$RANDOM" "$2" |
		"$MJ_ENQUEUE" -C "$CONF" -d example.org -l mylist -q -f "$1"
}

# token_to ADDR - the confirmation token in ADDR's newest mail
token_to() {
	mail_to "$1" | sed -n 's/^Subject: confirm \([0-9a-f]\{32\}\)$/\1/p'
}

# held - the held posts (messages under HOLD/)
held() {
	find "$SPOOL/HOLD" -type f ! -name '.*' 2>/dev/null | wc -l
}

@test "a banned address, domain or regex match may not post: discarded before moderation, nobody told; the others' posts go out" {
	printf '# spammers\nbad@users.test\n@spam.test\n^.*@bulk[0-9]+\\.test$\n' >"$BANS"
	printf 'posting = moderated\n' >>"$LISTS/example.org/mylist/config"
	post bad@users.test
	post x@spam.test
	post Promo@Bulk42.test
	runq
	[ "$(held)" -eq 0 ]
	[ "$(got a@users.test)" -eq 0 ]
	[ "$(got boss@users.test)" -eq 0 ]
	[ "$(got bad@users.test)" -eq 0 ]
	[ "$(got x@spam.test)" -eq 0 ]
	grep -q 'post discarded: <bad@users.test> is banned (bad@users.test)' "$RUNLOG"
	grep -q 'post discarded: <x@spam.test> is banned (@spam.test)' "$RUNLOG"
	grep -q 'post discarded: <Promo@Bulk42.test> is banned' "$RUNLOG"
	[ -z "$(queue_files)" ]
	# a post not banned is still held for the moderator, as before
	post a@users.test
	runq
	[ "$(held)" -eq 1 ]
}

@test "the server's bans_file applies to every list, with the list's own" {
	printf 'bad@users.test\n' >"$BATS_TEST_TMPDIR/global-bans"
	printf '[lists]\nbans_file = %s\n' "$BATS_TEST_TMPDIR/global-bans" >>"$CONF"
	printf 'posting = open\n' >>"$LISTS/example.org/mylist/config"
	mjq_list example.org other a@users.test
	printf '[list]\nposting = open\n' >"$LISTS/example.org/other/config"
	printf 'b@users.test\n' >"$BANS"
	post bad@users.test
	post b@users.test
	printf 'From: <bad@users.test>\nSubject: hi\n\nother\n' |
		"$MJ_ENQUEUE" -C "$CONF" -d example.org -l other -r -f bad@users.test
	runq
	[ "$(got a@users.test)" -eq 0 ]
	grep -q 'other.*post discarded: <bad@users.test> is banned' "$RUNLOG"
	post a@users.test
	runq
	[ "$(got a@users.test)" -eq 1 ]
	[ "$(got b@users.test)" -eq 1 ]
}

@test "a banned address may not subscribe: refused at the request, at the confirmation of an earlier token and at an owner's approval" {
	printf '^.*@spam\\.test$\n' >"$BANS"
	request x@spam.test subscribe
	runq
	[ "$(got x@spam.test)" -eq 1 ]
	mail_to x@spam.test | grep -qx '<x@spam.test> may not subscribe to mylist@example.org.'
	[ -z "$(token_to x@spam.test)" ]
	# a token issued before the ban
	request new@users.test subscribe
	runq
	tok=$(token_to new@users.test)
	[ ${#tok} -eq 32 ]
	printf 'new@users.test\n' >>"$BANS"
	request new@users.test "confirm $tok"
	runq
	mail_to new@users.test | grep -qx '<new@users.test> may not subscribe to mylist@example.org.'
	run -1 grep -q new@users.test "$SUBS"
	# owner approval asked before the ban, approved after it
	printf 'subscribe_approval = yes\n' >>"$LISTS/example.org/mylist/config"
	request late@users.test subscribe
	runq
	request late@users.test "confirm $(token_to late@users.test)"
	runq
	tok=$(token_to boss@users.test)
	[ ${#tok} -eq 32 ]
	printf 'late@users.test\n' >>"$BANS"
	request boss@users.test "confirm $tok"
	runq
	mail_to boss@users.test | grep -qx '<late@users.test> may not subscribe to mylist@example.org.'
	run -1 grep -q late@users.test "$SUBS"
	# the others still subscribe
	request ok@users.test subscribe
	runq
	request ok@users.test "confirm $(token_to ok@users.test)"
	runq
	request boss@users.test "confirm $(token_to boss@users.test)"
	runq
	grep -qx ok@users.test "$SUBS"
}

@test "a banned subscriber's set is refused, a token issued before the ban too" {
	request bad@users.test 'set mylist digest'
	runq
	tok=$(token_to bad@users.test)
	[ ${#tok} -eq 32 ]
	printf 'bad@users.test\n' >"$BANS"
	request bad@users.test "confirm $tok"
	runq
	mail_to bad@users.test | grep -qx '<bad@users.test> is banned from mylist@example.org.'
	grep -qx bad@users.test "$SUBS"
	request bad@users.test 'set mylist nomail'
	runq
	mail_to bad@users.test | grep -qx '<bad@users.test> is banned from mylist@example.org.'
	[ -z "$(token_to bad@users.test)" ]
}

@test "a bad pattern is an error naming the file and line; the others still apply and the list keeps working" {
	printf 'posting = open\n' >>"$LISTS/example.org/mylist/config"
	printf '# comment\n\n^(unclosed@\nnot an address@x\nbad@users.test\n' >"$BANS"
	post bad@users.test
	post a@users.test
	runq
	grep -q "$BANS line 3: bad regular expression \"^(unclosed@\"" "$RUNLOG"
	grep -q "$BANS line 4: bad pattern \"not an address@x\"" "$RUNLOG"
	grep -q 'post discarded: <bad@users.test> is banned' "$RUNLOG"
	[ "$(got b@users.test)" -eq 1 ]
	mail_to b@users.test | grep -qx 'hello from a@users.test'
}
