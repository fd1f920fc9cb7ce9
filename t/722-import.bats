#!/usr/bin/env bats
# mjq-import from a list Debian's real mlmmj made (mlmmj-make-ml answered
# non-interactively, members subscribed by mlmmj-sub in three modes,
# control files as its TUNABLES describe them): the mjq list it makes
# has the members with their modes and the settings mapped; a post
# through mj_enqueue and the runner reaches over SMTP exactly the
# members whose mode is each.  Tagged slow: 1000 mlmmj-sub runs.
# slow: 1000 mlmmj-sub runs to make the peer list

load helpers
load smtp_helpers
load request_helpers

bats_require_minimum_version 1.5.0

IMPORT=$TOP/scripts/mjq-import
MEMBERS=$TOP/members/mjq-members

setup() {
	[ -x /usr/bin/mlmmj-sub ] || skip "mlmmj is not installed (sh dev/deps.sh bench)"
	mjq_setup </dev/null
	smtpd_start users
	printf '[transport_map]\n* = smtp:[127.0.0.1]:%s\n' "$PORT" >>"$CONF"
	SLOG=$BATS_TEST_TMPDIR/users/log
	SAVE=$BATS_TEST_TMPDIR/users/save/new
	RUNLOG=$BATS_TEST_TMPDIR/run.log
	ML=$BATS_TEST_TMPDIR/mlmmj/test
	mkdir -p "$BATS_TEST_TMPDIR/mlmmj"
	printf 'example.org\nowner@users.test\n\n' |
		/usr/bin/mlmmj-make-ml -L test -s "$BATS_TEST_TMPDIR/mlmmj" >/dev/null
}

teardown() {
	stop_everything
}

# mlmmj_sub FLAGS FROM TO - mlmmj-sub each of eFROM..eTO (-d: d, -n: n)
mlmmj_sub() {
	local i p=e
	[ "$1" = -d ] && p=d
	[ "$1" = -n ] && p=n
	for i in $(seq "$2" "$3"); do
		/usr/bin/mlmmj-sub -L "$ML" -a "$p$i@users.test" $1 -f -q -s -U || return 1
	done
}

# import - mjq-import of the mlmmj list into mylist@example.org
import() {
	"$IMPORT" -C "$CONF" -e "$MJ_ENQUEUE" -m "$MEMBERS" \
		-n "$TOP/scripts/mjq-newlist" mlmmj "$ML" example.org mylist
}

# bats test_tags=slow
@test "slow: an mlmmj list of 1000 members in three modes, a moderator, a prefix, a Reply-To and a footer: imported, the report names each setting, a post reaches exactly the members whose mode is each" {
	mlmmj_sub "" 1 600
	mlmmj_sub -d 1 200
	mlmmj_sub -n 1 200
	printf 'mod@users.test\n' >"$ML/control/moderators"
	: >"$ML/control/subonlypost"
	: >"$ML/control/modnonsubposts"
	printf '[test]\n' >"$ML/control/prefix"
	printf 'Reply-To: Test list <mylist@example.org>\nX-Extra: 1\n' >"$ML/control/customheaders"
	printf -- '-- \nThe test list footer\n' >"$ML/control/footer"
	: >"$ML/control/notmetoo"
	run -0 --separate-stderr import
	echo "$stderr"
	# the alias lines of mjq-newlist on stdout
	grep -q '^mylist: ' <<<"$output"
	# the report: each setting and where it went, or that it did not
	grep -qx 'mjq-import: owners: control/owner -> owners' <<<"$stderr"
	grep -qx 'mjq-import: control/subonlypost -> posting = subscribers' <<<"$stderr"
	grep -q '^mjq-import: .* -> nonmember_action = hold$' <<<"$stderr"
	grep -qx 'mjq-import: control/moderators -> moderators = mod@users.test' <<<"$stderr"
	grep -qx 'mjq-import: control/prefix -> subject_prefix = \[test\]' <<<"$stderr"
	grep -qx 'mjq-import: control/customheaders Reply-To -> reply_to = mylist@example.org' <<<"$stderr"
	grep -qx 'mjq-import: not carried over: control/customheaders "X-Extra: 1"' <<<"$stderr"
	grep -q '^mjq-import: not carried over: control/footer ' <<<"$stderr"
	grep -qx 'mjq-import: not carried over: control/notmetoo' <<<"$stderr"
	grep -qx 'mjq-import: members: subscribers.d/ (600 lines) -> mode each' <<<"$stderr"
	grep -qx 'mjq-import: members: digesters.d/ (200 lines) -> mode digest' <<<"$stderr"
	grep -qx 'mjq-import: members: nomailsubs.d/ (200 lines) -> mode nomail' <<<"$stderr"
	# the members and their modes
	run -0 "$MEMBERS" -C "$CONF" mylist@example.org list
	[ "${#lines[@]}" -eq 1000 ]
	[ "$(grep -c '^e[0-9]*@users.test$' <<<"$output")" -eq 600 ]
	[ "$(grep -c '^d[0-9]*@users.test digest$' <<<"$output")" -eq 200 ]
	[ "$(grep -c '^n[0-9]*@users.test nomail$' <<<"$output")" -eq 200 ]
	# a subscriber's post goes to the 600 each members only, prefixed,
	# with the Reply-To
	printf 'From: <e7@users.test>\nSubject: hello\nMessage-Id: <imp1@users.test>\n\nfirst post\n' |
		"$MJ_ENQUEUE" -C "$CONF" -d example.org -l mylist -r -f e7@users.test
	runq
	[ "$(grep -c 'to=<e[0-9]*@users.test>$' "$SLOG")" -eq 600 ]
	[ "$(grep -c 'to=<[dn][0-9]*@users.test>$' "$SLOG")" -eq 0 ]
	mail_to e1@users.test | grep -qx 'Subject: \[test\] hello'
	mail_to e1@users.test | grep -qix 'Reply-To: <\?mylist@example.org>\?'
	# a non-member's post is held for the moderator (modnonsubposts)
	printf 'From: <stranger@users.test>\nSubject: hi\n\nx\n' |
		"$MJ_ENQUEUE" -C "$CONF" -d example.org -l mylist -r -f stranger@users.test
	runq
	[ "$(got mod@users.test)" -eq 1 ]
	[ "$(find "$SPOOL/HOLD" -type f ! -name '.*' | wc -l)" -eq 1 ]
}

@test "a directory that is not an mlmmj list, or one without an owner, is refused and nothing is made" {
	run -1 "$IMPORT" -C "$CONF" -m "$MEMBERS" -n "$TOP/scripts/mjq-newlist" mlmmj "$BATS_TEST_TMPDIR" example.org mylist
	[[ "$output" == *"no control/ directory: not an mlmmj list"* ]]
	: >"$ML/control/owner"
	run -1 "$IMPORT" -C "$CONF" -m "$MEMBERS" -n "$TOP/scripts/mjq-newlist" mlmmj "$ML" example.org mylist
	[[ "$output" == *"no owner"* ]]
	[ ! -e "$LISTS/example.org/mylist" ]
	run -64 "$IMPORT" -C "$CONF" mailman3 "$ML" example.org mylist
}
