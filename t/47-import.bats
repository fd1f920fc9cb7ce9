#!/usr/bin/env bats
# mjq-import from a list Debian's real mlmmj made (mlmmj-make-ml answered
# non-interactively, members subscribed by mlmmj-sub in three modes,
# control files as its TUNABLES describe them), and from one Debian's
# real Mailman 3 made (SQLite, run as nobody: t/mailman3_helpers.bash;
# members added by mailman addmembers in three modes, a moderator, the
# settings and a ban set through Mailman's own model, the footer and
# welcome templates where Mailman looks for them): the mjq list it makes
# has the members with their modes and the settings mapped; a post
# through mj_enqueue and the runner reaches over SMTP exactly the
# members whose mode says so (and the digest readers in the next issue),
# and the peer's list is left as it was.  Tagged slow: 1000 mlmmj-sub
# runs, 1000 addresses through mailman addmembers.
# slow: 1000 mlmmj-sub runs and 1000 mailman addmembers to make the peer lists

load helpers
load smtp_helpers
load request_helpers
load mailman3_helpers

bats_require_minimum_version 1.5.0

IMPORT=$TOP/scripts/mjq-import
MEMBERS=$TOP/members/mjq-members

setup() {
	mjq_setup </dev/null
	smtpd_start users
	printf '[transport_map]\n* = smtp:[127.0.0.1]:%s\n' "$PORT" >>"$CONF"
	SLOG=$BATS_TEST_TMPDIR/users/log
	SAVE=$BATS_TEST_TMPDIR/users/save/new
	RUNLOG=$BATS_TEST_TMPDIR/run.log
	ML=$BATS_TEST_TMPDIR/mlmmj/test
}

teardown() {
	stop_everything
	[ -z "${MMDIR:-}" ] || rm -rf "$MMDIR"
}

# reported LINE... - each LINE is a line of mjq-import's report ($stderr)
reported() {
	local l
	for l; do
		grep -qxF "mjq-import: $l" <<<"$stderr" || {
			echo "not in the report: $l"
			return 1
		}
	done
}

# mlmmj_make - the mlmmj list $ML, made by mlmmj-make-ml
mlmmj_make() {
	[ -x /usr/bin/mlmmj-sub ] || skip "mlmmj is not installed (sh scripts/deps.sh test)"
	mkdir -p "$BATS_TEST_TMPDIR/mlmmj"
	printf 'example.org\nowner@users.test\n\n' |
		/usr/bin/mlmmj-make-ml -L test -s "$BATS_TEST_TMPDIR/mlmmj" >/dev/null
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
@test "slow: an mlmmj list of 1000 members in three modes, a moderator, a prefix, a Reply-To and a footer: imported, the report names each setting, a post reaches exactly the members whose mode is each, with the footer" {
	mlmmj_make
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
	reported 'owners: control/owner -> owners' \
		'control/subonlypost -> posting = subscribers'
	grep -q '^mjq-import: .* -> nonmember_action = hold$' <<<"$stderr"
	reported 'control/moderators -> moderators = mod@users.test' \
		'control/prefix -> subject_prefix = [test]' \
		'control/customheaders Reply-To -> reply_to = mylist@example.org' \
		'not carried over: control/customheaders "X-Extra: 1"' \
		'control/footer -> footer' \
		'not carried over: control/notmetoo' \
		'members: subscribers.d/ (600 lines) -> mode each' \
		'members: digesters.d/ (200 lines) -> mode digest' \
		'members: nomailsubs.d/ (200 lines) -> mode nomail'
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
	mail_to e1@users.test | grep -qx 'The test list footer'
	# a non-member's post is held for the moderator (modnonsubposts)
	printf 'From: <stranger@users.test>\nSubject: hi\n\nx\n' |
		"$MJ_ENQUEUE" -C "$CONF" -d example.org -l mylist -r -f stranger@users.test
	runq
	[ "$(got mod@users.test)" -eq 1 ]
	[ "$(find "$SPOOL/HOLD" -type f ! -name '.*' | wc -l)" -eq 1 ]
}

@test "a directory that is not an mlmmj list, or one without an owner, is refused and nothing is made" {
	mlmmj_make
	run -1 "$IMPORT" -C "$CONF" -m "$MEMBERS" -n "$TOP/scripts/mjq-newlist" mlmmj "$BATS_TEST_TMPDIR" example.org mylist
	[[ "$output" == *"no control/ directory: not an mlmmj list"* ]]
	: >"$ML/control/owner"
	run -1 "$IMPORT" -C "$CONF" -m "$MEMBERS" -n "$TOP/scripts/mjq-newlist" mlmmj "$ML" example.org mylist
	[[ "$output" == *"no owner"* ]]
	[ ! -e "$LISTS/example.org/mylist" ]
	run -64 "$IMPORT" -C "$CONF" sympa "$ML" example.org mylist
	[[ "$output" == *'unknown kind "sympa"'* ]]
	run -64 "$IMPORT" -C "$CONF" mailman3 "$ML" example.org
}

# mm3_make - a Mailman 3 instance in $MMDIR (under /tmp, where nobody
# may go) with the list test@example.org, owned by owner@users.test
mm3_make() {
	command -v mailman >/dev/null || skip "mailman3 is not installed (sh scripts/deps.sh test)"
	MMDIR=$(mktemp -d /tmp/mjq-t47-mailman.XXXXXX)
	chmod 755 "$MMDIR"
	mm3_setup "$MMDIR"
	mm3 create -o owner@users.test test@example.org >/dev/null
}

# mm3_state - what Mailman holds of the list: its members in each mode
# and role as mailman members lists them, and every row of its database
# (the list's settings, its members' modes and roles, its bans)
mm3_state() {
	local o
	for o in "-d any" "-n any" "-R owner" "-R moderator"; do
		# shellcheck disable=SC2086
		echo "== members $o" && mm3 members $o test@example.org
	done
	echo "== db" && sqlite3 -readonly "$MMDIR/var/data/mailman.db" .dump
}

# import3 - mjq-import of the Mailman list into mylist@example.org
import3() {
	"$IMPORT" -C "$CONF" -e "$MJ_ENQUEUE" -m "$MEMBERS" -n "$TOP/scripts/mjq-newlist" \
		-M "runuser -u nobody -- mailman -C $MM3_CFG" mailman3 "$@" example.org mylist
}

# bats test_tags=slow
@test "slow: a Mailman 3 list of 1000 members in three modes, an owner, a moderator, a footer, a welcome text, a ban and its posting rules: imported, the report names each setting, a post reaches the regular members once with the footer, the digest readers in the next issue and the others never, and Mailman's list is unchanged" {
	mm3_make
	seq -f 'e%g@users.test' 1 600 | mm3 addmembers -W - test@example.org
	seq -f 'd%g@users.test' 1 200 | mm3 addmembers -W -d mime - test@example.org
	seq -f 'n%g@users.test' 1 200 | mm3 addmembers -W -d disabled - test@example.org
	# what the list's owner sets in Postorius, through Mailman's model
	cat >"$MMDIR/t47_settings.py" <<-'PY'
		from mailman.config import config
		from mailman.interfaces.action import Action
		from mailman.interfaces.bans import IBanManager
		from mailman.interfaces.mailinglist import ReplyToMunging
		from mailman.interfaces.member import MemberRole
		from mailman.interfaces.usermanager import IUserManager
		from zope.component import getUtility
		def settings(mlist):
		    um = getUtility(IUserManager)
		    mlist.subscribe(um.create_address('mod@users.test'), MemberRole.moderator)
		    mlist.subject_prefix = '[test] '
		    mlist.reply_goes_to_list = ReplyToMunging.point_to_list
		    mlist.default_nonmember_action = Action.hold
		    mlist.max_message_size = 100
		    mlist.max_num_recipients = 10
		    mlist.anonymous_list = True
		    IBanManager(mlist).ban('spammer@bad.test')
		    config.db.commit()
	PY
	chmod 644 "$MMDIR/t47_settings.py"
	PYTHONPATH=$MMDIR mm3 shell -l test@example.org -r t47_settings.settings
	# the templates where Mailman looks for a list's own (its var/templates)
	local t=$MMDIR/var/templates/lists/test.example.org/en
	mkdir -p "$t"
	printf -- '-- \n$display_name ($listname) footer\nLeave: ${short_listname}-leave@${domain}\nYou are $user_email\n' \
		>"$t/list:member:regular:footer.txt"
	printf 'Welcome to $display_name, $user_name!\n' >"$t/list:user:notice:welcome.txt"
	chown -R nobody:nogroup "$MMDIR/var/templates"
	mm3_state >"$BATS_TEST_TMPDIR/mm3.before"
	grep -qx 'd1@users.test' "$BATS_TEST_TMPDIR/mm3.before"
	grep -qx 'n1@users.test' "$BATS_TEST_TMPDIR/mm3.before"
	run -0 --separate-stderr import3 test@example.org
	echo "$stderr"
	grep -q '^mylist: ' <<<"$output"
	# the report: each setting and what became of it
	reported 'owners: owner@users.test -> owners' \
		'moderators (with the owners, who moderate in Mailman too) -> moderators = owner@users.test, mod@users.test' \
		'default_member_action defer, default_nonmember_action hold -> posting = subscribers'
	grep -q '^mjq-import: .* -> nonmember_action = hold$' <<<"$stderr"
	reported 'subject_prefix -> subject_prefix = [test]' \
		'reply_goes_to_list point_to_list -> reply_to = list' \
		'max_message_size 100 (KB) -> max_message_size = 100k' \
		'max_num_recipients 10 (Mailman holds at that many) -> max_recipients = 9' \
		"the footer (list:member:regular:footer) (the list's text) -> footer" \
		'not carried over: the footer (list:member:regular:footer): $user_email (per member or unknown to mjq): left out' \
		"the welcome text (list:user:notice:welcome) (the list's text) -> welcome" \
		'bans: 1 -> bans' \
		'not carried over: anonymous_list yes' \
		'members: 600 regular, delivery enabled -> mode each' \
		'members: 200 MIME (or summary) digest, delivery enabled -> mode digest' \
		'members: 200 delivery disabled (by the member, a moderator or bounces) -> mode nomail' \
		'the Mailman list is test@example.org: the list is now mylist@example.org'
	# the texts, Mailman's placeholders made mjq's
	local d=$LISTS/example.org/mylist
	[ "$(cat "$d/footer")" = "$(printf -- '-- \nTest ($LIST@$DOMAIN) footer\nLeave: $LIST-unsubscribe@$DOMAIN\nYou are ')" ]
	[ "$(cat "$d/welcome")" = "Welcome to Test, !" ]
	[ "$(cat "$d/bans")" = spammer@bad.test ]
	# the members and their modes
	run -0 "$MEMBERS" -C "$CONF" mylist@example.org list
	[ "${#lines[@]}" -eq 1000 ]
	[ "$(grep -c '^e[0-9]*@users.test$' <<<"$output")" -eq 600 ]
	[ "$(grep -c '^d[0-9]*@users.test digest$' <<<"$output")" -eq 200 ]
	[ "$(grep -c '^n[0-9]*@users.test nomail$' <<<"$output")" -eq 200 ]
	# Mailman's list is as it was
	mm3_state >"$BATS_TEST_TMPDIR/mm3.after"
	diff "$BATS_TEST_TMPDIR/mm3.before" "$BATS_TEST_TMPDIR/mm3.after"
	# a member's post: the 600 regular members once each, prefixed, with
	# the footer and the Reply-To; nothing yet for the others
	printf 'From: <e7@users.test>\nSubject: hello\nMessage-Id: <imp3@users.test>\n\nfirst post\n' |
		"$MJ_ENQUEUE" -C "$CONF" -d example.org -l mylist -r -f e7@users.test
	runq
	[ "$(grep -c 'to=<e[0-9]*@users.test>$' "$SLOG")" -eq 600 ]
	[ "$(grep 'to=<e[0-9]*@users.test>$' "$SLOG" | sort -u | wc -l)" -eq 600 ]
	[ "$(grep -c 'to=<[dn][0-9]*@users.test>$' "$SLOG")" -eq 0 ]
	mail_to e1@users.test | grep -qx 'Subject: \[test\] hello'
	mail_to e1@users.test | grep -qix 'Reply-To: <\?mylist@example.org>\?'
	mail_to e1@users.test | grep -qx 'Test (mylist@example.org) footer'
	mail_to e1@users.test | grep -qx 'Leave: mylist-unsubscribe@example.org'
	# the next digest issue, a day later (a runner whose clock the test
	# moves: make fault-runner, as t/89): the 200 digest readers, the post
	# in it with the footer; the regular and nomail members nothing more
	make -s -C "$TOP" fault-runner FAULT_DIR="$BATS_TEST_TMPDIR" >/dev/null
	MJQ_TEST_CLOCK_OFFSET=86400 MJ_QUEUERUN=$BATS_TEST_TMPDIR/mj_queuerun runq
	[ "$(grep -c 'to=<d[0-9]*@users.test>$' "$SLOG")" -eq 200 ]
	[ "$(grep 'to=<d[0-9]*@users.test>$' "$SLOG" | sort -u | wc -l)" -eq 200 ]
	[ "$(grep -c 'to=<e[0-9]*@users.test>$' "$SLOG")" -eq 600 ]
	[ "$(grep -c 'to=<n[0-9]*@users.test>$' "$SLOG")" -eq 0 ]
	mail_to d1@users.test | grep -q '^Subject: mylist Digest, Vol 1, Issue 1'
	mail_to d1@users.test | grep -qx 'first post'
	[ "$(mail_to d1@users.test | grep -cx 'Test (mylist@example.org) footer')" -eq 1 ]
	# a non-member's post is held for the moderators
	printf 'From: <stranger@users.test>\nSubject: hi\n\nx\n' |
		"$MJ_ENQUEUE" -C "$CONF" -d example.org -l mylist -r -f stranger@users.test
	runq
	[ "$(got mod@users.test)" -eq 1 ]
	[ "$(got owner@users.test)" -eq 1 ]
}

@test "mailman3-export writes a file that mailman3 imports on another host (a moderated list under emergency moderation with a content filter); a list Mailman does not have, or a file that is no export, is refused and nothing is made" {
	mm3_make
	printf 'a@users.test\n' | mm3 addmembers -W - test@example.org
	cat >"$MMDIR/t47_filter.py" <<-'PY'
		from mailman.config import config
		from mailman.interfaces.action import Action
		def settings(mlist):
		    mlist.default_member_action = Action.hold
		    mlist.emergency = True
		    mlist.filter_content = True
		    mlist.filter_types = ['application/ms-tnef']
		    mlist.convert_html_to_plaintext = True
		    config.db.commit()
	PY
	chmod 644 "$MMDIR/t47_filter.py"
	PYTHONPATH=$MMDIR mm3 shell -l test@example.org -r t47_filter.settings
	"$IMPORT" -M "runuser -u nobody -- mailman -C $MM3_CFG" mailman3-export test@example.org \
		>"$BATS_TEST_TMPDIR/test.export"
	run -0 --separate-stderr "$IMPORT" -C "$CONF" -e "$MJ_ENQUEUE" -m "$MEMBERS" \
		-n "$TOP/scripts/mjq-newlist" -M false mailman3 "$BATS_TEST_TMPDIR/test.export" example.org mylist
	echo "$stderr"
	reported 'default_member_action hold, default_nonmember_action hold -> posting = moderated' \
		'emergency -> emergency = yes' \
		'filter_content -> content_filter = yes' \
		'filter_types -> filter_types = application/ms-tnef' \
		'filter_action discard -> filter_action = remove' \
		'convert_html_to_plaintext -> convert_html = yes'
	[ -z "$(grep 'pass_types\|extensions' <<<"$stderr")" ]
	run -0 "$MEMBERS" -C "$CONF" mylist@example.org list
	[ "$output" = a@users.test ]
	# the config as imported is in force: a member's post is held, and
	# so is the owner's, under emergency moderation
	printf 'From: <a@users.test>\nSubject: hi\n\nx\n' |
		"$MJ_ENQUEUE" -C "$CONF" -d example.org -l mylist -r -f a@users.test
	printf 'From: <owner@users.test>\nSubject: hi\n\nx\n' |
		"$MJ_ENQUEUE" -C "$CONF" -d example.org -l mylist -r -f owner@users.test
	runq
	grep -q 'moved to HOLD: moderation: the list is moderated (posting = moderated)' "$RUNLOG"
	grep -q 'moved to HOLD: moderation: the list is under emergency moderation (emergency = yes)' "$RUNLOG"
	[ "$(find "$SPOOL/HOLD" -type f ! -name '.*' | wc -l)" -eq 2 ]
	run -1 --separate-stderr import3 nosuch@example.org
	[[ "$stderr" == *"shell -l nosuch@example.org failed: nothing exported"* ]]
	[ ! -e "$LISTS/example.org/mylist2" ]
	printf 'not a tar\n' >"$BATS_TEST_TMPDIR/junk"
	run -1 --separate-stderr "$IMPORT" -C "$CONF" -m "$MEMBERS" -n "$TOP/scripts/mjq-newlist" \
		mailman3 "$BATS_TEST_TMPDIR/junk" example.org other
	[[ "$stderr" == *"not an export of mjq-import mailman3-export: nothing imported"* ]]
	[ ! -e "$LISTS/example.org/other" ]
}
