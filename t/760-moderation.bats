#!/usr/bin/env bats
# Who may post, and the moderation queue, end to end over SMTP: posts and
# the moderators' replies go in through mj_enqueue, the runner delivers
# everything (posts, notices, answers) to mj_testsmtpd, and the tests read
# what each address got from the server's log and saved messages.

load helpers
load smtp_helpers
load request_helpers

bats_require_minimum_version 1.5.0

# Posting policy is what this file tests: its lists start with the
# program's default (posting = subscribers), not the helpers' open one.
MJQ_LIST_POSTING=

setup() {
	mjq_setup </dev/null
	mjq_list example.org mylist a@users.test b@users.test
	printf '[list]\nowners = boss@users.test\n' >"$LISTS/example.org/mylist/config"
	smtpd_start users
	printf '[transport_map]\nusers.test = smtp:[127.0.0.1]:%s\n' "$PORT" >>"$CONF"
	SLOG=$BATS_TEST_TMPDIR/users/log
	SAVE=$BATS_TEST_TMPDIR/users/save/new
	RUNLOG=$BATS_TEST_TMPDIR/run.log
}

teardown() {
	stop_everything ${RACE_PIDS:-}
}

# post FROM [SUBJECT] [LIST] - a post from FROM (From and envelope)
post() {
	printf 'From: <%s>\nSubject: %s\nMessage-Id: <%s@users.test>\n\nhello from %s\n' \
		"$1" "${2:-hi}" "$RANDOM$RANDOM" "$1" |
		"$MJ_ENQUEUE" -C "$CONF" -d example.org -l "${3:-mylist}" -r -f "$1"
}

# request FROM TEXT [LIST] - TEXT as the body of a message to -request
request() {
	printf 'From: <%s>\nSubject: moderation\n\n%s\n' "$1" "$2" |
		"$MJ_ENQUEUE" -C "$CONF" -d example.org -l "${3:-mylist}" -q -f "$1"
}

# token VERB ADDR - the VERB token in ADDR's newest notice
token() {
	mail_to "$2" | sed -n "s/^$1 \\([0-9a-f]\\{32\\}\\)\$/\\1/p" | head -1
}

# held - the held posts (messages under HOLD/)
held() {
	find "$SPOOL/HOLD" -type f ! -name '.*' 2>/dev/null | wc -l
}

@test "a subscriber's post goes out at once; a non-member's is held, and the reply to the notice releases it to every subscriber once" {
	post a@users.test
	runq
	[ "$(got a@users.test)" -eq 1 ]
	[ "$(got b@users.test)" -eq 1 ]
	[ "$(held)" -eq 0 ]
	post stranger@users.test "buy now"
	runq
	[ "$(got a@users.test)" -eq 1 ]
	[ "$(held)" -eq 1 ]
	[ -z "$(queue_files)" ]
	why=$(cat "$(find "$SPOOL/HOLD" -name '.*.why')")
	[ "$why" = "moderation: <stranger@users.test> is not a subscriber (posting = subscribers)" ]
	# The notice: to the owner (the default moderator), from -request,
	# the post's headers and first lines, one token per action.
	[ "$(got boss@users.test)" -eq 1 ]
	notice=$(mail_to boss@users.test)
	grep -qx 'From: <mylist-request@example.org>' <<<"$notice"
	grep -qx '  Subject: buy now' <<<"$notice"
	grep -qx '  | hello from stranger@users.test' <<<"$notice"
	approve=$(token approve boss@users.test)
	[ ${#approve} -eq 32 ]
	[ -n "$(token reject boss@users.test)" ]
	[ -n "$(token discard boss@users.test)" ]
	[ "$(token reject boss@users.test)" != "$approve" ]
	grep -qx "Subject: approve $approve" <<<"$notice"
	# The reply button: Re: on the Subject, the notice quoted.
	{
		printf 'From: Boss <boss@users.test>\nSubject: Re: approve %s\n\n' "$approve"
		printf 'fine by me\n\n'
		sed 's/^/> /' <<<"$notice"
	} | "$MJ_ENQUEUE" -C "$CONF" -d example.org -l mylist -q -f boss@users.test
	runq
	[ "$(held)" -eq 0 ]
	[ -z "$(queue_files)" ]
	[ -z "$(find "$SPOOL" -name '*.why')" ]
	[ "$(got a@users.test)" -eq 2 ]
	[ "$(got b@users.test)" -eq 2 ]
	mail_to a@users.test | grep -qx 'hello from stranger@users.test'
	mail_to a@users.test | grep -q '^List-Id: <mylist.example.org>'
	grep -q "held post .* to mylist@example.org approved by <boss@users.test>" "$RUNLOG"
	mail_to boss@users.test | grep -q '^The post .* to mylist@example.org was approved.$'
	# The same token again: refused, nothing delivered twice.
	request boss@users.test "approve $approve"
	runq
	mail_to boss@users.test | grep -qx "The token $approve has already been used."
	[ "$(got a@users.test)" -eq 2 ]
	[ "$(got stranger@users.test)" -eq 0 ]
}

@test "reject returns the post to its poster with the reason; discard drops it silently; the other tokens of a post die with it" {
	post stranger@users.test "first"
	runq
	reject=$(token reject boss@users.test)
	approve1=$(token approve boss@users.test)
	post other@users.test "second"
	runq
	discard=$(token discard boss@users.test)
	[ "$(held)" -eq 2 ]
	request boss@users.test "reject $reject off topic here"
	runq
	[ "$(held)" -eq 1 ]
	[ "$(got stranger@users.test)" -eq 1 ]
	told=$(mail_to stranger@users.test)
	grep -qx 'Your post to mylist@example.org (Subject: first)' <<<"$told"
	grep -qx 'was rejected by a moderator: off topic here' <<<"$told"
	grep -q "held post .* rejected by <boss@users.test>: off topic here" "$RUNLOG"
	# the approve token of the rejected post: its post is gone
	request boss@users.test "approve $approve1"
	runq
	mail_to boss@users.test | grep -q "^The post of token $approve1 is no longer held"
	request boss@users.test "discard $discard"
	runq
	[ "$(held)" -eq 0 ]
	[ "$(got other@users.test)" -eq 0 ]
	[ "$(got a@users.test)" -eq 0 ]
	grep -q "held post .* discarded by <boss@users.test>" "$RUNLOG"
	[ -z "$(queue_files)" ]
}

@test "a held post past moderation_lifetime is removed and its poster told once" {
	printf 'moderation_lifetime = 1s\n' >>"$LISTS/example.org/mylist/config"
	post stranger@users.test "too late"
	runq
	[ "$(held)" -eq 1 ]
	approve=$(token approve boss@users.test)
	sleep 2 # the lifetime must pass: a clock condition
	runq
	[ "$(held)" -eq 0 ]
	[ "$(got stranger@users.test)" -eq 1 ] || { cat "$RUNLOG"; false; }
	mail_to stranger@users.test | grep -qx 'was not approved by a moderator within 1 second and has been removed.'
	grep -q 'held post to mylist@example.org expired after' "$RUNLOG"
	runq
	[ "$(got stranger@users.test)" -eq 1 ]
	[ "$(got a@users.test)" -eq 0 ]
	# approving it now finds nothing
	request boss@users.test "approve $approve"
	runq
	mail_to boss@users.test | grep -q "^The post of token $approve is no longer held"
	[ "$(got a@users.test)" -eq 0 ]
}

@test "a token of another list, a token for another action and garbage are refused, and the post stays held" {
	mjq_list example.org other a@users.test
	printf '[list]\nowners = boss@users.test\n' >"$LISTS/example.org/other/config"
	post stranger@users.test
	runq
	approve=$(token approve boss@users.test)
	reject=$(token reject boss@users.test)
	request boss@users.test "approve $approve" other
	runq
	mail_to boss@users.test | grep -qx "The token $approve is not for approve at other@example.org."
	request boss@users.test "$(printf 'approve %s\napprove 0123456789abcdef0123456789abcdef\napprove zz\napprove ../../etc/passwd\nreject\n\001\002 garbage\n' "$reject")"
	runq
	answer=$(mail_to boss@users.test)
	grep -qx "The token $reject is not for approve at mylist@example.org." <<<"$answer"
	grep -qx 'The token 0123456789abcdef0123456789abcdef is not valid.' <<<"$answer"
	grep -qx 'The token zz is not valid.' <<<"$answer"
	grep -qx 'malformed token (send "help" for the commands).' <<<"$answer"
	[ "$(held)" -eq 1 ]
	[ "$(got a@users.test)" -eq 0 ]
	# the right token still works after all that
	request boss@users.test "approve $approve"
	runq
	[ "$(held)" -eq 0 ]
	[ "$(got a@users.test)" -eq 1 ]
}

@test "posting = owners: an announce list takes the owner's posts and holds a subscriber's" {
	printf 'posting = owners\n' >>"$LISTS/example.org/mylist/config"
	post a@users.test "from a subscriber"
	runq
	[ "$(held)" -eq 1 ]
	[ "$(got b@users.test)" -eq 0 ]
	grep -qx 'moderation: <a@users.test> is not an owner or moderator (posting = owners)' \
		"$(find "$SPOOL/HOLD" -name '.*.why')"
	post boss@users.test "announcement"
	runq
	[ "$(got b@users.test)" -eq 1 ]
	mail_to b@users.test | grep -qx 'Subject: announcement'
}

@test "moderators, accept_from with *@domain, moderated, and nonmember_action reject and discard" {
	printf 'moderators = mod@users.test\naccept_from = accept\n' >>"$LISTS/example.org/mylist/config"
	printf '# friends\n*@Friends.Test\nsolo@users.test\n' >"$LISTS/example.org/mylist/accept"
	printf '[transport_map]\nfriends.test = smtp:[127.0.0.1]:%s\n' "$PORT" >>"$CONF"
	post pal@friends.test
	post solo@users.test
	runq
	[ "$(got a@users.test)" -eq 2 ]
	post stranger@users.test
	runq
	[ "$(got mod@users.test)" -eq 1 ]
	[ "$(got boss@users.test)" -eq 0 ]
	[ "$(held)" -eq 1 ]
	# moderated: even a subscriber waits; the moderator does not
	printf 'posting = moderated\n' >>"$LISTS/example.org/mylist/config"
	post a@users.test
	runq
	[ "$(held)" -eq 2 ]
	post mod@users.test
	runq
	[ "$(got a@users.test)" -eq 3 ]
	printf 'posting = subscribers\nnonmember_action = reject\n' >>"$LISTS/example.org/mylist/config"
	post nobody@users.test "rejected"
	runq
	[ "$(held)" -eq 2 ]
	mail_to nobody@users.test | grep -qx 'was not accepted: <nobody@users.test> is not a subscriber (posting = subscribers).'
	printf 'nonmember_action = discard\n' >>"$LISTS/example.org/mylist/config"
	post ghost@users.test "dropped"
	runq
	[ "$(held)" -eq 2 ]
	[ "$(got ghost@users.test)" -eq 0 ]
	grep -q 'post discarded: <ghost@users.test> is not a subscriber' "$RUNLOG"
	[ -z "$(queue_files)" ]
}

@test "a bounce to the post address is never held: dropped unless its From may post" {
	printf 'From: MAILER-DAEMON@users.test\nSubject: Undelivered Mail\n\nbounce\n' |
		"$MJ_ENQUEUE" -C "$CONF" -d example.org -l mylist -r -f ''
	runq
	[ "$(held)" -eq 0 ]
	[ "$(got boss@users.test)" -eq 0 ]
	[ "$(got a@users.test)" -eq 0 ]
	grep -q "post discarded: <MAILER-DAEMON@users.test> is not a subscriber" "$RUNLOG"
	[ -z "$(queue_files)" ]
	# no envelope sender known at all is not a bounce: held, From told
	printf 'From: <nosender@users.test>\nSubject: who\n\nhi\n' |
		env -u SENDER "$MJ_ENQUEUE" -C "$CONF" -d example.org -l mylist -r
	run -1 grep -q '^Return-Path' "$SPOOL/$(queue_files)"
	runq
	[ "$(held)" -eq 1 ]
	[ "$(got boss@users.test)" -eq 1 ]
	request boss@users.test "reject $(token reject boss@users.test) no"
	runq
	mail_to nosender@users.test | grep -qx 'was rejected by a moderator: no'
}

@test "a bad posting value is an error naming the key" {
	printf 'posting = members\n' >>"$LISTS/example.org/mylist/config"
	post stranger@users.test
	runq
	grep -q "posting: 'members' is not open, subscribers, moderated or owners" "$RUNLOG"
	[ "$(held)" -eq 0 ]
	[ -n "$(queue_files)" ]
}

@test "hostile: 1000 held posts stay in HOLD/, and the moderator gets no more notices than reply_rate_limit" {
	slow "1,000 posts held one by one"
	RUNQ_TIMEOUT=300
	for i in $(seq 1000); do
		printf 'From: <spam%s@users.test>\nSubject: spam %s\n\nbuy\n' "$i" "$i"
	done >"$BATS_TEST_TMPDIR/spam"
	for i in $(seq 1000); do
		sed -n "$((i * 4 - 3)),$((i * 4))p" "$BATS_TEST_TMPDIR/spam" |
			"$MJ_ENQUEUE" -C "$CONF" -d example.org -l mylist -r -f "spam$i@users.test"
	done
	runq
	[ "$(held)" -eq 1000 ]
	[ -z "$(queue_files)" ]
	[ "$(got boss@users.test)" -eq 10 ]
	[ "$(got a@users.test)" -eq 0 ]
	[ "$(grep -c 'no reply to <boss@users.test>' "$RUNLOG")" -eq 990 ]
	# tokens only for the notices that went: three each
	[ "$(tokens)" -eq 30 ]
}

# rel PATH - PATH relative to the spool, as mj_queuerun -l prints it
rel() {
	echo "${1#"$SPOOL"/}"
}

@test "operator: -l shows held and quarantined messages with their reasons; -h holds, -H releases (past the posting policy), -D deletes" {
	post stranger@users.test "operator"
	f=$(queue_files)
	[ -n "$f" ]
	run --separate-stderr "$MJ_QUEUERUN" -C "$CONF" -h "$f"
	[ "$status" -eq 0 ]
	name=$(basename "$f")
	[ "$output" = "QUEUE/10/example.org/10/list/$name: held: now HOLD/10/example.org/10/list/$name" ]
	[ -z "$(queue_files)" ]
	run "$MJ_QUEUERUN" -C "$CONF" -l
	[ "$status" -eq 0 ]
	grep -q "^HOLD/10/example.org/10/list/$name age=.* next=held why=held by the operator (uid $(id -u))\$" <<<"$output"
	runq
	[ "$(got a@users.test)" -eq 0 ]
	[ "$(got boss@users.test)" -eq 0 ]
	# held again, or held while held: refused
	run "$MJ_QUEUERUN" -C "$CONF" -h "HOLD/10/example.org/10/list/$name"
	[ "$status" -eq 65 ]
	# released by its bare name: the operator's word passes the policy
	run --separate-stderr "$MJ_QUEUERUN" -C "$CONF" -H "$name"
	[ "$status" -eq 0 ]
	[ "$output" = "HOLD/10/example.org/10/list/$name: released: now QUEUE/10/example.org/10/list/$name" ]
	[ "$(held)" -eq 0 ]
	runq
	[ "$(got a@users.test)" -eq 1 ]
	[ "$(got b@users.test)" -eq 1 ]
	[ "$(held)" -eq 0 ]
	[ -z "$(queue_files)" ]
	[ -z "$(find "$SPOOL" -name '*.why')" ]
	# a post held for moderation is listed with its reason, and deleted
	post stranger@users.test "second"
	runq
	run "$MJ_QUEUERUN" -C "$CONF" -l
	grep -q "next=held why=moderation: <stranger@users.test> is not a subscriber (posting = subscribers)\$" <<<"$output"
	h=$(find "$SPOOL/HOLD" -type f ! -name '.*')
	run "$MJ_QUEUERUN" -C "$CONF" -D "$(rel "$h")"
	[ "$status" -eq 0 ]
	[ "$(held)" -eq 0 ]
	[ -z "$(find "$SPOOL/HOLD" -name '.*')" ]
	run "$MJ_QUEUERUN" -C "$CONF" -D "$(rel "$h")"
	[ "$status" -eq 66 ]
}

@test "operator: a message in BAD/ released starts afresh; bad names and busy messages are refused" {
	post a@users.test "crashed"
	f=$(queue_files)
	name=$(basename "$f")
	echo 3 >"$SPOOL/$(dirname "$f")/.$name.try"
	runq
	[ -n "$(find "$SPOOL/BAD" -type f -name "$name")" ]
	run "$MJ_QUEUERUN" -C "$CONF" -l
	grep -q "^BAD/.*/$name .*next=quarantined why=a runner died 3 times" <<<"$output"
	run "$MJ_QUEUERUN" -C "$CONF" -H "BAD/10/example.org/10/list/$name"
	[ "$status" -eq 0 ]
	runq
	[ "$(got a@users.test)" -eq 1 ]
	[ -z "$(find "$SPOOL" -name "*$name*")" ]
	for bad in ../../etc/passwd "QUEUE/10/example.org/10/list/.$name" \
		"QUEUE/10/../10/list/$name" "QUEUE/1/example.org/10/list/$name" \
		"TMP/10/example.org/10/list/$name" "QUEUE/10/example.org/10/list/$name/x" \
		"not-a-name"; do
		run "$MJ_QUEUERUN" -C "$CONF" -H "$bad"
		[ "$status" -eq 64 ] || { echo "$bad: $status $output"; false; }
	done
	post a@users.test "busy"
	f=$(queue_files)
	run flock "$SPOOL/$f" "$MJ_QUEUERUN" -C "$CONF" -h "$SPOOL/$f"
	[ "$status" -eq 75 ]
	[[ "$output" == *"a runner has it in hand: try again"* ]]
	[ "$(queue_files)" = "$f" ]
}

# prom - mj_queueserv status -p read by the Prometheus client library's
# own parser: one line per sample, "name{label=value,...} value", labels
# sorted; a document the parser rejects fails the test.  Debian's python3
# (python3-prometheus-client, dev/deps.sh), not another on the PATH
prom() {
	"$MJ_QUEUESERV" -C "$CONF" status -p | /usr/bin/python3 -c '
import sys
from prometheus_client.parser import text_string_to_metric_families
for fam in text_string_to_metric_families(sys.stdin.read()):
    assert fam.documentation, fam.name
    for s in fam.samples:
        labels = ",".join("%s=%s" % kv for kv in sorted(s.labels.items()))
        print("%s{%s} %g" % (s.name, labels, s.value))
'
}

@test "mj_queueserv status shows held posts per list; status -p is Prometheus text a real parser reads, runner restarts counted" {
	mjq_list example.org other a@users.test
	printf '[list]\nowners = boss@users.test\n' >"$LISTS/example.org/other/config"
	post x@users.test one
	post y@users.test two
	post z@users.test three other
	runq
	[ "$(held)" -eq 3 ]
	printf '[queueserv]\nmin_runners = 1\n' >>"$CONF"
	queueserv_start
	run "$MJ_QUEUESERV" -C "$CONF" status
	[ "$status" -eq 0 ]
	grep -qx 'held: mylist@example.org 2' <<<"$output"
	grep -qx 'held: other@example.org 1' <<<"$output"
	run "$MJ_QUEUESERV" -C "$CONF" status -j
	[[ "$output" == *'"held_lists":[{"list":"mylist","domain":"example.org","held":2},{"list":"other","domain":"example.org","held":1}]'* ]]
	run prom
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	grep -qx 'mjq_messages{domain_prio=10,list_prio=10,state=held} 3' <<<"$output"
	grep -qx 'mjq_messages{domain_prio=10,list_prio=10,state=due} 0' <<<"$output"
	grep -qx 'mjq_held_messages{domain=example.org,list=mylist} 2' <<<"$output"
	grep -qx 'mjq_held_messages{domain=example.org,list=other} 1' <<<"$output"
	grep -qx 'mjq_oldest_message_age_seconds{} 0' <<<"$output"
	grep -qx "mjq_destination_window{nexthop=\[127.0.0.1\]:$PORT,transport=smtp} [0-9]*" <<<"$output"
	grep -qx "mjq_destination_busy{nexthop=\[127.0.0.1\]:$PORT,transport=smtp} 0" <<<"$output"
	grep -qx "mjq_destination_dead{nexthop=\[127.0.0.1\]:$PORT,transport=smtp} 0" <<<"$output"
	grep -qx 'mjq_runner_restarts_total{} 0' <<<"$output"
	# a runner killed with SIGKILL is replaced, and counted
	wait_for 10 eval '[ -n "$(runner_pids)" ]'
	old=$(runner_pids)
	kill -KILL $old
	wait_for 10 eval '[ -n "$(runner_pids)" ] && [ "$(runner_pids)" != "$old" ]'
	run prom
	[ "$status" -eq 0 ]
	grep -qx 'mjq_runner_restarts_total{} 1' <<<"$output"
	grep -qx 'mjq_runners{} 1' <<<"$output"
	# deliveries by outcome since the server started: a subscriber's post
	# to a and b, through the server's runner
	grep -qx "mjq_deliveries_total{nexthop=\[127.0.0.1\]:$PORT,outcome=delivered,transport=smtp} 0" <<<"$output"
	post a@users.test counted
	wait_for 20 eval '[ "$(got b@users.test)" -eq 1 ]'
	wait_for 10 eval 'prom | grep -qx "mjq_deliveries_total{nexthop=\[127.0.0.1\]:$PORT,outcome=delivered,transport=smtp} 2"'
	run prom
	grep -qx "mjq_deliveries_total{nexthop=\[127.0.0.1\]:$PORT,outcome=deferred,transport=smtp} 0" <<<"$output"
	grep -qx "mjq_deliveries_total{nexthop=\[127.0.0.1\]:$PORT,outcome=bounced,transport=smtp} 0" <<<"$output"
	queueserv_stop
}

@test "crash: killed as the post is linked into HOLD/ (its notice committed), the next pass holds it with a second notice, and the first notice's token still works" {
	command -v strace >/dev/null || skip "no strace"
	post stranger@users.test "crash"
	name=$(basename "$(queue_files)")
	crash_at link "$SPOOL/HOLD/10/example.org/10/list/$name"
	[ "$(held)" -eq 0 ]
	[ -n "$(queue_files | grep "/list/$name\$")" ]
	runq
	[ "$(held)" -eq 1 ]
	[ "$(got boss@users.test)" -eq 2 ]
	# the first notice's approve token names the same post
	first=$(grep "to=<boss@users.test>\$" "$SLOG" | head -1 | cut -d' ' -f2)
	approve=$(tr -d '\r' <"$SAVE/$first" | sed -n 's/^approve \([0-9a-f]\{32\}\)$/\1/p')
	[ "$approve" != "$(token approve boss@users.test)" ]
	request boss@users.test "approve $approve"
	runq
	[ "$(held)" -eq 0 ]
	[ "$(got a@users.test)" -eq 1 ]
	[ "$(got b@users.test)" -eq 1 ]
}

@test "crash: killed after approve moved the post into QUEUE/ but before its token was spent: the post goes out once, the token is then refused" {
	command -v strace >/dev/null || skip "no strace"
	post stranger@users.test "crash"
	runq
	approve=$(token approve boss@users.test)
	request boss@users.test "approve $approve"
	crash_at rename "$SPOOL/state/tokens/$approve"
	[ "$(held)" -eq 0 ]
	[ -f "$SPOOL/state/tokens/$approve" ]
	runq
	[ "$(got a@users.test)" -eq 1 ]
	[ "$(got b@users.test)" -eq 1 ]
	# the request ran again after the crash: its token no longer finds
	# the post; and the same again by hand
	request boss@users.test "approve $approve"
	runq
	mail_to boss@users.test | grep -q "^The post of token $approve is no longer held"
	[ "$(got a@users.test)" -eq 1 ]
	[ -z "$(queue_files)" ]
}

@test "a reply whose body gives a command: the body's counts, never the Subject's, for every pair of approve, reject and discard" {
	printf '[request]\nreply_rate_limit = 100\n' >>"$CONF"
	declare -A done=([approve]=approved [reject]=rejected [discard]=discarded)
	declare -A tok
	local s b v arg n=0 told=0
	for s in approve reject discard; do
		for b in approve reject discard; do
			post stranger@users.test "pair $s $b"
			runq
			[ "$(held)" -eq 1 ]
			for v in approve reject discard; do
				tok[$v]=$(token "$v" boss@users.test)
			done
			arg=
			[ "$b" != reject ] || arg=" spam"
			# the reply button: Subject "Re: approve TOKEN" (or
			# another verb, written by hand), the body's own line
			printf 'From: <boss@users.test>\nSubject: Re: %s %s\n\n%s %s%s\n\n> the notice\n' \
				"$s" "${tok[$s]}" "$b" "${tok[$b]}" "$arg" |
				"$MJ_ENQUEUE" -C "$CONF" -d example.org -l mylist -q -f boss@users.test
			runq
			[ "$(held)" -eq 0 ] || { echo "pair $s $b: still held" >&2; false; }
			[ "$b" != approve ] || n=$((n + 1))
			[ "$b" != reject ] || told=$((told + 1))
			[ "$(got a@users.test)" -eq "$n" ] || { echo "pair $s $b: a@ got $(got a@users.test), want $n" >&2; false; }
			[ "$(got stranger@users.test)" -eq "$told" ]
			answer=$(mail_to boss@users.test)
			grep -qx "The post .* to mylist@example.org was ${done[$b]}." <<<"$answer"
			if [ "$s" = "$b" ]; then
				run ! grep -q '^Not run' <<<"$answer"
			else
				grep -qx ">>> $s ${tok[$s]}" <<<"$answer"
				grep -qx "Not run: the body of the message gives a moderation command, and that counts instead of the Subject's." <<<"$answer"
				run ! grep -q 'no longer held' <<<"$answer"
			fi
		done
	done
	# what the subscribers got: the three posts whose body said approve
	for id in $(grep 'to=<a@users.test>$' "$SLOG" | cut -d' ' -f2); do
		tr -d '\r' <"$SAVE/$id" | sed -n 's/^Subject: .*\(pair [a-z]* [a-z]*\)$/\1/p'
	done | sort >"$BATS_TEST_TMPDIR/out"
	printf 'pair approve approve\npair discard approve\npair reject approve\n' |
		diff - "$BATS_TEST_TMPDIR/out"
}

@test "expiry racing an approve: the sweep stopped between its open and its lock of the held post, an approve moves it meanwhile, and its poster is not told it expired" {
	command -v strace >/dev/null || skip "no strace"
	printf 'moderation_lifetime = 90m\n' >>"$LISTS/example.org/mylist/config"
	post stranger@users.test "raced"
	runq
	mail_to boss@users.test | grep -qx 'post is removed in 90 minutes and its poster told.'
	path=$(find "$SPOOL/HOLD" -type f ! -name '.*')
	approve=$(token approve boss@users.test)
	# held two hours: due for expiry
	touch -d '2 hours ago' "$(dirname "$path")/.$(basename "$path").why"
	# runner A: stopped (SIGSTOP, injected by strace) as it returns from
	# its open of the held post in its expiry sweep, before its lock
	ASAN_OPTIONS=detect_leaks=0 strace -f -qq -o "$BATS_TEST_TMPDIR/a.trace" \
		-P "$path" -e trace=open,openat -e inject=open,openat:signal=SIGSTOP \
		"$MJ_QUEUERUN" -C "$CONF" -1 2>>"$RUNLOG" 3>&- &
	spid=$!
	RACE_PIDS=$spid
	wait_for 20 grep -q 'stopped by SIGSTOP' "$BATS_TEST_TMPDIR/a.trace"
	apid=$(pgrep -P "$spid")
	RACE_PIDS="$apid $spid"
	grep -q "openat(.*$(basename "$path")\", O_RDONLY|O_NOFOLLOW|O_CLOEXEC) = " "$BATS_TEST_TMPDIR/a.trace"
	# runner B, for whom the post is not due (a longer lifetime, read
	# after A read its own), runs the moderator's approve
	printf 'moderation_lifetime = 7d\n' >>"$LISTS/example.org/mylist/config"
	request boss@users.test "approve $approve"
	runq
	[ "$(got a@users.test)" -eq 1 ]
	[ ! -e "$path" ]
	# A goes on: the path no longer names what it opened
	kill -CONT "$apid"
	wait "$spid"
	[ "$(got stranger@users.test)" -eq 0 ] || { cat "$RUNLOG"; false; }
	run ! grep -q 'expired after' "$RUNLOG"
	[ "$(got a@users.test)" -eq 1 ]
}

# post_as PID FROM SUBJECT - post() by an mj_enqueue whose process id is
# PID: in a pid namespace of its own, /proc/sys/kernel/ns_last_pid set to
# PID - 1 just before the fork (as t/680 does), so no other process can
# take the id first
post_as() {
	printf 'From: <%s>\nSubject: %s\nMessage-Id: <%s@users.test>\n\nhello from %s\n' \
		"$2" "$3" "$RANDOM$RANDOM" "$2" |
		unshare -pf --mount-proc sh -c \
			'echo $(($1 - 1)) >/proc/sys/kernel/ns_last_pid || exit 70
			shift; "$@"; r=$?; exit $r' \
			sh "$1" "$MJ_ENQUEUE" -C "$CONF" -d example.org -l mylist -r -f "$2"
}

@test "a new post by the pid of a held post's mj_enqueue, in the same hour, gets a name of its own: held too, and approving the old one lets only the old one out" {
	unshare -pf --mount-proc true 2>/dev/null || skip "no pid namespaces"
	post_as 4545 stranger@users.test "the held one"
	runq
	[ "$(held)" -eq 1 ]
	old=$(basename "$(find "$SPOOL/HOLD" -type f ! -name '.*')")
	[[ "$old" == ?AA-4545-mylist ]]
	approve=$(token approve boss@users.test)
	post_as 4545 other@users.test "the new one"
	new=$(basename "$(queue_files)")
	[ "${new:0:1}" = "${old:0:1}" ] || skip "the hour changed between the two posts"
	# same pid, same hour: the held post has the name, so the new one
	# takes the next letters
	[ "$new" = "${old:0:1}AB-4545-mylist" ]
	runq
	[ "$(held)" -eq 2 ]
	[ "$(got boss@users.test)" -eq 2 ]
	run ! grep -q 'File exists' "$RUNLOG"
	grep -qx "moderation: <stranger@users.test> is not a subscriber (posting = subscribers)" \
		"$SPOOL/HOLD/10/example.org/10/list/.$old.why"
	request boss@users.test "approve $approve"
	runq
	[ "$(held)" -eq 1 ]
	[ "$(got a@users.test)" -eq 1 ]
	mail_to a@users.test | grep -q '^Subject: .*the held one$'
	[ -e "$SPOOL/HOLD/10/example.org/10/list/$new" ]
}

@test "approve refuses to move a held post onto another message of its name in QUEUE/, and changes nothing there" {
	post stranger@users.test "the held one"
	runq
	name=$(basename "$(find "$SPOOL/HOLD" -type f ! -name '.*')")
	approve=$(token approve boss@users.test)
	# A post under the same name in QUEUE/, as an mj_enqueue that only
	# looked in QUEUE/ made it (pid reuse in the hour), not due yet so
	# that this pass leaves it alone
	dir=$SPOOL/QUEUE/10/example.org/10/list
	mkdir -p "$dir"
	printf 'From: <other@users.test>\nSubject: the new one\n\nunapproved\n' >"$dir/$name"
	touch -d '+1 hour' "$dir/$name"
	request boss@users.test "approve $approve"
	runq
	[ ! -e "$dir/.$name.why" ]
	[ ! -e "$dir/.$name" ]
	[ "$(held)" -eq 1 ]
	grep -qx 'unapproved' "$dir/$name"
	mail_to boss@users.test | grep -q "^The post $name cannot be approved now: another message of that name"
	[ "$(got a@users.test)" -eq 0 ]
	# the new post, once due, is not taken for the approved one
	make_due
	runq
	[ "$(got a@users.test)" -eq 0 ]
	# the token was not spent: once the name is free, it approves
	rm -f "$dir/$name" "$dir/.$name"
	request boss@users.test "approve $approve"
	runq
	[ "$(held)" -eq 0 ]
	[ "$(got a@users.test)" -eq 1 ]
	mail_to a@users.test | grep -q '^Subject: .*the held one$'
}

# tokens - the unspent tokens in the spool
tokens() {
	find "$SPOOL/state/tokens" -type f ! -name '.*' 2>/dev/null | wc -l
}

@test "a notice the reply rate limit keeps back makes no tokens" {
	printf '[request]\nreply_rate_limit = 2\n' >>"$CONF"
	for i in 1 2 3 4; do
		post "stranger$i@users.test" "held $i"
	done
	runq
	[ "$(held)" -eq 4 ]
	[ "$(got boss@users.test)" -eq 2 ]
	[ "$(grep -c 'no reply to <boss@users.test>' "$RUNLOG")" -eq 2 ]
	# three tokens (approve, reject, discard) per notice that went out
	[ "$(tokens)" -eq 6 ]
}

@test "a damaged token is answered as damaged, not as a token for another action" {
	post stranger@users.test
	runq
	approve=$(token approve boss@users.test)
	# the token's file cut short (a torn write, a bad disk): its action
	# is there, the post it names is not
	head -1 "$SPOOL/state/tokens/$approve" >"$BATS_TEST_TMPDIR/cut"
	cat "$BATS_TEST_TMPDIR/cut" >"$SPOOL/state/tokens/$approve"
	request boss@users.test "approve $approve"
	runq
	mail_to boss@users.test | grep -qx "The token $approve is not a moderation token, or it is damaged: it cannot be used."
	grep -q "approve from <boss@users.test>: token ${approve:0:8}... is not a moderation token, or is damaged" "$RUNLOG"
	run ! grep -q 'not a approve' "$RUNLOG"
	[ "$(held)" -eq 1 ]
	[ "$(got a@users.test)" -eq 0 ]
}
