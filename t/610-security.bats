#!/usr/bin/env bats
# t/610-security.bats - the security promises, each checked from outside:
# the spool is closed to others whatever the umask; queueserv.sock has
# the configured mode and group, the mode is what lets a client in, and
# only root and the server's user may stop, reload or flush;
# the daemons run as [queueserv] user; the pipe transport hands hostile
# addresses to the program verbatim, one argv element each, never to a
# shell; names from mail (addresses in a maildir path, list names and
# tokens in requests, names in mj_enqueue's arguments) never reach a
# path unchecked.
#
# The user and group tests need root (useradd, groupadd, runuser); they
# create their own account and group and remove them in teardown.

bats_require_minimum_version 1.5.0
load helpers
load smtp_helpers
load request_helpers

setup() {
	QS_PID=
	TUSER=
	TGROUP=
}

teardown() {
	queueserv_stop
	servers_stop
	[ -z "$TUSER" ] || userdel "$TUSER" 2>/dev/null || true
	[ -z "$TGROUP" ] || groupdel "$TGROUP" 2>/dev/null || true
	return 0
}

# need_root - skip unless root (accounts, groups, runuser)
need_root() {
	[ "$(id -u)" -eq 0 ] || skip "needs root: creates a user and a group"
}

# post DOMAIN LIST [ARG...] - a post from poster@example.net
post() {
	local d=$1 l=$2
	shift 2
	printf 'From: poster@example.net\nSubject: hi\n\nhello\n' |
		"$MJ_ENQUEUE" -C "$CONF" -d "$d" -l "$l" -r -f poster@example.net "$@"
}

@test "the spool is closed to others: directories 0750, files 0640, whatever the umask" {
	local port
	port=$(free_port)
	printf '#!/bin/sh\nexit 67\n' >"$BATS_TEST_TMPDIR/nouser"
	chmod +x "$BATS_TEST_TMPDIR/nouser"
	mjq_setup <<-EOF
		[transport_map]
		d.test = smtp:[127.0.0.1]:$port
		b.test = pipe:$BATS_TEST_TMPDIR/nouser
		ex.org = smtp:[127.0.0.1]:$port
		users.test = discard:
	EOF
	rm -rf "$SPOOL"
	umask 000
	# The server makes the tree; a message deferred keeps its state file,
	# one bounced makes a DSN (generated mail), a loop goes to BAD/, a
	# request leaves a token.
	queueserv_start
	queueserv_stop
	mjq_list ex.org l a@d.test b@b.test
	# a DSN of the post, not the runner's own judging (bounce_judge)
	printf '[list]\nbounce_judge = no\n' >>"$LISTS/ex.org/l/config"
	post ex.org l
	printf 'List-Id: <l.ex.org>\nSubject: loop\n\nx\n' |
		"$MJ_ENQUEUE" -C "$CONF" -d ex.org -l l -r -f poster@example.net
	# A subscription request leaves its token under state/.
	printf 'From: ann@users.test\nSubject: x\n\nsubscribe l\n' |
		"$MJ_ENQUEUE" -C "$CONF" -d ex.org -m -f ann@users.test
	runq
	umask 022
	# every kind of file is there to be checked
	[ "$(find "$SPOOL/QUEUE" -type f -path '*/list/*' ! -name '.*' | wc -l)" -eq 1 ]
	[ "$(find "$SPOOL/QUEUE" -type f -path '*/list/.*' | wc -l)" -eq 1 ]
	[ "$(find "$SPOOL/QUEUE" -type f -path '*/owner/*' ! -name '.*' | wc -l)" -eq 1 ]
	[ "$(find "$SPOOL/BAD" -type f -name '.*.why' | wc -l)" -eq 1 ]
	[ "$(find "$SPOOL/BAD" -type f ! -name '.*' | wc -l)" -eq 1 ]
	[ "$(find "$SPOOL/state" -type f -path '*/tokens/*' | wc -l)" -eq 1 ]
	for d in "" /QUEUE /tmp /HOLD /BAD /state; do
		[ "$(stat -c %a "$SPOOL$d")" = 750 ]
	done
	run find "$SPOOL" -type d ! -perm 0750
	[ "$output" = "" ]
	run find "$SPOOL" -type f ! -perm 0640
	[ "$output" = "" ]
	run find "$SPOOL" -perm /o=rwx
	[ "$output" = "" ]
}

@test "queueserv.sock gets socket_mode and socket_group; the mode decides who connects, the uid who controls" {
	need_root
	user_programs
	TGROUP=mjqsg$$
	TUSER=mjqsu$$
	groupadd "$TGROUP"
	useradd -M -N -g nogroup -G "$TGROUP" -s /usr/sbin/nologin "$TUSER"
	mjq_setup <<-EOF
		[queueserv]
		socket_group = $TGROUP
		socket_mode = 0660
	EOF
	# The member may traverse the spool (its group), as the MTA's user
	# would; others may not even do that.
	chgrp "$TGROUP" "$SPOOL"
	chmod 0750 "$SPOOL"
	chmod o+r "$CONF"
	open_path "$BATS_TEST_TMPDIR"
	queueserv_start
	[ "$(stat -c '%a %G' "$SPOOL/queueserv.sock")" = "660 $TGROUP" ]
	run -0 runuser -u "$TUSER" -- "$MJ_QUEUESERV" -C "$CONF" status
	[[ "$output" == *runners* ]]
	# May poke and ask, may not stop, reload or flush: only root and the
	# server's user may.
	for verb in stop reload flush; do
		run -1 runuser -u "$TUSER" -- "$MJ_QUEUESERV" -C "$CONF" "$verb"
		[[ "$output" == *"not allowed"* ]]
	done
	alive "$QS_PID"
	grep -q "control request refused to uid $(id -u "$TUSER")" "$QS_LOG"
	run -0 "$MJ_QUEUESERV" -C "$CONF" flush
	queueserv_stop
	# The same member, the socket 0600: refused.
	sed -i 's/^socket_mode = .*/socket_mode = 0600/' "$CONF"
	queueserv_start
	[ "$(stat -c '%a %G' "$SPOOL/queueserv.sock")" = "600 $TGROUP" ]
	run -77 runuser -u "$TUSER" -- "$MJ_QUEUESERV" -C "$CONF" status
	[ "$output" = "mj_queueserv: permission denied: this user may not connect to $SPOOL/queueserv.sock (socket_mode, socket_group)" ]
	queueserv_stop
	# No socket_group: the group stays the server's own.
	sed -i "/^socket_group = /d; s/^socket_mode = .*/socket_mode = 0620/" "$CONF"
	queueserv_start
	[ "$(stat -c '%a %G' "$SPOOL/queueserv.sock")" = "620 $(id -gn)" ]
}

@test "started as root, mj_queueserv and its runners run as [queueserv] user" {
	need_root
	user_programs
	TUSER=mjqru$$
	useradd -M -U -s /usr/sbin/nologin "$TUSER"
	mjq_setup <<-EOF
		[queueserv]
		user = $TUSER
		min_runners = 1
	EOF
	chmod o+r "$CONF"
	chmod -R o+rX "$LISTS"
	open_path "$BATS_TEST_TMPDIR"
	uid=$(id -u "$TUSER")
	queueserv_start
	wait_for 10 eval '[ -n "$(pgrep -P "$QS_PID" -x mj_queuerun)" ]'
	[ "$(ps -o uid= -p "$QS_PID" | tr -d ' ')" = "$uid" ]
	for p in $(pgrep -P "$QS_PID" -x mj_queuerun); do
		[ "$(ps -o uid= -p "$p" | tr -d ' ')" = "$uid" ]
		[ "$(ps -o gid= -p "$p" | tr -d ' ')" = "$(id -g "$TUSER")" ]
	done
	# The spool's top directories became the user's, so it can work there.
	[ "$(stat -c %U "$SPOOL")" = "$TUSER" ]
	[ "$(stat -c %U "$SPOOL/QUEUE")" = "$TUSER" ]
	[ "$(stat -c %U "$SPOOL/tmp")" = "$TUSER" ]
	# It does work there: a post is delivered by the unprivileged runner.
	mjq_list ex.org l x@d.test
	chmod -R o+rX "$LISTS"
	printf '[transport_map]\nd.test = discard:\n' >>"$CONF"
	# -C makes mj_enqueue write as root: give the message to the user,
	# as the MTA running mj_enqueue as the mjq user would.
	runuser -u "$TUSER" -- "$MJ_ENQUEUE" -C "$CONF" -d ex.org -l l -r \
		-f poster@example.net <<<$'Subject: s\n\nbody'
	wait_for 20 eval '[ -z "$(queue_files)" ]'
}

@test "the pipe transport passes hostile addresses verbatim, one argv element each, through no shell" {
	local rcpt sender
	# A recipient and a sender made of shell syntax; a shell would run
	# the touch, split at ; and |, or expand ${sender} and $HOME.  The
	# recipient is a valid address (RFC 5321 atext holds ` $ { } | & *),
	# as every subscriber must be: the pipe transport still sees it.
	rcpt='x|touch${IFS}'$BATS_TEST_TMPDIR'/pwned1&`touch${IFS}'$BATS_TEST_TMPDIR'/pwned2`|y&${sender}$HOME*@d.test'
	sender='s$(touch${IFS}'$BATS_TEST_TMPDIR'/pwned3);z|&2@evil.test'
	cat >"$BATS_TEST_TMPDIR/deliver" <<-EOF
		#!/bin/sh
		for a in "\$@"; do printf '%s\n' "\$a"; done >>"$BATS_TEST_TMPDIR/args"
		printf '%s\n' "\$#" >>"$BATS_TEST_TMPDIR/argc"
		cat >/dev/null
	EOF
	chmod +x "$BATS_TEST_TMPDIR/deliver"
	mjq_setup <<-EOF
		[transport_map]
		d.test = pipe:$BATS_TEST_TMPDIR/deliver \${sender} \${recipient}
	EOF
	mjq_list ex.org l "$rcpt"
	printf '[list]\nowners = %s\n' "$rcpt" >>"$LISTS/ex.org/l/config"
	post ex.org l
	# Owner mail keeps the original sender: the hostile one.
	printf 'Subject: to the owner\n\nhi\n' |
		"$MJ_ENQUEUE" -C "$CONF" -d ex.org -l l -o -f "$sender"
	runq
	[ "$(cat "$BATS_TEST_TMPDIR/argc")" = $'2\n2' ]
	grep -qxF "l-owner@ex.org" "$BATS_TEST_TMPDIR/args"
	grep -qxF "$sender" "$BATS_TEST_TMPDIR/args"
	[ "$(grep -cxF "$rcpt" "$BATS_TEST_TMPDIR/args")" -eq 2 ]
	[ ! -e "$BATS_TEST_TMPDIR/pwned1" ]
	[ ! -e "$BATS_TEST_TMPDIR/pwned2" ]
	[ ! -e "$BATS_TEST_TMPDIR/pwned3" ]
	[ "$(grep -c 'relay=pipe, .*status=sent' "$BATS_TEST_TMPDIR/run.log")" -eq 2 ]
}

@test "addresses from mail never lead a maildir path out of its root" {
	request_setup # every address to its maildir $MAIL/<address>
	mkdir -p "$MAIL"
	# the first four are no addresses (name_addr_check: a dot at an
	# end, two in a row), skipped by the subscribers reader; the last
	# three are valid, and the maildir transport refuses them itself
	mjq_list ex.org l ok@d.test '../../escaped@d.test' '..@d.test' \
		'a/../../../escaped2@d.test' '.hidden@d.test' \
		'a/escaped3@d.test' 'x/y/escaped4@d.test' 'a/.hidden@d.test'
	post ex.org l
	runq
	[ "$(find "$MAIL/ok@d.test/new" -type f | wc -l)" -eq 1 ]
	# Nothing was made anywhere but under $MAIL/ok@d.test.
	run find "$BATS_TEST_TMPDIR" -name '*escaped*' -o -name '.hidden*'
	[ "$output" = "" ]
	[ "$(ls -A "$MAIL")" = "ok@d.test" ]
	[ "$(grep -c 'invalid address skipped' "$RUNLOG")" -eq 4 ]
	[ "$(grep -c 'unusable maildir path' "$RUNLOG")" -eq 3 ]
}

@test "list names and tokens from requests never reach a path unchecked" {
	request_setup # every address to its maildir $MAIL/<address>
	mjq_list example.org mylist
	mkdir -p "$BATS_TEST_TMPDIR/evil"
	: >"$BATS_TEST_TMPDIR/evil/subscribers"
	# One message per command: a reply stops reading after a few bad ones.
	for cmd in 'lists' 'subscribe ../../evil' 'who ../../evil' 'info ..' \
		'unsubscribe ../mylist' 'confirm ../../../../../etc/passwd' \
		'confirm ..' 'who mylist/../../../evil'; do
		printf 'From: ann@users.test\nSubject: x\n\n%s\n' "$cmd" |
			"$MJ_ENQUEUE" -C "$CONF" -d example.org -m -f ann@users.test
	done
	# Every file the runner names is checked from outside: none with a
	# "..", none outside the spool, the lists and the maildirs.
	ASAN_OPTIONS=detect_leaks=0 strace -f -qq -o "$BATS_TEST_TMPDIR/trace" \
		-e trace=%file timeout 60 "$MJ_QUEUERUN" -C "$CONF" -1 \
		2>>"$BATS_TEST_TMPDIR/run.log"
	[ "$(find "$MAIL/ann@users.test/new" -type f | wc -l)" -eq 8 ]
	[ "$(grep -l '^malformed list name' "$MAIL/ann@users.test/new"/* | wc -l)" -eq 5 ]
	# The trace does hold the runner's file names (the lists it read).
	grep -qF "\"$LISTS/example.org" "$BATS_TEST_TMPDIR/trace"
	run grep -E '"[^"]*\.\./[^"]*"|"[^"]*/\.\."' "$BATS_TEST_TMPDIR/trace"
	[ "$output" = "" ]
	run grep -F "$BATS_TEST_TMPDIR/evil" "$BATS_TEST_TMPDIR/trace"
	[ "$output" = "" ]
	[ ! -s "$BATS_TEST_TMPDIR/evil/subscribers" ]
	[ "$(cat "$LISTS/example.org/mylist/subscribers")" = "" ]
}

@test "mj_enqueue refuses hostile names in every argument that becomes a path" {
	mjq_setup </dev/null
	mjq_list example.org mylist
	local bad
	for bad in ../x x/y .x 'a b' '' "$(printf 'a\nb')" ..; do
		run -64 "$MJ_ENQUEUE" -C "$CONF" -d "$bad" -l mylist -r <<<"x"
		run -64 "$MJ_ENQUEUE" -C "$CONF" -d example.org -l "$bad" -r <<<"x"
		run -64 "$MJ_ENQUEUE" -C "$CONF" -d example.org -l mylist -x "$bad" <<<"x"
		run -64 "$MJ_ENQUEUE" -C "$CONF" -d example.org -l mylist -c "$bad" <<<"x"
	done
	# qmail's local part: a hostile one is no list (67) or bad (64),
	# never a path
	run "$MJ_ENQUEUE" -C "$CONF" -d example.org -Q "../../x" <<<"x"
	[ "$status" -eq 64 ] || [ "$status" -eq 67 ]
	[ -z "$(queue_files)" ]
	[ -z "$(ls -A "$SPOOL/tmp")" ]
	run find "$BATS_TEST_TMPDIR" -name x -o -name y
	[ "$output" = "" ]
}
