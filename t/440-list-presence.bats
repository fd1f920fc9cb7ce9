#!/usr/bin/env bats
# t/440-list-presence.bats - a post already queued while its list cannot
# be read (the lists directory not mounted yet, a list directory or its
# subscribers file gone in a restore or a move) waits untouched with a
# log line, and is delivered in full once the list is back; only a list
# removed on purpose (a "removed" file in its directory) sends the post
# to BAD/ with the reason.  Issue 20, section 1.

bats_require_minimum_version 1.5.0
load helpers
load smtp_helpers

setup() {
	mjq_setup </dev/null
	smtpd_start s
	printf '[transport_map]\nd.test = smtp:[127.0.0.1]:%s\n' "$PORT" >>"$CONF"
	mjq_list ex.org l a@d.test b@d.test c@d.test
	printf 'owners = o@d.test\nsubject_prefix = [l]\n' \
		>>"$LISTS/ex.org/l/config"
}

teardown() {
	servers_stop
}

# post - a post to l@ex.org, queued while the list is there
post() {
	printf 'From: poster@example.net\nSubject: hi\n\nhello\n' |
		"$MJ_ENQUEUE" -C "$CONF" -d ex.org -l l -r -f poster@example.net
}

# untouched - the post is still queued, never expanded, nothing sent
untouched() {
	[ -n "$(queue_files)" ]
	# no state file (a .try may keep the reason for mj_queuerun -l)
	[ -z "$(state_files | grep -v '\.try$')" ]
	[ -z "$(find "$SPOOL" -path '*BAD*' -type f)" ]
	[ ! -s "$BATS_TEST_TMPDIR/s/log" ]
}

# delivered_in_full - once back: the three subscribers got the post,
# with the list's subject prefix (its config was read), once each
delivered_in_full() {
	make_due
	runq
	[ -z "$(queue_files)" ]
	[ "$(sed 's/.* to=//' "$BATS_TEST_TMPDIR/s/log" | sort | tr '\n' ' ')" = \
		"<a@d.test> <b@d.test> <c@d.test> " ]
	grep -q '^Subject: \[l\] hi' $(find "$BATS_TEST_TMPDIR/s/save/new" -type f | head -1)
}

@test "the lists directory missing (not mounted): the post waits untouched, then goes to everyone" {
	post
	mv "$LISTS" "$LISTS.away"
	runq
	untouched
	grep -q "list l@ex.org cannot be read now (lists directory $LISTS: No such file or directory): deferred, left untouched" \
		"$BATS_TEST_TMPDIR/run.log"
	mv "$LISTS.away" "$LISTS"
	delivered_in_full
}

@test "the list's directory missing: the post waits untouched, then goes to everyone" {
	post
	mv "$LISTS/ex.org/l" "$LISTS/ex.org/l.away"
	runq
	untouched
	grep -q "list l@ex.org cannot be read now (list directory $LISTS/ex.org/l/: No such file or directory)" \
		"$BATS_TEST_TMPDIR/run.log"
	mv "$LISTS/ex.org/l.away" "$LISTS/ex.org/l"
	delivered_in_full
}

@test "the list's subscribers file missing: the post waits untouched, then goes to everyone" {
	post
	mv "$LISTS/ex.org/l/subscribers" "$BATS_TEST_TMPDIR/subs.away"
	runq
	untouched
	grep -q "list l@ex.org cannot be read now ($LISTS/ex.org/l/subscribers: No such file or directory)" \
		"$BATS_TEST_TMPDIR/run.log"
	mv "$BATS_TEST_TMPDIR/subs.away" "$LISTS/ex.org/l/subscribers"
	delivered_in_full
}

@test "a post half delivered when the lists directory goes: the rest waits for it (the text needs the list's config), then is delivered" {
	servers_stop
	post
	runq # the server is down: expanded, all deferred
	[ -n "$(state_files)" ]
	mv "$LISTS" "$LISTS.away"
	smtpd_start s --port "$PORT"
	make_due
	runq
	[ -n "$(queue_files)" ]
	[ ! -s "$BATS_TEST_TMPDIR/s/log" ]
	grep -q 'cannot be read now' "$BATS_TEST_TMPDIR/run.log"
	mv "$LISTS.away" "$LISTS"
	delivered_in_full
}

@test "owner mail while the lists directory is missing waits; it is not taken for a list without owners" {
	printf 'From: x@example.net\nSubject: to the owner\n\nhi\n' |
		"$MJ_ENQUEUE" -C "$CONF" -d ex.org -l l -o -f x@example.net
	mv "$LISTS" "$LISTS.away"
	runq
	untouched
	mv "$LISTS.away" "$LISTS"
	make_due
	runq
	[ -z "$(queue_files)" ]
	grep -q 'to=<o@d.test>' "$BATS_TEST_TMPDIR/s/log"
}

@test "a list removed on purpose (a removed file in its directory): the post goes to BAD/ with the reason" {
	post
	rm "$LISTS/ex.org/l/subscribers"
	echo "closed by the board on 2026-11-20" >"$LISTS/ex.org/l/removed"
	runq
	[ -z "$(queue_files)" ]
	[ ! -s "$BATS_TEST_TMPDIR/s/log" ]
	[ "$(cat "$(find "$SPOOL/BAD" -name '.*.why')")" = \
		"list l@ex.org was removed: closed by the board on 2026-11-20" ]
}
