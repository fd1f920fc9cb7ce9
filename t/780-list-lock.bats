#!/usr/bin/env bats
# t/780-list-lock.bats - a list lock held by an administrator (docs/lists.md:
# flock subscribers.lock vi subscribers) never stops a runner's
# deliveries (issue 20, section 2): the first processing of list
# management mail runs on a thread of its own (queuerun/listwork.c), so
# a confirmation waits for the lock while posts keep flowing.  Nor does
# reading a list for a post's posting policy (issue 24, item 6): posts
# are first processed on another thread.

bats_require_minimum_version 1.5.0
load helpers
load smtp_helpers
load request_helpers

setup() {
	RUNNER=
	request_setup
	smtpd_start s
	# the post goes over SMTP, five recipients a transaction, one
	# transaction at a time: every next batch needs the main thread
	cat >>"$CONF" <<-EOF
	d.test = smtp:[127.0.0.1]:$PORT
	[delivery]
	destination_recipient_limit = 5
	destination_concurrency_limit = 1
	EOF
	mjq_list example.org mylist old@users.test
	SUBS=$LISTS/example.org/mylist/subscribers
	mkdir -p "$LISTS/example.org/big"
	awk 'BEGIN { for (i = 1; i <= 50; i++) printf "u%d@d.test\n", i }' \
		>"$LISTS/example.org/big/subscribers"
	list_posting example.org big
}

teardown() {
	exec 8>&-
	[ -z "$RUNNER" ] || kill -9 "$RUNNER" 2>/dev/null || true
	servers_stop
}

@test "a confirmation waits for the held subscribers lock while a 50-recipient post is delivered in full" {
	printf 'From: ann@users.test\nSubject: s\n\nsubscribe mylist\n' |
		"$MJ_ENQUEUE" -C "$CONF" -d example.org -l mylist -q -f ann@users.test
	runq
	tok=$(token_of ann@users.test)
	[ -n "$tok" ]
	# the administrator takes the lock and keeps it (fd 8 of this
	# shell; the runner must not inherit it)
	exec 8>>"$SUBS.lock"
	flock -n 8
	printf 'From: ann@users.test\nSubject: Re: confirm %s\n\nx\n' "$tok" |
		"$MJ_ENQUEUE" -C "$CONF" -d example.org -l mylist -q -f ann@users.test
	printf 'From: p@example.net\nSubject: post\n\nhello\n' |
		"$MJ_ENQUEUE" -C "$CONF" -d example.org -l big -r -f p@example.net
	"$MJ_QUEUERUN" -C "$CONF" -1 2>>"$RUNLOG" 3>&- 8>&- &
	RUNNER=$!
	# all 50 get the post while the lock is held and the confirmation
	# has not been carried out
	wait_for 25 eval '[ "$(wc -l <"$BATS_TEST_TMPDIR/s/log")" -eq 50 ]'
	alive "$RUNNER"
	run ! grep -q ann "$SUBS"
	[ "$(mails ann@users.test)" -eq 1 ]
	# the lock goes: the confirmation is carried out, the runner ends
	exec 8>&-
	wait "$RUNNER"
	RUNNER=
	grep -qx ann@users.test "$SUBS"
	last ann@users.test | grep -qx '<ann@users.test> is now on mylist@example.org.'
	[ -z "$(queue_files)" ]
}

@test "a post held up reading its list (the subscribers file a FIFO nobody writes yet) waits on the post thread while a 50-recipient post is delivered in full" {
	# the 50-recipient post is expanded first, in a pass of its own
	# while d.test is down (posts are first processed one at a time)
	sed -i "s/^d.test = .*/d.test = smtp:[127.0.0.1]:$(free_port)/" "$CONF"
	printf 'From: p@example.net\nSubject: post\n\nhello\n' |
		"$MJ_ENQUEUE" -C "$CONF" -d example.org -l big -r -f p@example.net
	runq
	[ "$(grep -c '^deferred  u[0-9]*@d.test$' "$(state_files)")" -eq 50 ]
	sed -i "s/^d.test = .*/d.test = smtp:[127.0.0.1]:$PORT/" "$CONF"
	rm -f "$SPOOL/state/destinations" # forget that d.test was dead
	make_due
	# the default posting policy reads the subscribers file for a
	# non-member; a FIFO's open waits for a writer, as long as the test
	# wants, where a large file would take a second
	mkdir -p "$LISTS/example.org/slow"
	mkfifo "$LISTS/example.org/slow/subscribers"
	printf '[list]\nowners = boss@users.test\n' >"$LISTS/example.org/slow/config"
	printf 'From: stranger@spam.test\nSubject: buy\n\nnow\n' |
		"$MJ_ENQUEUE" -C "$CONF" -d example.org -l slow -r -f bounce@spam.test
	"$MJ_QUEUERUN" -C "$CONF" -1 2>>"$RUNLOG" 3>&- &
	RUNNER=$!
	# all 50 get the post while the other one's list cannot be read
	wait_for 25 eval '[ "$(wc -l <"$BATS_TEST_TMPDIR/s/log")" -eq 50 ]'
	alive "$RUNNER"
	[ "$(mails boss@users.test)" -eq 0 ]
	# the list is written (the open returns once the runner reads): the
	# post is held, its moderator told, the runner ends
	timeout 20 sh -c 'printf "a@users.test\nb@users.test\n" >"$1"' sh \
		"$LISTS/example.org/slow/subscribers"
	wait "$RUNNER"
	RUNNER=
	grep -q 'slow: moved to HOLD: moderation: <stranger@spam.test> is not a subscriber (posting = subscribers)' "$RUNLOG"
	[ "$(mails boss@users.test)" -eq 1 ]
	[ -z "$(queue_files)" ]
}
