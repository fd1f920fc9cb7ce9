#!/usr/bin/env bats
# t/520-bigpost.bats - a list of any size in bounded memory: the state file
# is read a buffer at a time, the scheduler holds only its recipient
# limits, failed recipients wait on disk for their bounce, and bounces
# name a bounded number of them each.  Memory is the runner's peak RSS
# (mj_measure), compared between a list and one ten times its size in
# the same run, on open lists and under the default posting policy;
# nothing here is timed.

bats_require_minimum_version 1.5.0
load helpers
load smtp_helpers

# These lists take posts from anyone (helpers.bash), except in the tests
# of the default policy (posting = subscribers), whose membership check
# reads the list too.
# The DSNs of posts are tested here: the runner makes them rather than
# judging its posts' failures itself (bounce_judge, t/730 and t/731).
MJQ_LIST_KEYS='bounce_judge = no'

MJ_MEASURE=$TOP/t/tools/mj_measure

# SAN_KB and SAN_RSS_OPTIONS (helpers.bash) allow for make SAN=1:
# holding 180,000 more recipients would still take well over SAN_KB.

setup() {
	mjq_setup <<-EOF
	[delivery]
	message_recipient_limit = 2000
	recipient_limit = 2000
	EOF
}

teardown() {
	servers_stop
}

# post LIST [FROM [SENDER]] - a post from FROM (p@example.net), its
# envelope sender SENDER (FROM)
post() {
	local from=${2:-p@example.net}
	printf 'From: %s\nSubject: big\n\nhello\n' "$from" |
		"$MJ_ENQUEUE" -C "$CONF" -d ex.org -l "$1" -r -f "${3:-$from}"
}

# subscribers LIST N - a list of N subscribers over 20 domains
subscribers() {
	mkdir -p "$LISTS/ex.org/$1"
	awk -v n="$2" 'BEGIN { for (i = 1; i <= n; i++) printf "u%d@d%d.test\n", i, i % 20 }' \
		>"$LISTS/ex.org/$1/subscribers"
	list_posting ex.org "$1"
}

# last_subscriber N - the last of N subscribers (subscribers), whom a
# reading of the list meets last
last_subscriber() {
	printf 'u%d@d%d.test' "$1" $(($1 % 20))
}

# measured_run TAG - one runner pass under mj_measure; its peak RSS in
# kB is kept in $BATS_TEST_TMPDIR/TAG.rss
measured_run() {
	ASAN_OPTIONS=$SAN_RSS_OPTIONS \
		"$MJ_MEASURE" -n 1 -i /dev/null -- "$MJ_QUEUERUN" -C "$CONF" -1 \
		2>>"$BATS_TEST_TMPDIR/run.log" >"$BATS_TEST_TMPDIR/$1.out"
	sed -n 's/.*max_rss_kb=\([0-9]*\).*/\1/p' "$BATS_TEST_TMPDIR/$1.out" \
		>"$BATS_TEST_TMPDIR/$1.rss"
	[ -s "$BATS_TEST_TMPDIR/$1.rss" ]
}

# revive - the first pass found the server down and marked its
# destinations dead until minimal_backoff_time: forget that (the table is
# runtime state, safe to remove while no runner runs) and make the post
# due
revive() {
	rm -f "$SPOOL/state/destinations"
	make_due
}

# route_to PORT - every d*.test domain to one server
route_to() {
	printf '[transport_map]\n' >>"$CONF"
	for d in $(seq 0 19); do
		printf 'd%d.test = smtp:[127.0.0.1]:%s\n' "$d" "$1" >>"$CONF"
	done
}

# expand_then_deliver LIST N PORT [FROM] - LIST gets N subscribers and a
# post (from FROM); the post is expanded in a first pass while PORT is
# down (all deferred), then delivered in a second pass to a server on
# PORT, each recipient exactly once: the two phases are measured apart,
# their peak RSS in $BATS_TEST_TMPDIR/LIST-expand.rss and LIST-deliver.rss
expand_then_deliver() {
	subscribers "$1" "$2"
	post "$1" "${4:-}"
	measured_run "$1-expand"
	revive
	smtpd_start "$1-sink" --port "$3"
	measured_run "$1-deliver"
	[ "$(wc -l <"$BATS_TEST_TMPDIR/$1-sink/log")" -eq "$2" ]
	[ "$(sed 's/.* to=//' "$BATS_TEST_TMPDIR/$1-sink/log" | sort -u | wc -l)" -eq "$2" ]
	[ -z "$(queue_files)" ]
	servers_stop
}

@test "a post to 200,000 subscribers is expanded and delivered in the memory of one to 20,000" {
	slow "20,000 then 200,000 subscribers, delivered"
	P=$(free_port)
	route_to "$P"
	expand_then_deliver small 20000 "$P"
	expand_then_deliver big 200000 "$P"
	for f in small-expand big-expand small-deliver big-deliver; do
		read -r "${f/-/_}" <"$BATS_TEST_TMPDIR/$f.rss"
	done
	echo "peak RSS kB: expand $small_expand -> $big_expand, deliver $small_deliver -> $big_deliver"
	# Delivery: the same memory within 2 MB for 180,000 more recipients
	# (about 11 bytes each; holding the list would be over 100).
	[ "$big_deliver" -lt $((small_deliver + 2048 + SAN_KB)) ]
	# Expansion: only the repeat check grows, 8 to 16 bytes a subscriber.
	[ "$big_expand" -lt $((small_expand + 180000 * 24 / 1024 + SAN_KB)) ]
}

# held_post LIST N - LIST, under the default posting policy with an
# owner, gets N subscribers and a post from a non-member whose From and
# envelope sender differ (both are looked for); one measured pass holds
# it, its peak RSS in $BATS_TEST_TMPDIR/LIST-held.rss
held_post() {
	subscribers "$1" "$2"
	# its own owner: a notice in each pass, none kept back by the
	# moderator's reply rate limit
	printf '[list]\nowners = boss-%s@ex.org\n' "$1" >>"$LISTS/ex.org/$1/config"
	post "$1" stranger@example.net bounces@spam.example
	# each pass makes the destination table, as the first did
	rm -f "$SPOOL/state/destinations"
	measured_run "$1-held"
	[ "$(find "$SPOOL/HOLD" -type f -name "*-$1" | wc -l)" -eq 1 ]
	grep -q "$1: moved to HOLD: moderation: <stranger@example.net> is not a subscriber (posting = subscribers)" \
		"$BATS_TEST_TMPDIR/run.log"
	grep -q "to=<boss-$1@ex.org>, relay=discard, .*status=sent" "$BATS_TEST_TMPDIR/run.log"
}

@test "default posting policy: a non-member's post to 200,000 subscribers is held in the memory of one to 20,000" {
	MJQ_LIST_POSTING=
	printf '[transport_map]\nex.org = discard:\n' >>"$CONF"
	held_post small 20000
	held_post big 200000
	read -r small <"$BATS_TEST_TMPDIR/small-held.rss"
	read -r big <"$BATS_TEST_TMPDIR/big-held.rss"
	echo "peak RSS kB: held $small -> $big"
	# The subscribers file is read a line at a time, for both
	# addresses at once: nothing is kept per subscriber (holding the
	# list would be over 40 bytes each, 7 MB more).
	[ "$big" -lt $((small + 2048 + SAN_KB)) ]
}

@test "default posting policy: a subscriber's post to 200,000 subscribers is expanded and delivered in the memory of one to 20,000, as on an open list" {
	slow "20,000 then 200,000 subscribers, delivered"
	MJQ_LIST_POSTING=
	P=$(free_port)
	route_to "$P"
	expand_then_deliver small 20000 "$P" "$(last_subscriber 20000)"
	expand_then_deliver big 200000 "$P" "$(last_subscriber 200000)"
	for f in small-expand big-expand small-deliver big-deliver; do
		read -r "${f/-/_}" <"$BATS_TEST_TMPDIR/$f.rss"
	done
	echo "peak RSS kB: expand $small_expand -> $big_expand, deliver $small_deliver -> $big_deliver"
	# The bounds of an open list: the membership check keeps nothing
	# per subscriber, only the snapshot's repeat check grows.
	[ "$big_deliver" -lt $((small_deliver + 2048 + SAN_KB)) ]
	[ "$big_expand" -lt $((small_expand + 180000 * 24 / 1024 + SAN_KB)) ]
}

@test "a pass in which 1,500 recipients fail sends two bounces, of 1,000 and 500, naming each recipient once" {
	smtpd_start s --rcpt 'u*@d.test=550 5.1.1 no such user'
	SPORT=$PORT
	smtpd_start owner
	printf '[transport_map]\nd.test = smtp:[127.0.0.1]:%s\nex.org = smtp:[127.0.0.1]:%s\n' \
		"$SPORT" "$PORT" >>"$CONF"
	mkdir -p "$LISTS/ex.org/l"
	seq 1 1500 | sed 's/.*/u&@d.test/' >"$LISTS/ex.org/l/subscribers"
	list_posting ex.org l
	post l
	runq
	[ "$(grep -c 'status=bounced (550 5.1.1 no such user)' "$BATS_TEST_TMPDIR/run.log")" -eq 1500 ]
	# two bounces to the owner, of bounded size, together naming all
	[ "$(wc -l <"$BATS_TEST_TMPDIR/owner/log")" -eq 2 ]
	cat "$BATS_TEST_TMPDIR"/owner/save/new/* | tr -d '\r' >"$BATS_TEST_TMPDIR/dsns"
	[ "$(grep -c '^Final-Recipient: rfc822; u[0-9]*@d.test$' "$BATS_TEST_TMPDIR/dsns")" -eq 1500 ]
	[ "$(grep '^Final-Recipient: ' "$BATS_TEST_TMPDIR/dsns" | sort -u | wc -l)" -eq 1500 ]
	[ "$(grep -c '^<u[0-9]*@d.test>: smtp; 550 5.1.1 no such user$' "$BATS_TEST_TMPDIR/dsns")" -eq 1500 ]
	for f in "$BATS_TEST_TMPDIR"/owner/save/new/*; do
		n=$(grep -c '^Final-Recipient: ' "$f")
		[ "$n" -eq 1000 ] || [ "$n" -eq 500 ]
	done
	grep -qx '(This is report 1 of 2: each names at most 1000 of the 1500 recipients.)' "$BATS_TEST_TMPDIR/dsns"
	grep -qx '(This is report 2 of 2: each names at most 1000 of the 1500 recipients.)' "$BATS_TEST_TMPDIR/dsns"
	grep -q 'sender non-delivery notification: .* (1000 recipient(s) to <l-owner@ex.org>)' "$BATS_TEST_TMPDIR/run.log"
	grep -q 'sender non-delivery notification: .* (500 recipient(s) to <l-owner@ex.org>)' "$BATS_TEST_TMPDIR/run.log"
	[ -z "$(queue_files)" ]
	# the reasons waited in an unlinked file: nothing is left in tmp/
	[ -z "$(ls -A "$SPOOL/tmp")" ]
}

@test "kill -9 between a recipient's failure and its bounce: the next runner retries it and bounces it once" {
	smtpd_start bad --rcpt 'bad*@b.test=550 5.1.1 no such user'
	BPORT=$PORT
	smtpd_start owner
	OPORT=$PORT
	smtpd_start slow --silent greeting
	SPORT=$PORT
	printf '[transport_map]\nb.test = smtp:[127.0.0.1]:%s\nex.org = smtp:[127.0.0.1]:%s\nslow.test = smtp:[127.0.0.1]:%s\n' \
		"$BPORT" "$OPORT" "$SPORT" >>"$CONF"
	mjq_list ex.org l bad1@b.test bad2@b.test ok@slow.test
	post l
	"$MJ_QUEUERUN" -C "$CONF" -1 2>>"$BATS_TEST_TMPDIR/run.log" &
	RUNNER=$!
	# the two failures are on disk while the runner waits for slow.test
	wait_for 30 eval '[ "$(grep -c "^failed    bad" "$(state_files)" 2>/dev/null)" -eq 2 ]'
	kill -KILL "$RUNNER"
	wait "$RUNNER" || true
	# no bounce was committed: only the post is queued
	[ "$(queue_files | wc -l)" -eq 1 ]
	grep -q '^failed    bad1@b.test$' "$(state_files)"

	# slow.test answers now
	stop_pid "$(cat "$BATS_TEST_TMPDIR/slow/pid")"
	smtpd_start slow2 --port "$SPORT"
	runq
	grep -q '2 failed recipient(s) without their bounce: deferred, to be tried again' \
		"$BATS_TEST_TMPDIR/run.log"
	[ "$(grep -c 'to=<bad1@b.test>.*status=bounced' "$BATS_TEST_TMPDIR/run.log")" -eq 2 ]
	grep -q 'to=<ok@slow.test>' "$BATS_TEST_TMPDIR/slow2/log"
	# exactly one bounce, naming both
	[ "$(wc -l <"$BATS_TEST_TMPDIR/owner/log")" -eq 1 ]
	f=$(find "$BATS_TEST_TMPDIR/owner/save/new" -type f)
	grep -q '^Final-Recipient: rfc822; bad1@b.test' "$f"
	grep -q '^Final-Recipient: rfc822; bad2@b.test' "$f"
	[ -z "$(queue_files)" ]
}

@test "a subscriber whose domain is too long to route is no address: its line skipped with a warning, the others delivered, nothing bounced" {
	smtpd_start s
	printf '[transport_map]\nd.test = smtp:[127.0.0.1]:%s\nex.org = smtp:[127.0.0.1]:%s\n' \
		"$PORT" "$PORT" >>"$CONF"
	# labels of 60 (the address grammar allows 63), 300 in all: longer
	# than a domain name can be (253)
	label=$(printf 'x%.0s' $(seq 1 60))
	long=u@$label.$label.$label.$label.$label.test
	mjq_list ex.org l a@d.test "$long" b@d.test
	post l
	runq
	grep -q 'subscribers:2: invalid address skipped' "$BATS_TEST_TMPDIR/run.log"
	run -1 grep -qF "to=<$long>" "$BATS_TEST_TMPDIR/run.log"
	grep -q 'to=<a@d.test>' "$BATS_TEST_TMPDIR/s/log"
	grep -q 'to=<b@d.test>' "$BATS_TEST_TMPDIR/s/log"
	run -1 grep -l '^Final-Recipient: rfc822; u@xxx' "$BATS_TEST_TMPDIR"/s/save/new/*
	[ -z "$(queue_files)" ]
}
