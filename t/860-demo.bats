#!/usr/bin/env bats
# t/860-demo.bats - the README's first command as a newcomer runs it:
# `make demo` in a fresh git clone, in a private (0700) directory made by
# mktemp -d as .ci/run makes one for the suite.  A clone holds what is
# committed, not the working tree's changes, and no built programs: the
# demo builds them all (about 10 s on two cores, with -j2).
#
# The demo must end with status 0 and show what the README says: a
# subscriber's post delivered to every subscriber, DKIM-signed; a
# stranger's post held, the moderator's notice, the reply that approves
# it, and the post delivered; the spool empty at the end.
# slow: make demo in a fresh clone

load helpers

bats_require_minimum_version 1.5.0

setup() {
	git -C "$TOP" rev-parse --verify -q HEAD >/dev/null ||
		skip "the checkout is not a git repository"
	PRIV=$(mktemp -d)
	[ "$(stat -c %a "$PRIV")" = 700 ]
	git clone -q "$TOP" "$PRIV/mjq"
	DEMO=$PRIV/mjq/demo
}

teardown() {
	local pid
	# the demo stops its server on any exit; should it not have, stop it
	if pid=$(cat "$DEMO/spool/queueserv.pid" 2>/dev/null) &&
		[ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then
		kill "$pid"
	fi
	rm -rf "$PRIV"
}

# copies BOX - how many messages the demo's maildir BOX holds
copies() {
	find "$DEMO/mail/$1/new" -type f | wc -l
}

@test "make demo in a fresh clone: a post delivered to every subscriber, signed; a held post approved by the moderator's reply" {
	cd "$PRIV/mjq"
	# the clone's own build, two jobs, whatever make (if any) runs us
	run timeout 600 env -u MAKELEVEL -u MFLAGS MAKEFLAGS=-j2 nice make demo
	echo "$output" | tail -60
	[ "$status" -eq 0 ]
	# 1. the subscriber's post, delivered and signed
	grep -qx 'delivered: every subscriber and the archive have a copy' <<<"$output"
	grep -qx 'DKIM-Signature: v=1; a=rsa-sha256; c=relaxed/relaxed; d=demo.example;' <<<"$output"
	grep -qx 'Subject: \[announce\] Hello from the mjq demo' <<<"$output"
	grep -qx 'List-Id: <announce.demo.example>' <<<"$output"
	if /usr/bin/python3 -c 'import dkim' 2>/dev/null; then
		grep -qx 'pass a=rsa-sha256 s=mjq d=demo.example' <<<"$output"
	fi
	# 2. the stranger's post: held, the notice, the reply, delivered
	grep -q '^HOLD/10/demo.example/10/list/.* next=held why=moderation: <stranger@elsewhere.demo> is not a subscriber (posting = subscribers)$' <<<"$output"
	grep -qx 'From: <announce-request@demo.example>' <<<"$output"
	grep -q '^Subject: Re: approve [0-9a-f]\{32\}$' <<<"$output"
	grep -q 'held post .* to announce@demo.example approved by <owner@demo.example>$' <<<"$output"
	grep -qx 'delivered: every subscriber and the archive have a second copy' <<<"$output"
	grep -qx 'Subject: \[announce\] May I join in?' <<<"$output"
	grep -q '^The post .* to announce@demo.example was approved\.$' <<<"$output"
	grep -qx '0 messages' <<<"$output"
	# 3. the web archive: the Archived-At of bob's copy is its page
	at=$(sed -n 's|^Archived-At of bob.s copy: file://||p' <<<"$output")
	[ "$at" = "$DEMO/www/demo.example/announce/msg/join.1@elsewhere.demo/" ]
	grep -q '<h1>May I join in?</h1>' "${at}index.html"
	grep -q 'May I join in?' "$DEMO/www/demo.example/announce/index.html"
	# and the maildirs agree: two posts each, the owner the notice and
	# the answer to the reply; each copy signed by the list's domain
	local box
	for box in alice bob carol dave erin archive owner; do
		[ "$(copies $box)" -eq 2 ]
	done
	[ "$(grep -l '^DKIM-Signature: .*d=demo.example;' "$DEMO"/mail/*/new/* | wc -l)" -eq 14 ]
	[ "$(grep -lx 'A post from outside the list waits for a moderator.' "$DEMO"/mail/bob/new/* | wc -l)" -eq 1 ]
	# nothing left in the spool, and the server stopped
	[ -z "$(find "$DEMO/spool/QUEUE" "$DEMO/spool/HOLD" -type f 2>/dev/null)" ]
	run ! test -S "$DEMO/spool/queueserv.sock"
}
