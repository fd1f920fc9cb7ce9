#!/usr/bin/env bats
# The request and majordomo functions end to end: mj_enqueue, one pass of
# mj_queuerun, the replies delivered to per-recipient maildirs, and the
# confirmations fed back through mj_enqueue.

load helpers
load request_helpers
bats_require_minimum_version 1.5.0

setup() {
	request_setup
	mjq_list example.org mylist old@users.test
	printf '[list]\nowners = boss@owner.test\n' >>"$LISTS/example.org/mylist/config"
	mjq_list example.org other
	SUBS=$LISTS/example.org/mylist/subscribers
	TUSER=
}

teardown() {
	[ -z "$TUSER" ] || userdel "$TUSER" 2>/dev/null || true
}

# send ARG... - a message on stdin into the spool for example.org
send() {
	"$MJ_ENQUEUE" -C "$CONF" -d example.org "$@"
}

# request FROM BODY [ARG...] - a request from FROM to mylist-request
request() {
	local from=$1 body=$2
	shift 2
	printf 'From: <%s>\nSubject: commands\nMessage-Id: <%s@users.test>\n\n%s\n' \
	    "$from" "$RANDOM" "$body" | send -f "$from" "${@:--lmylist -q}"
}

@test "subscribe round trip: token to the address, Re: confirm subscribes" {
	request ann@users.test subscribe -l mylist -q
	runq
	[ "$(mails ann@users.test)" -eq 1 ]
	tok=$(token_of ann@users.test)
	[ ${#tok} -eq 32 ]
	last ann@users.test | grep -qx 'Auto-Submitted: auto-replied'
	last ann@users.test | grep -qx 'Return-Path: <>'
	last ann@users.test | grep -qx "confirm $tok"
	run -1 grep -q ann "$SUBS"
	[ -f "$SPOOL/state/tokens/$tok" ]
	printf 'From: ann@users.test\nSubject: Re: confirm %s\n\n> quoted\n' "$tok" |
	    send -f ann@users.test -l mylist -q
	runq
	[ "$(mails ann@users.test)" -eq 2 ]
	last ann@users.test | grep -qx '<ann@users.test> is now on mylist@example.org.'
	# one "Re: ", not "Re: Re: confirm ..."
	last ann@users.test | grep -qx "Subject: Re: confirm $tok"
	[ "$(cat "$SUBS")" = $'old@users.test\nann@users.test' ]
	[ "$(queue_files)" = "" ]
}

@test "a <list>-subscribe alias (-c) and a confirm to majordomo@" {
	printf 'From: ann@users.test\nSubject: anything\n\nunsubscribe mylist\n' |
	    send -f ann@users.test -l mylist -c subscribe
	runq
	tok=$(token_of ann@users.test)
	last ann@users.test | grep -qx '>>> subscribe'
	printf 'From: ann@users.test\nSubject: hi\n\nconfirm %s\n' "$tok" |
	    send -f ann@users.test -m
	runq
	last ann@users.test | grep -qx "From: <majordomo@example.org>"
	grep -qx ann@users.test "$SUBS"
}

@test "unsubscribe round trip, and not-subscribed is told without a token" {
	request old@users.test unsubscribe -l mylist -q
	runq
	tok=$(token_of old@users.test)
	request old@users.test "confirm $tok" -l mylist -q
	runq
	last old@users.test | grep -qx '<old@users.test> is now off mylist@example.org.'
	[ "$(cat "$SUBS")" = "" ]
	request old@users.test unsubscribe -l mylist -q
	runq
	last old@users.test | grep -qx '<old@users.test> is not subscribed to mylist@example.org.'
	[ "$(token_of old@users.test)" = "" ]
}

@test "a subscription for someone else: the token goes to that address only" {
	request ann@users.test 'subscribe mylist bob@users.test' -m
	runq
	[ "$(mails ann@users.test)" -eq 1 ]
	[ "$(mails bob@users.test)" -eq 1 ]
	last ann@users.test | grep -qx 'Your request was mailed to <bob@users.test> for confirmation.'
	[ "$(token_of ann@users.test)" = "" ]
	tok=$(token_of bob@users.test)
	[ ${#tok} -eq 32 ]
	run -1 grep -q "$tok" <(last ann@users.test)
}

@test "expired, reused and forged tokens change nothing" {
	request ann@users.test subscribe -l mylist -q
	runq
	old=$(token_of ann@users.test)
	touch -d '8 days ago' "$SPOOL/state/tokens/$old"
	request ann@users.test "confirm $old" -l mylist -q
	runq
	last ann@users.test | grep -qx "The token $old has expired."
	[ ! -e "$SPOOL/state/tokens/$old" ]
	request ann@users.test subscribe -l mylist -q
	runq
	tok=$(token_of ann@users.test)
	request ann@users.test "confirm $tok" -l mylist -q
	runq
	grep -qx ann@users.test "$SUBS"
	request ann@users.test "unsubscribe" -l mylist -q
	runq
	untok=$(token_of ann@users.test)
	# The subscribe token used again must not undo anything, nor may a
	# guess, nor another domain's use of a real token.
	forged=$(printf '%032x' 12345)
	request ann@users.test "$(printf 'confirm %s\nconfirm %s\nconfirm zz' "$tok" "$forged")" -l mylist -q
	runq
	last ann@users.test | grep -qx "The token $tok has already been used."
	last ann@users.test | grep -qx "The token $forged is not valid."
	last ann@users.test | grep -qx "The token zz is not valid."
	mkdir -p "$LISTS/other.test/mylist"
	printf 'From: ann@users.test\nSubject: confirm %s\n\n' "$untok" |
	    "$MJ_ENQUEUE" -C "$CONF" -d other.test -m -f ann@users.test
	runq
	last ann@users.test | grep -qx "The token $untok is not valid."
	grep -qx ann@users.test "$SUBS"
}

# confirm_fails_then_works WHAT - ann's confirmation meets a subscribers
# edit that fails (the test has broken it, WHAT says how): the request
# is deferred, nothing changes, the token is still there; after $FIX the
# retry subscribes with the same token
confirm_fails_then_works() {
	request ann@users.test subscribe -l mylist -q
	runq
	tok=$(token_of ann@users.test)
	[ ${#tok} -eq 32 ]
	eval "$BREAK"
	request ann@users.test "confirm $tok" -l mylist -q
	RUNQ_TIMEOUT=60 runq
	grep -q "cannot lock and read $SUBS: $1" "$RUNLOG"
	grep -q 'from=<ann@users.test>, 1 command(s), failed: trying again later' "$RUNLOG"
	[ -f "$SPOOL/state/tokens/$tok" ]
	[ ! -e "$SPOOL/state/tokens/.$tok" ]
	run -1 grep -q ann "$SUBS"
	[ "$(mails ann@users.test)" -eq 1 ]
	[ -n "$(queue_files)" ]
	eval "$FIX"
	make_due
	runq
	grep -qx ann@users.test "$SUBS"
	last ann@users.test | grep -qx '<ann@users.test> is now on mylist@example.org.'
	[ ! -e "$SPOOL/state/tokens/$tok" ]
	[ -f "$SPOOL/state/tokens/.$tok" ]
	[ -z "$(queue_files)" ]
}

@test "a confirmation while the administrator holds the lock past the wait: deferred, the token kept, the retry subscribes" {
	slow "waits out the runner's 30 s wait for the lock"
	# flock(1) holds the lock on an fd of this shell for the whole run
	# (the runner waits 30 s for it)
	BREAK='exec {LOCKFD}>>"$SUBS.lock"; flock -x "$LOCKFD"'
	FIX='exec {LOCKFD}>&-'
	confirm_fails_then_works 'Connection timed out'
}

@test "a confirmation when the lock file cannot be opened: deferred, the token kept, the retry subscribes" {
	BREAK='rm -f "$SUBS.lock"; ln -s subscribers.lock "$SUBS.lock"'
	FIX='rm "$SUBS.lock"'
	confirm_fails_then_works 'Too many levels of symbolic links'
}

@test "a lock file root made (0644, as root's flock ... vi leaves it): a runner of another user still subscribes" {
	[ "$(id -u)" -eq 0 ] || skip "needs root: creates a user"
	TUSER=mjqlk$$
	useradd -M -U -s /usr/sbin/nologin "$TUSER"
	# the programs the user runs, where it can reach them
	user_programs
	chown -R "$TUSER:" "$SPOOL" "$LISTS"
	mkdir -p "$MAIL" && chown "$TUSER:" "$MAIL"
	chmod o+r "$CONF"
	open_path "$BATS_TEST_TMPDIR"
	rm -f "$SUBS.lock"
	flock "$SUBS.lock" true
	[ "$(stat -c '%U %a' "$SUBS.lock")" = "root 644" ]
	as_tuser() { runuser -u "$TUSER" -- "$@"; }
	printf 'From: <ann@users.test>\nSubject: commands\n\nsubscribe\n' |
		as_tuser "$MJ_ENQUEUE" -C "$CONF" -d example.org -lmylist -q -f ann@users.test
	as_tuser timeout 30 "$MJ_QUEUERUN" -C "$CONF" -1 2>>"$RUNLOG"
	tok=$(token_of ann@users.test)
	[ ${#tok} -eq 32 ]
	printf 'From: <ann@users.test>\nSubject: commands\n\nconfirm %s\n' "$tok" |
		as_tuser "$MJ_ENQUEUE" -C "$CONF" -d example.org -lmylist -q -f ann@users.test
	as_tuser timeout 30 "$MJ_QUEUERUN" -C "$CONF" -1 2>>"$RUNLOG"
	grep -qx ann@users.test "$SUBS"
	last ann@users.test | grep -qx '<ann@users.test> is now on mylist@example.org.'
	[ "$(stat -c %U "$SUBS")" = "$TUSER" ]
	[ -z "$(queue_files)" ]
}

@test "help, lists, info, which" {
	printf 'This list is about tests.\n' >"$LISTS/example.org/mylist/info"
	request old@users.test "$(printf 'help\nlists\ninfo mylist\nwhich\ninfo nosuch\nfrobnicate')" -m
	runq
	body=$(last old@users.test)
	grep -qx '  subscribe <list> \[address\]    join (a confirmation is mailed)' <<<"$body"
	grep -qx '  mylist@example.org' <<<"$body"
	grep -qx '  other@example.org' <<<"$body"
	grep -qx 'This list is about tests.' <<<"$body"
	grep -qx 'Requests: mylist-request@example.org' <<<"$body"
	grep -qx '<old@users.test> is subscribed to:' <<<"$body"
	# mylist in "lists" and in "which"; other only in "lists".
	[ "$(grep -cx '  mylist@example.org' <<<"$body")" -eq 2 ]
	[ "$(grep -cx '  other@example.org' <<<"$body")" -eq 1 ]
	grep -qx 'There is no list nosuch here.' <<<"$body"
	grep -qx 'unknown command (send "help" for the commands).' <<<"$body"
}

@test "which for another address is answered to that address" {
	request ann@users.test 'which old@users.test' -m
	runq
	last ann@users.test | grep -qx 'The answer was mailed to <old@users.test>.'
	last old@users.test | grep -qx '  mylist@example.org'
}

@test "who: owners only by default; open or subscribers as configured" {
	request old@users.test who -l mylist -q
	runq
	last old@users.test | grep -qx 'The subscribers of mylist are not shown to you.'
	request boss@owner.test who -l mylist -q
	runq
	last boss@owner.test | grep -qx '  old@users.test'
	last boss@owner.test | grep -qx '1 subscriber(s).'
	printf 'who_access = subscribers\n' >>"$LISTS/example.org/mylist/config"
	request old@users.test who -l mylist -q
	runq
	last old@users.test | grep -qx '  old@users.test'
}

@test "owner approval: confirmed, then approved by an owner" {
	printf 'subscribe_approval = yes\n' >>"$LISTS/example.org/mylist/config"
	request ann@users.test subscribe -l mylist -q
	runq
	request ann@users.test "confirm $(token_of ann@users.test)" -l mylist -q
	runq
	last ann@users.test | grep -qx 'Asked the owners of mylist to approve the subscription of <ann@users.test>.'
	run -1 grep -q ann "$SUBS"
	tok=$(token_of boss@owner.test)
	[ ${#tok} -eq 32 ]
	request boss@owner.test "confirm $tok" -l mylist -q
	runq
	grep -qx ann@users.test "$SUBS"
	last ann@users.test | grep -qx '<ann@users.test> is now subscribed to mylist@example.org.'
}

@test "no answer to the null sender, Auto-Submitted or bulk mail: no loop" {
	printf 'From: robot@users.test\nSubject: help\n\n' | send -f '' -l mylist -q
	printf 'From: robot@users.test\nAuto-Submitted: auto-replied\nSubject: help\n\n' |
	    send -f robot@users.test -l mylist -q
	printf 'From: robot@users.test\nPrecedence: bulk\nSubject: help\n\n' |
	    send -f robot@users.test -l mylist -q
	printf 'From: robot@users.test\nAuto-Submitted: no\nSubject: help\n\n' |
	    send -f robot@users.test -l mylist -q
	runq
	[ "$(mails robot@users.test)" -eq 1 ]
	[ "$(queue_files)" = "" ]
	[ "$(grep -c 'request not answered' "$RUNLOG")" -eq 3 ]
}

@test "an autoresponder answering a reply gets no answer back" {
	request ann@users.test help -l mylist -q
	runq
	# The autoresponder quotes our reply, Auto-Submitted and all.
	{ printf 'From: ann@users.test\nAuto-Submitted: auto-replied\nSubject: Out of office\n\n'; last ann@users.test; } |
	    send -f ann@users.test -l mylist -q
	# A broken one that drops Auto-Submitted but keeps our X-Loop.
	printf 'From: ann@users.test\nX-Loop: mylist-request@example.org\nSubject: help\n\n' |
	    send -f ann@users.test -l mylist -q
	runq
	[ "$(mails ann@users.test)" -eq 1 ]
	grep -q 'request not answered: Auto-Submitted' "$RUNLOG"
	grep -q 'request not answered: our own X-Loop' "$RUNLOG"
}

@test "a subscription flood from one address: at most reply_rate_limit replies" {
	printf '[request]\nreply_rate_limit = 3\n' >>"$CONF"
	for i in 1 2 3 4 5 6; do
		request mallory@users.test 'subscribe mylist victim@users.test' -m
	done
	runq
	[ "$(mails victim@users.test)" -eq 3 ]
	[ "$(mails mallory@users.test)" -eq 3 ]
	[ "$(grep -c 'no reply to <victim@users.test>: more than 3 replies' "$RUNLOG")" -eq 3 ]
	grep -q ' 3 victim@users.test$' "$SPOOL/state/replies"
}

@test "a request that fails is kept, and mj_queuerun -l shows why" {
	request old@users.test unsubscribe -l mylist -q
	runq
	tok=$(token_of old@users.test)
	# the subscribers file cannot be rewritten: a directory in its place
	rm "$SUBS"
	mkdir "$SUBS"
	request old@users.test "confirm $tok" -l mylist -q
	runq
	listq_one '^QUEUE/.*/request/.* left=new next=[^ ]+ error=cannot .*/subscribers: Is a directory$'
	# it stays, with its reason, until it works
	rmdir "$SUBS"
	echo old@users.test >"$SUBS"
	make_due
	runq
	[ -z "$(queue_files)" ]
	[ -z "$(find "$SPOOL/QUEUE" -name '.*.try')" ]
}

@test "set: a token to the subscriber; confirmed, the mode is a word on its line; who shows it; a post skips digest and nomail readers" {
	printf 'dig@users.test\nnom@users.test  # on holiday\n' >>"$SUBS"
	request dig@users.test "set mylist digest" -l mylist -q
	runq
	tok=$(token_of dig@users.test)
	[ ${#tok} -eq 32 ]
	last dig@users.test | grep -q 'asked to set how <dig@users.test> gets the list mylist@example.org to "digest"'
	# nothing changes before the confirmation
	grep -qx dig@users.test "$SUBS"
	request dig@users.test "confirm $tok" -l mylist -q
	runq
	last dig@users.test | grep -qx '<dig@users.test> now gets mylist@example.org as: digest.'
	request nom@users.test "set nomail" -l mylist -q
	runq
	request nom@users.test "confirm $(token_of nom@users.test)" -l mylist -q
	runq
	# the address, its mode, the comment kept
	[ "$(cat "$SUBS")" = $'old@users.test\ndig@users.test digest\nnom@users.test nomail # on holiday' ]
	# the same mode again: said, nothing written
	request nom@users.test "set mylist nomail" -l mylist -q
	runq
	request nom@users.test "confirm $(token_of nom@users.test)" -l mylist -q
	runq
	last nom@users.test | grep -qx '<nom@users.test> already gets mylist@example.org as: nomail.'
	request boss@owner.test who -l mylist -q
	runq
	last boss@owner.test | grep -qx '  dig@users.test (digest)'
	last boss@owner.test | grep -qx '  nom@users.test (nomail)'
	last boss@owner.test | grep -qx '  old@users.test'
	last boss@owner.test | grep -qx '3 subscriber(s).'
	# a post goes to each readers only (digests are t/790's)
	printf 'From: old@users.test\nSubject: post\n\nhello\n' | send -l mylist -r -f old@users.test
	runq
	[ "$(mails old@users.test)" -eq 1 ]
	[ "$(mails dig@users.test)" -eq 2 ]
	[ "$(mails nom@users.test)" -eq 4 ]
	# each again: the word goes
	request dig@users.test "set mylist each" -l mylist -q
	runq
	request dig@users.test "confirm $(token_of dig@users.test)" -l mylist -q
	runq
	grep -qx dig@users.test "$SUBS"
	# unsubscribe removes a subscriber whatever its mode
	request nom@users.test "unsubscribe mylist" -l mylist -q
	runq
	request nom@users.test "confirm $(token_of nom@users.test)" -l mylist -q
	runq
	run -1 grep -q nom@ "$SUBS"
}

@test "set: an owner sets a subscriber's mode, the token mailed to the owner; a stranger's set goes to the address; not subscribed is told" {
	request boss@owner.test "set mylist digest-plain old@users.test" -l mylist -q
	runq
	[ "$(mails old@users.test)" -eq 0 ]
	tok=$(token_of boss@owner.test)
	[ ${#tok} -eq 32 ]
	request boss@owner.test "confirm $tok" -l mylist -q
	runq
	grep -qx 'old@users.test digest-plain' "$SUBS"
	last old@users.test | grep -qx '<old@users.test> now gets mylist@example.org as: digest-plain.'
	# not an owner: the token goes to the address concerned
	request eve@users.test "set mylist nomail old@users.test" -l mylist -q
	runq
	last eve@users.test | grep -qx 'Your request was mailed to <old@users.test> for confirmation.'
	[ -n "$(token_of old@users.test)" ]
	grep -qx 'old@users.test digest-plain' "$SUBS"
	request eve@users.test "set mylist digest" -l mylist -q
	runq
	last eve@users.test | grep -qx '<eve@users.test> is not subscribed to mylist@example.org.'
	[ -z "$(token_of eve@users.test)" ]
}

@test "set notmetoo: the subscriber gets every post but its own" {
	request old@users.test "set mylist notmetoo" -l mylist -q
	runq
	request old@users.test "confirm $(token_of old@users.test)" -l mylist -q
	runq
	grep -qx 'old@users.test notmetoo' "$SUBS"
	last old@users.test | grep -qx '<old@users.test> now gets mylist@example.org as: notmetoo.'
	echo 'ann@users.test' >>"$SUBS"
	n=$(mails old@users.test)
	# its own post, From in another case: not to it, to ann
	printf 'From: Old <OLD@Users.Test>\nTo: mylist@example.org\nSubject: mine\n\nmy own\n' |
		send -f old@users.test -l mylist -r
	runq
	[ "$(mails old@users.test)" -eq "$n" ]
	[ "$(mails ann@users.test)" -eq 1 ]
	# ann's post: to it
	printf 'From: <ann@users.test>\nTo: mylist@example.org\nSubject: hers\n\nann writes\n' |
		send -f ann@users.test -l mylist -r
	runq
	[ "$(mails old@users.test)" -eq $((n + 1)) ]
	last old@users.test | grep -qx 'ann writes'
	[ "$(mails ann@users.test)" -eq 2 ]
}

@test "welcome and goodbye: the list's texts, variables replaced, come with the confirmed subscription and unsubscription" {
	printf 'Welcome to $LIST@$DOMAIN!\nTo leave: $UNSUBSCRIBE\n' >"$LISTS/example.org/mylist/welcome"
	printf 'Sorry to see you go from $LIST.\n' >"$LISTS/example.org/mylist/goodbye"
	request ann@users.test subscribe -l mylist -q
	runq
	# not with the token: only once it is done
	run -1 grep -q 'Welcome to' "$(ls -t "$MAIL/ann@users.test/new"/* | head -1)"
	request ann@users.test "confirm $(token_of ann@users.test)" -l mylist -q
	runq
	grep -qx ann@users.test "$SUBS"
	last ann@users.test | grep -qx 'Welcome to mylist@example.org!'
	last ann@users.test | grep -qx 'To leave: mailto:majordomo@example.org?body=unsubscribe%20mylist'
	request ann@users.test "unsubscribe mylist" -l mylist -q
	runq
	request ann@users.test "confirm $(token_of ann@users.test)" -l mylist -q
	runq
	run -1 grep -q ann@ "$SUBS"
	last ann@users.test | grep -qx 'Sorry to see you go from mylist.'
	run -1 grep -q 'Welcome to' <<<"$(last ann@users.test)"
	# an owner's approval brings the welcome to the subscriber
	printf 'subscribe_approval = yes\n' >>"$LISTS/example.org/mylist/config"
	request bea@users.test subscribe -l mylist -q
	runq
	request bea@users.test "confirm $(token_of bea@users.test)" -l mylist -q
	runq
	request boss@owner.test "confirm $(token_of boss@owner.test)" -l mylist -q
	runq
	grep -qx bea@users.test "$SUBS"
	last bea@users.test | grep -qx 'Welcome to mylist@example.org!'
	# a text that cannot be read: the change is made, the text left out
	rm "$LISTS/example.org/mylist/goodbye"
	mkdir "$LISTS/example.org/mylist/goodbye"
	request bea@users.test "unsubscribe mylist" -l mylist -q
	runq
	request bea@users.test "confirm $(token_of bea@users.test)" -l mylist -q
	runq
	run -1 grep -q bea@ "$SUBS"
	last bea@users.test | grep -q 'is now off mylist@example.org'
	grep -q 'goodbye: Is a directory: left out' "${RUNLOG:-$BATS_TEST_TMPDIR/run.log}"
}
