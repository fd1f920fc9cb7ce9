#!/usr/bin/env bats
# t/680-crash-points.bats - a real crash at each step of the finish, move
# and generated-mail protocols (spool-layout/README, "Crash points"): the
# runner is killed (SIGKILL) by strace's fault injection as it enters the
# system call of that step, so the step is not done, and the next runner
# (or the next post) must lose no accepted message and deliver at most
# the copies the spec allows.  The headline (issue 19): a runner killed
# at the state file's unlink, then a post by an mj_enqueue of the same
# pid in the same hour, is delivered to every subscriber.

bats_require_minimum_version 1.5.0
load helpers
load smtp_helpers

# The DSNs of posts are tested here: the runner makes them rather than
# judging its posts' failures itself (bounce_judge, t/730 and t/731).
MJQ_LIST_KEYS='bounce_judge = no'

setup() {
	command -v strace >/dev/null || skip "no strace"
	mjq_setup </dev/null
	smtpd_start s --rcpt 'bad@*=550 5.1.1 no such user'
	SRV=$PORT
	printf '[transport_map]\nd.test = smtp:[127.0.0.1]:%s\nex.org = smtp:[127.0.0.1]:%s\n' \
		"$SRV" "$SRV" >>"$CONF"
	mjq_list ex.org l a@d.test b@d.test c@d.test
	DIR=$SPOOL/QUEUE/10/ex.org/10/list
}

teardown() {
	servers_stop
}

# post [HEADER] - a post to l@ex.org; its name in $NAME
post() {
	printf 'From: p@example.net\nSubject: x %s\n%s\nhi\n' "$RANDOM" "${1:-}" |
		"$MJ_ENQUEUE" -C "$CONF" -d ex.org -l l -r -f p@example.net
	NAME=$(basename "$(queue_files | tail -1)")
}

# post_as PID - a post by an mj_enqueue whose process id is PID: in a pid
# namespace of its own, /proc/sys/kernel/ns_last_pid set to PID - 1 just
# before the fork, so no other process can take the id first
post_as() {
	printf 'From: p@example.net\nSubject: second %s\n\nhi again\n' "$RANDOM" |
		unshare -pf --mount-proc sh -c \
			'echo $(($1 - 1)) >/proc/sys/kernel/ns_last_pid || exit 70
			shift; "$@"; r=$?; exit $r' \
			sh "$1" "$MJ_ENQUEUE" -C "$CONF" -d ex.org -l l -r -f p@example.net
}

# crash_nth CALL N - crash_run killed as one thread enters its Nth CALL
# (link or unlink, with their *at forms) of the pass: strace counts each
# thread's calls apart
crash_nth() {
	crash_run -e trace="$1,${1}at" -e inject="$1,${1}at":signal=SIGKILL:when="$2"
}

# got ADDR - how many copies the test server accepted for ADDR
got() {
	grep -c "to=<$1>" "$BATS_TEST_TMPDIR/s/log" || true
}

# each_got N - every subscriber got exactly N copies
each_got() {
	local a
	for a in a@d.test b@d.test c@d.test; do
		[ "$(got "$a")" -eq "$1" ] || { echo "$a: $(got "$a") copies, want $1" >&2; return 1; }
	done
}

# all_clear - nothing left in QUEUE/: no message, no state, no .try
all_clear() {
	[ -z "$(find "$SPOOL/QUEUE" -type f)" ] || { find "$SPOOL/QUEUE" -type f >&2; return 1; }
}

# first_post_crashed PID - a post by PID (name in $NAME), its runner
# killed at its state file's unlink: delivered once to everyone, the
# message removed, the state file left without it
first_post_crashed() {
	unshare -pf --mount-proc true 2>/dev/null || skip "no pid namespaces"
	post_as "$1"
	NAME=$(basename "$(queue_files)")
	[[ "$NAME" == ?AA-$1-l ]]
	crash_at unlink "$DIR/.$NAME"
	each_got 1
	[ ! -e "$DIR/$NAME" ]
	[ -f "$DIR/.$NAME" ]
}

# second_post PID - one more post by PID; its name in $NEW (the test is
# skipped if the hour changed since $NAME, so the names cannot be alike)
second_post() {
	post_as "$1"
	NEW=$(basename "$(queue_files)")
	[ "${NEW:0:1}" = "${NAME:0:1}" ] || skip "the hour changed between the two posts"
}

@test "headline: killed at the state file's unlink, a post by the same pid in the same hour reaches every subscriber" {
	first_post_crashed 4242
	# same pid, same hour: the name is the old one's, whose state file
	# is still there, so mj_enqueue takes the next letters
	second_post 4242
	[ "$NEW" = "${NAME:0:1}AB-4242-l" ]
	runq
	each_got 2
	all_clear
	grep -q "\.$NAME: removed: no message of that name" "$BATS_TEST_TMPDIR/run.log"
}

@test "headline, once the walk has removed the orphan: the post by the same pid takes the very same name and reaches every subscriber" {
	first_post_crashed 4343
	# a pass with nothing to deliver: its walk removes the orphan
	runq
	[ ! -e "$DIR/.$NAME" ]
	second_post 4343
	[ "$NEW" = "$NAME" ]
	runq
	each_got 2
	all_clear
}

@test "an older mj_enqueue's post under an orphan's name is new mail: the orphan is removed, every subscriber gets it" {
	post
	crash_at unlink "$DIR/.$NAME"
	each_got 1
	# what a version without the check did: the new post under the old
	# name, beside the old state file (every recipient "delivered")
	OLD=$NAME
	post
	mv "$DIR/$NAME" "$DIR/$OLD"
	runq
	each_got 2
	all_clear
	grep -q "$OLD: $DIR/.$OLD belongs to an earlier message of this name (kind post, 3 of 3 recipient(s) done): removed; this message is new" \
		"$BATS_TEST_TMPDIR/run.log"
}

@test "an old state file (mjq-state 1, no message line) is still read: its delivered recipients are not sent again" {
	P=$(free_port)
	sed -i "s/^d.test = .*/d.test = smtp:[127.0.0.1]:$P/" "$CONF"
	mjq_list ex.org l a@ex.org b@d.test
	post
	runq
	st=$DIR/.$NAME
	grep -q '^delivered a@ex.org$' "$st"
	grep -q '^deferred  b@d.test$' "$st"
	# as an older runner wrote it
	sed -i '1s/.*/mjq-state 1/; /^message /d' "$st"
	sed -i "s/^d.test = .*/d.test = smtp:[127.0.0.1]:$SRV/" "$CONF"
	make_due
	runq
	[ "$(got a@ex.org)" -eq 1 ]
	[ "$(got b@d.test)" -eq 1 ]
	all_clear
}

@test "finish: killed at the state's fdatasync, the next runner removes it without sending again" {
	# the first fdatasync of the state file is its last batch's outcome
	# (F1 then finds nothing left to sync): the words are written, so a
	# kill loses none of them
	post
	crash_at fdatasync "$DIR/.$NAME"
	[ -f "$DIR/$NAME" ]
	each_got 1
	runq
	each_got 1
	all_clear
}

@test "finish: killed at the message's unlink, the next runner removes it without sending again" {
	post
	crash_at unlink "$DIR/$NAME"
	[ -f "$DIR/$NAME" ] && [ -f "$DIR/.$NAME" ]
	each_got 1
	runq
	each_got 1
	all_clear
}

@test "finish: killed at the state's unlink, the next runner's walk removes the orphan" {
	post
	crash_at unlink "$DIR/.$NAME"
	[ ! -e "$DIR/$NAME" ] && [ -f "$DIR/.$NAME" ]
	runq
	each_got 1
	all_clear
}

@test "first processing: killed at the state file's link, the post is expanded again and sent once" {
	post
	crash_at link "$DIR/.$NAME"
	[ ! -e "$DIR/.$NAME" ]
	# no death counted yet; the runner that was at it named
	grep -qx ' *0  *[0-9][0-9]*' "$DIR/.$NAME.try"
	each_got 0
	runq
	each_got 1
	all_clear
}

@test "first processing: killed at the .try's unlink, the next runner resumes from the state file and sends once" {
	post
	crash_at unlink "$DIR/.$NAME.try"
	grep -q '^active  *[1-9][0-9]*$' "$DIR/.$NAME"
	runq
	each_got 1
	grep -q "$NAME: removed" "$BATS_TEST_TMPDIR/run.log"
	all_clear
}

# The DSN of a post with one failing recipient (bad@d.test).  strace
# counts each thread's calls apart and kills the first thread to reach
# its Nth: the post is expanded first in a pass of its own (its state
# file is made on the runner's post thread), both recipients deferred
# while d.test is down.  In the pass that crash_nth kills, the main
# thread's links are the DSN's state (1) and its message (2), its
# unlinks the DSN's tmp names (1, 2), then the finishes.
bounce_setup() {
	mjq_list ex.org l a@d.test bad@d.test
	sed -i "s/^d.test = .*/d.test = smtp:[127.0.0.1]:$(free_port)/" "$CONF"
	post
	runq
	grep -q '^deferred  bad@d.test$' "$DIR/.$NAME"
	sed -i "s/^d.test = .*/d.test = smtp:[127.0.0.1]:$SRV/" "$CONF"
	# the destination table (runtime state) forgets d.test was dead
	rm -f "$SPOOL/state/destinations"
	make_due
}

# dsns - DSNs the owner got
dsns() {
	got l-owner@ex.org
}

@test "bounce: killed at the DSN state's link, the failed recipient bounces once at the next try" {
	bounce_setup
	crash_nth link 1
	[ "$(got a@d.test)" -eq 1 ]
	grep -q '^failed    bad@d.test$' "$DIR/.$NAME"
	make_due
	runq
	[ "$(got a@d.test)" -eq 1 ]
	[ "$(dsns)" -eq 1 ]
	all_clear
}

@test "bounce: killed at the DSN message's link, its state is an orphan the walk removes; one DSN in the end" {
	bounce_setup
	crash_nth link 2
	orphan=$(find "$SPOOL/QUEUE/10/ex.org/10/owner" -name '.*')
	[ -n "$orphan" ]
	[ -z "$(find "$SPOOL/QUEUE/10/ex.org/10/owner" -type f ! -name '.*')" ]
	make_due
	runq
	[ "$(got a@d.test)" -eq 1 ]
	[ "$(dsns)" -eq 1 ]
	grep -q "$orphan: removed: no message of that name" "$BATS_TEST_TMPDIR/run.log"
	all_clear
}

@test "bounce: killed after the DSN is committed but before 'bounced' is written, at most two DSNs, never none" {
	bounce_setup
	crash_nth unlink 1
	[ -n "$(find "$SPOOL/QUEUE/10/ex.org/10/owner" -type f ! -name '.*')" ]
	grep -q '^failed    bad@d.test$' "$DIR/.$NAME"
	make_due
	runq
	[ "$(got a@d.test)" -eq 1 ]
	n=$(dsns)
	[ "$n" -ge 1 ] && [ "$n" -le 2 ]
	all_clear
}

# A loop goes to BAD/ (no state file yet), on the post thread: links
# .why (1), message (2); unlinks tmp of .why (1), the old message (2).
@test "move to BAD/: killed at the message's link, the next runner moves it; nothing delivered" {
	post 'List-Id: <l.ex.org>'
	crash_nth link 2
	[ -f "$DIR/$NAME" ]
	runq
	each_got 0
	[ -f "$SPOOL/BAD/10/ex.org/10/list/$NAME" ]
	[ -f "$SPOOL/BAD/10/ex.org/10/list/.$NAME.why" ]
	all_clear
}

@test "move to BAD/: killed at the old name's unlink (message in both places), the next runner completes the move" {
	post 'List-Id: <l.ex.org>'
	crash_at unlink "$DIR/$NAME"
	[ -f "$DIR/$NAME" ] && [ -f "$SPOOL/BAD/10/ex.org/10/list/$NAME" ]
	runq
	each_got 0
	[ -f "$SPOOL/BAD/10/ex.org/10/list/$NAME" ]
	all_clear
}

# max_crashes moves a message with its state file: the state is linked
# into BAD/ first, and unlinked from QUEUE/ last
crashed_post() {
	P=$(free_port)
	sed -i "s/^d.test = .*/d.test = smtp:[127.0.0.1]:$P/" "$CONF"
	post
	runq
	sed -i 's/^crashes      0$/crashes      2/; s/^active  *0$/active          1/' "$DIR/.$NAME"
	make_due
}

@test "move with a state file: killed at the old state's unlink, the orphan in QUEUE/ is removed; BAD/ keeps both" {
	crashed_post
	crash_at unlink "$DIR/.$NAME"
	[ ! -e "$DIR/$NAME" ] && [ -f "$DIR/.$NAME" ]
	runq
	[ -f "$SPOOL/BAD/10/ex.org/10/list/$NAME" ]
	[ -f "$SPOOL/BAD/10/ex.org/10/list/.$NAME" ]
	all_clear
}

@test "move with a state file: killed at the message's link into BAD/, the next runner moves it again" {
	crashed_post
	crash_at link "$SPOOL/BAD/10/ex.org/10/list/$NAME"
	# the state is in both places, the message only in QUEUE/
	[ -f "$DIR/$NAME" ] && [ -f "$SPOOL/BAD/10/ex.org/10/list/.$NAME" ]
	runq
	[ -f "$SPOOL/BAD/10/ex.org/10/list/$NAME" ]
	[ -f "$SPOOL/BAD/10/ex.org/10/list/.$NAME" ]
	all_clear
}

@test "move to HOLD/: killed at the message's link, the next runner holds it; nothing delivered" {
	printf '[list]\nmax_message_size = 10\n' >"$LISTS/ex.org/l/config"
	post
	crash_at link "$SPOOL/HOLD/10/ex.org/10/list/$NAME"
	[ -f "$DIR/$NAME" ]
	runq
	each_got 0
	[ -f "$SPOOL/HOLD/10/ex.org/10/list/$NAME" ]
	all_clear
}

@test "a state file whose message is being linked (its lock held) is not taken for an orphan" {
	post
	runq
	# a writer between linking a state file and linking its message
	printf 'x\n' >"$DIR/.AAA-1-l"
	# one process holds the lock (flock's child would share it)
	bash -c 'exec 9<"$1" && flock -x 9 && exec sleep 30' sh "$DIR/.AAA-1-l" &
	holder=$!
	wait_for 5 eval "! flock -n '$DIR/.AAA-1-l' true"
	runq
	[ -f "$DIR/.AAA-1-l" ]
	kill "$holder"
	wait "$holder" 2>/dev/null || true
	runq
	all_clear
}
