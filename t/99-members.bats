#!/usr/bin/env bats
# mjq-members: a list owner's bulk add, remove, list and set-mode, on a
# real list directory under the subscribers lock; its welcome goes
# through the spool and the runner to mj_testsmtpd over SMTP.

load helpers
load smtp_helpers
load request_helpers

bats_require_minimum_version 1.5.0

MEMBERS=$TOP/members/mjq-members
MJ_MEASURE=$TOP/t/tools/mj_measure

setup() {
	mjq_setup </dev/null
	mjq_list example.org mylist a@users.test
	printf '[list]\nowners = boss@users.test\n' >"$LISTS/example.org/mylist/config"
	SUBS=$LISTS/example.org/mylist/subscribers
	RUNLOG=$BATS_TEST_TMPDIR/run.log
}

teardown() {
	stop_everything ${BG_PIDS:-}
}

# members ARG... - mjq-members on this test's configuration
members() {
	"$MEMBERS" -C "$CONF" "$@"
}

# sent ADDR - how many messages the test server accepted for ADDR
sent() {
	grep -c "to=<$1>\$" "$BATS_TEST_TMPDIR/users/log" || true
}

# greeted SUBJECT LINE ADDR... - each ADDR got one message, with that
# Subject and that line in its body
greeted() {
	local subject=$1 line=$2 a id
	shift 2
	for a in "$@"; do
		[ "$(sent "$a")" -eq 1 ] || { echo "$a: $(sent "$a") messages" >&2; return 1; }
		id=$(grep "to=<$a>\$" "$BATS_TEST_TMPDIR/users/log" | cut -d' ' -f2)
		tr -d '\r' <"$BATS_TEST_TMPDIR/users/save/new/$id" >"$BATS_TEST_TMPDIR/got"
		grep -qx "Subject: $subject" "$BATS_TEST_TMPDIR/got"
		grep -qx "$line" "$BATS_TEST_TMPDIR/got"
	done
}

@test "add, remove, set-mode and list: the summary, the file kept byte for byte around the lines concerned" {
	printf '# the owners keep notes here\na@users.test\nB@users.test digest # since 2019\n' >"$SUBS"
	run -0 members mylist@example.org add <<-EOF
	c@users.test
	  b@users.test
	# a comment, and a blank line

	d@other.test
	c@users.test
	EOF
	[ "$output" = "mylist@example.org: 2 added, 2 already there, 0 invalid, 0 banned" ]
	[ "$(cat "$SUBS")" = $'# the owners keep notes here\na@users.test\nB@users.test digest # since 2019\nc@users.test\nd@other.test' ]
	run -0 members mylist@example.org set-mode nomail <<<$'c@users.test\nd@other.test'
	[ "$output" = "mylist@example.org: 2 set to nomail, 0 already nomail, 0 not subscribed, 0 invalid" ]
	run -0 members mylist@example.org set-mode digest <<<'b@users.test'
	[ "$output" = "mylist@example.org: 0 set to digest, 1 already digest, 0 not subscribed, 0 invalid" ]
	grep -qx 'B@users.test digest # since 2019' "$SUBS"
	run -1 --separate-stderr members mylist@example.org remove <<<$'a@users.test\nnobody@users.test\nD@OTHER.TEST'
	[ "$output" = "mylist@example.org: 2 removed, 1 not subscribed, 0 invalid" ]
	[ "$stderr" = "mjq-members: stdin line 2: <nobody@users.test> is not subscribed" ]
	run -0 members mylist@example.org list
	[ "$output" = $'B@users.test digest\nc@users.test nomail' ]
	[ "$(cat "$SUBS")" = $'# the owners keep notes here\nB@users.test digest # since 2019\nc@users.test nomail' ]
}

@test "invalid lines are reported with their line number and the address grammar's reason; the others are done" {
	printf 'ok1@users.test\nnot an address\n<angle@users.test>\nhash#x@users.test\nnoat.users.test\nok2@users.test\n' >"$BATS_TEST_TMPDIR/in"
	run -1 --separate-stderr members -f "$BATS_TEST_TMPDIR/in" mylist@example.org add
	[ "$output" = "mylist@example.org: 2 added, 0 already there, 4 invalid, 0 banned" ]
	[ "$(wc -l <<<"$stderr")" -eq 4 ]
	grep -q "^mjq-members: $BATS_TEST_TMPDIR/in line 2: \"not an address\": " <<<"$stderr"
	grep -q "^mjq-members: $BATS_TEST_TMPDIR/in line 3: \"<angle@users.test>\": " <<<"$stderr"
	grep -q "^mjq-members: $BATS_TEST_TMPDIR/in line 4: \"hash#x@users.test\": " <<<"$stderr"
	grep -q "^mjq-members: $BATS_TEST_TMPDIR/in line 5: \"noat.users.test\": " <<<"$stderr"
	[ "$(cat "$SUBS")" = $'a@users.test\nok1@users.test\nok2@users.test' ]
	# usage, a missing list, a missing file: exact codes, nothing changed
	run -64 members mylist@example.org frobnicate </dev/null
	run -64 members mylist@example.org set-mode sometimes </dev/null
	run -64 members mylist add </dev/null
	run -67 members nosuch@example.org add </dev/null
	run -66 members -f "$BATS_TEST_TMPDIR/none" mylist@example.org add
	[ "$(cat "$SUBS")" = $'a@users.test\nok1@users.test\nok2@users.test' ]
}

@test "a dry run reports what would be done and changes nothing" {
	printf 'a@users.test\nb@users.test digest\n' >"$SUBS"
	before=$(stat -c '%i %Y %s' "$SUBS")
	run -0 members -n mylist@example.org add <<<'c@users.test'
	[ "$output" = "mylist@example.org: 1 would be added, 0 already there, 0 invalid, 0 banned (dry run: nothing changed)" ]
	run -0 members --dry-run mylist@example.org remove <<<'a@users.test'
	[ "$output" = "mylist@example.org: 1 would be removed, 0 not subscribed, 0 invalid (dry run: nothing changed)" ]
	run -0 members -n mylist@example.org set-mode nomail <<<'b@users.test'
	[ "$output" = "mylist@example.org: 1 would be set to nomail, 0 already nomail, 0 not subscribed, 0 invalid (dry run: nothing changed)" ]
	[ "$(stat -c '%i %Y %s' "$SUBS")" = "$before" ]
	[ "$(cat "$SUBS")" = $'a@users.test\nb@users.test digest' ]
	[ ! -e "$SUBS.tmp" ]
}

@test "bans apply to add: the list's and the server's, reported with their line" {
	printf '@spam.test\n' >"$LISTS/example.org/mylist/bans"
	printf '^bot[0-9]+@\n' >"$BATS_TEST_TMPDIR/global-bans"
	printf '[lists]\nbans_file = %s\n' "$BATS_TEST_TMPDIR/global-bans" >>"$CONF"
	run -1 --separate-stderr members mylist@example.org add <<<$'x@spam.test\nbot7@users.test\nhuman@users.test'
	[ "$output" = "mylist@example.org: 1 added, 0 already there, 0 invalid, 2 banned" ]
	[ "$stderr" = $'mjq-members: stdin line 1: <x@spam.test> is banned (@spam.test)\nmjq-members: stdin line 2: <bot7@users.test> is banned (^bot[0-9]+@)' ]
	[ "$(cat "$SUBS")" = $'a@users.test\nhuman@users.test' ]
}

@test "--welcome queues one welcome through the spool; the runner delivers it over SMTP to the addresses added, not to those already there" {
	smtpd_start users
	printf '[transport_map]\n* = smtp:[127.0.0.1]:%s\n' "$PORT" >>"$CONF"
	printf 'Hello and welcome to the test list.\n' >"$LISTS/example.org/mylist/welcome"
	run -0 members --welcome mylist@example.org add <<<$'a@users.test\nn1@users.test\nn2@users.test'
	[ "$output" = "mylist@example.org: 2 added, 1 already there, 0 invalid, 0 banned, 2 welcomed" ]
	[ "$(queue_files | wc -l)" -eq 1 ]
	runq
	greeted 'Welcome to mylist@example.org' 'Hello and welcome to the test list.' n1@users.test n2@users.test
	[ "$(sent a@users.test)" -eq 0 ]
	[ -z "$(queue_files)" ]
	# --no-welcome (the default): nothing queued
	run -0 members --no-welcome mylist@example.org add <<<'n3@users.test'
	run -0 members mylist@example.org add <<<'n4@users.test'
	[ -z "$(queue_files)" ]
}

@test "remove notes each address removed in subscribers.since with its time, as an unsubscribe does (what binds one-click links to a subscription); aged lines go; a dry run notes nothing" {
	printf 'a@users.test\nb@users.test digest\nc@users.test\n' >"$SUBS"
	printf 'old@users.test 1\nc@users.test %s\n' "$(date +%s)" >"$SUBS.since"
	local orig
	orig=$(cat "$SUBS.since")
	run -0 members -n mylist@example.org remove <<<'a@users.test'
	[ "$(cat "$SUBS.since")" = "$orig" ]
	local before after
	before=$(date +%s)
	run -1 --separate-stderr members mylist@example.org remove <<<$'a@users.test\nB@users.test\nnot@users.test'
	after=$(date +%s)
	[ "$output" = "mylist@example.org: 2 removed, 1 not subscribed, 0 invalid" ]
	cat "$SUBS.since"
	# the aged line dropped, c's kept, one line for each address removed
	[ "$(cut -d' ' -f1 "$SUBS.since" | tr '\n' ' ')" = "c@users.test a@users.test B@users.test " ]
	local t
	for t in $(awk '$1 != "c@users.test" {print $2}' "$SUBS.since"); do
		[ "$t" -ge "$before" ] && [ "$t" -le "$after" ]
	done
}

@test "--goodbye queues the list's goodbye to the addresses removed, not to those that were not on; --no-goodbye (the default) sends nothing" {
	smtpd_start users
	printf '[transport_map]\n* = smtp:[127.0.0.1]:%s\n' "$PORT" >>"$CONF"
	printf 'a@users.test\nb@users.test\nc@users.test\n' >"$SUBS"
	printf 'Farewell from the test list.\n' >"$LISTS/example.org/mylist/goodbye"
	run -1 --separate-stderr members --goodbye mylist@example.org remove <<<$'a@users.test\nb@users.test\nnot@users.test'
	[ "$output" = "mylist@example.org: 2 removed, 1 not subscribed, 0 invalid, 2 sent the goodbye" ]
	[ "$(queue_files | wc -l)" -eq 1 ]
	runq
	greeted 'Goodbye from mylist@example.org' 'Farewell from the test list.' a@users.test b@users.test
	[ "$(sent not@users.test)" -eq 0 ]
	[ -z "$(queue_files)" ]
	# --no-goodbye, and the default: nothing queued
	run -0 members --no-goodbye mylist@example.org remove <<<'c@users.test'
	[ "$output" = "mylist@example.org: 1 removed, 0 not subscribed, 0 invalid" ]
	echo c@users.test >>"$SUBS"
	run -0 members mylist@example.org remove <<<'c@users.test'
	[ -z "$(queue_files)" ]
}

@test "concurrency: a runner confirming a subscription while mjq-members adds 200,000: both updates kept" {
	MJQ_LIST_POSTING=open
	mkdir -p "$BATS_TEST_TMPDIR/mail"
	printf '[transport_map]\n* = maildir:%s/mail/${recipient}\n' "$BATS_TEST_TMPDIR" >>"$CONF"
	MAIL=$BATS_TEST_TMPDIR/mail
	printf 'From: <ann@users.test>\nSubject: x\n\nsubscribe mylist\n' |
		"$MJ_ENQUEUE" -C "$CONF" -d example.org -l mylist -q -f ann@users.test
	runq
	tok=$(token_of ann@users.test)
	[ ${#tok} -eq 32 ]
	printf 'From: <ann@users.test>\nSubject: x\n\nconfirm %s\n' "$tok" |
		"$MJ_ENQUEUE" -C "$CONF" -d example.org -l mylist -q -f ann@users.test
	seq -f 'bulk%g@users.test' 1 200000 >"$BATS_TEST_TMPDIR/in"
	# both wait for the lock the test holds, then run one after the other
	exec {lockfd}>"$SUBS.lock"
	flock "$lockfd"
	members -f "$BATS_TEST_TMPDIR/in" mylist@example.org add >"$BATS_TEST_TMPDIR/out" 2>&1 &
	mpid=$!
	runq &
	rpid=$!
	BG_PIDS="$mpid $rpid"
	flock -u "$lockfd"
	exec {lockfd}>&-
	wait "$mpid"
	wait "$rpid"
	[ "$(cat "$BATS_TEST_TMPDIR/out")" = "mylist@example.org: 200000 added, 0 already there, 0 invalid, 0 banned" ]
	grep -qx ann@users.test "$SUBS"
	grep -qx a@users.test "$SUBS"
	[ "$(wc -l <"$SUBS")" -eq 200002 ]
	[ "$(sort -u "$SUBS" | wc -l)" -eq 200002 ]
}

@test "1,000,000 addresses added in one pass in bounded memory; a second run finds them all there" {
	seq -f 'member%g@example.net' 1 1000000 >"$BATS_TEST_TMPDIR/in"
	run -0 "$MJ_MEASURE" -n 1 -i "$BATS_TEST_TMPDIR/in" -- "$MEMBERS" -C "$CONF" mylist@example.org add
	echo "$output"
	rss=$(sed -n 's/.*max_rss_kb=\([0-9]*\).*/\1/p' <<<"$output")
	# the set is 16 MB for a million; 64 MB catches a copy of the file
	# or of the addresses in core
	[ "$rss" -lt $((64 * 1024 + SAN_KB)) ]
	grep -q 'failures=0' <<<"$output"
	[ "$(wc -l <"$SUBS")" -eq 1000001 ]
	run -0 members -f "$BATS_TEST_TMPDIR/in" mylist@example.org add
	[ "$output" = "mylist@example.org: 0 added, 1000000 already there, 0 invalid, 0 banned" ]
	run -0 members -f "$BATS_TEST_TMPDIR/in" mylist@example.org remove
	[ "$output" = "mylist@example.org: 1000000 removed, 0 not subscribed, 0 invalid" ]
	[ "$(cat "$SUBS")" = a@users.test ]
}

@test "run as root, mjq-members becomes the list directory's owner: the new file stays the mjq user's" {
	[ "$(id -u)" -eq 0 ] || skip "needs root"
	chown -R nobody:nogroup "$LISTS/example.org/mylist"
	open_path "$LISTS/example.org"
	chmod o+r "$CONF"
	run -0 members mylist@example.org add <<<'new@users.test'
	[ "$(stat -c %U:%G "$SUBS")" = nobody:nogroup ]
	grep -qx new@users.test "$SUBS"
	# a directory nobody can write is refused with the cause, unchanged
	chmod 555 "$LISTS/example.org/mylist"
	run -75 members mylist@example.org add <<<'other@users.test'
	[[ "$output" == *"Permission denied"* ]]
	run -1 grep -q other@users.test "$SUBS"
}
