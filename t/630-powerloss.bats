#!/usr/bin/env bats
# t/630-powerloss.bats - the power-loss check from outside: the order of
# the runner's writes, fsyncs, links and unlinks, traced with strace -f
# and checked by t/data/runner-order.awk against the numbered states of
# spool-layout/README: the state file's creation and updates, generated
# mail (a DSN), and moves to BAD/ and HOLD/.  mj_enqueue's own commit is
# t/100-enqueue.bats's.  Then power losses themselves: a runner killed
# mid-post whose state file is put back to its last synced form (kept by
# the LD_PRELOAD shim t/tools/preload_syncsnap.so), and status words torn
# at every byte.

bats_require_minimum_version 1.5.0
load helpers
load smtp_helpers

# The DSN of a post is in the order checked here: the runner makes it
# rather than judging its posts' failures itself (bounce_judge, t/730 and t/731).
MJQ_LIST_KEYS='bounce_judge = no'

setup() {
	command -v strace >/dev/null || skip "no strace"
	mjq_setup </dev/null
}

teardown() {
	servers_stop
}

post() {
	printf 'From: p@example.net\nSubject: x\n%s\nhi\n' "${1:-}" |
		"$MJ_ENQUEUE" -C "$CONF" -d ex.org -l l -r -f p@example.net
}

# traced_run - one runner pass under strace; the checker's verdict in
# $output
traced_run() {
	ASAN_OPTIONS=detect_leaks=0 strace -f -qq -o "$BATS_TEST_TMPDIR/trace" \
		-e trace=openat,write,pwrite64,fsync,fdatasync,link,linkat,unlink,unlinkat,rename,renameat,renameat2,mkdir,mkdirat,exit_group \
		"$MJ_QUEUERUN" -C "$CONF" -1 2>>"$BATS_TEST_TMPDIR/run.log"
	run awk -v spool="$SPOOL" -f "$TOP/t/data/runner-order.awk" "$BATS_TEST_TMPDIR/trace"
	echo "$output"
}

@test "state file, a 5xx, its DSN and both finishes follow the spec's order" {
	smtpd_start s --rcpt 'b@*=550 5.1.1 no such user'
	printf '[transport_map]\nd.test = smtp:[127.0.0.1]:%s\nex.org = smtp:[127.0.0.1]:%s\n' \
		"$PORT" "$PORT" >>"$CONF"
	mjq_list ex.org l a@d.test b@d.test
	post
	traced_run
	[ "$status" -eq 0 ]
	# state/ made; the post's state file committed (tmp, link, fsync of
	# the directory, tmp removed); the DSN's owner/ made durable in its
	# parent, its state linked before its message, the directory synced,
	# the tmp names removed, and only then the recipient marked bounced;
	# the post removed message first, then the DSN delivered and removed
	[ "$output" = "runner order ok: mkdir link-state fsync-dir unlink-tmp unlink-try mkdir link-state link-msg fsync-dir unlink-tmp unlink-tmp bounced unlink-msg unlink-state unlink-msg unlink-state exit0" ]
	grep -q 'to=<l-owner@ex.org>' "$BATS_TEST_TMPDIR/s/log"
}

@test "a deferral updates the state in place and syncs it before the pass ends" {
	smtpd_start s --rcpt 'b@*=450 4.2.0 busy'
	printf '[transport_map]\nd.test = smtp:[127.0.0.1]:%s\n' "$PORT" >>"$CONF"
	mjq_list ex.org l a@d.test b@d.test
	post
	traced_run
	[ "$status" -eq 0 ]
	[ "$output" = "runner order ok: mkdir link-state fsync-dir unlink-tmp unlink-try exit0" ]
	# two fdatasyncs: the batch's outcome (its two status words) at
	# once, then the pass's end (error, tries) after the last pwrite
	local tr=$BATS_TEST_TMPDIR/trace words sync1 sync2 last
	words=$(grep -n 'pwrite64([0-9]*, "de[a-z ]*", 9, ' "$tr" | tail -1 | cut -d: -f1)
	sync1=$(grep -n 'fdatasync(' "$tr" | head -1 | cut -d: -f1)
	sync2=$(grep -n 'fdatasync(' "$tr" | tail -1 | cut -d: -f1)
	last=$(grep -n 'pwrite64(' "$tr" | tail -1 | cut -d: -f1)
	[ "$(grep -c 'fdatasync(' "$tr")" -eq 2 ]
	[ "$(grep -c 'pwrite64([0-9]*, "de[a-z ]*", 9, ' "$tr")" -eq 2 ]
	[ "$sync1" -eq $((words + 1)) ]
	[ "$sync2" -gt "$last" ]
}

# sent - how many copies the test server s accepted
sent() {
	grep -c ' to=<' "$BATS_TEST_TMPDIR/s/log" || true
}

# sent_at_least N - the test server s accepted N copies or more
sent_at_least() {
	[ "$(sent)" -ge "$1" ]
}

@test "a power loss mid-post sends again only the batches in flight or awaiting their sync: at most twice delivery_threads batches" {
	# 3000 recipients in batches of 50, two threads: at most 2 batches
	# are at the workers and, with those whose words the sync thread has
	# not yet made durable, fewer than 4 (200 recipients) at any time
	local n=3000 threads=2 rlimit=50 snap=$BATS_TEST_TMPDIR/snap pid st ino
	smtpd_start s --delay eod=30
	printf '[delivery]\ndelivery_threads = %s\ndestination_recipient_limit = %s\n[transport_map]\nd.test = smtp:[127.0.0.1]:%s\n' \
		"$threads" "$rlimit" "$PORT" >>"$CONF"
	mjq_list ex.org l
	seq -f 'u%g@d.test' "$n" >"$LISTS/ex.org/l/subscribers"
	post
	# the runner keeps a copy of every file as each fsync or fdatasync
	# left it (t/tools/preload_syncsnap.c), and is killed mid-post
	mkdir "$snap"
	ASAN_OPTIONS=detect_leaks=0:verify_asan_link_order=0 \
		MJQ_SYNCSNAP_DIR=$snap LD_PRELOAD=$TOP/t/tools/preload_syncsnap.so \
		"$MJ_QUEUERUN" -C "$CONF" -1 2>>"$BATS_TEST_TMPDIR/run.log" 3>&- &
	pid=$!
	wait_for 60 sent_at_least $((n / 2))
	kill -KILL "$pid"
	{ wait "$pid"; } 2>/dev/null || true
	local before
	before=$(sent)
	[ "$before" -lt "$n" ]
	# the power loss: the state file as its last sync left it
	st=$(state_files)
	ino=$(stat -c %i "$st")
	[ -f "$snap/$ino" ]
	cat "$snap/$ino" >"$st"
	local marked
	marked=$(grep -c '^delivered ' "$st" || true)
	RUNQ_TIMEOUT=120 runq
	[ -z "$(queue_files)" ]
	local uniq total
	uniq=$(sed 's/.* to=//' "$BATS_TEST_TMPDIR/s/log" | sort -u | wc -l)
	total=$(sent)
	echo "# sent before the kill $before, marked delivered after the power loss $marked, sent again $((total - uniq)) (bound $((2 * threads * rlimit)))" >&3
	[ "$uniq" -eq "$n" ]
	[ $((total - uniq)) -le $((2 * threads * rlimit)) ]
}

# torn_words - every status word a power loss can tear, padded to 9: the
# first k bytes (1 to 8) of one word and the rest of another, for every
# two words; those that are no word, one per line
torn_words() {
	local w=("pending  " "delivered" "deferred " "bounced  " "failed   ") a b k
	for a in "${w[@]}"; do
		for b in "${w[@]}"; do
			[ "$a" != "$b" ] || continue
			for k in 1 2 3 4 5 6 7 8; do
				printf '%s\n' "${a:0:k}${b:k}"
			done
		done
	done | grep -vxE 'pending  |delivered|deferred |bounced  |failed   ' | sort -u
}

@test "a status word torn at any byte costs only that recipient's duplicate, never the post (BAD/)" {
	local torn n st i
	mapfile -t torn < <(torn_words)
	n=${#torn[@]}
	[ "$n" -ge 100 ]
	# a first pass to a server that defers everyone; then one recipient
	# marked delivered, one left deferred, and one each with a torn word
	smtpd_start s0 --rcpt '*=450 4.2.0 busy'
	P=$PORT
	printf '[transport_map]\nd.test = smtp:[127.0.0.1]:%s\n' "$P" >>"$CONF"
	mjq_list ex.org l
	{
		echo done@d.test
		echo todo@d.test
		for i in $(seq 1 "$n"); do echo "t$i@d.test"; done
	} >"$LISTS/ex.org/l/subscribers"
	post
	runq
	st=$(state_files)
	[ "$(grep -c '^deferred  [^ ]*@d.test$' "$st")" -eq $((n + 2)) ]
	printf '%s\n' "${torn[@]}" | awk '
		BEGIN { while ((getline w <"/dev/stdin") > 0) word[++nw] = w }
		/^deferred  done@/ { $0 = "delivered" substr($0, 10) }
		/^deferred  t[0-9]*@/ { i = substr($0, 12) + 0; $0 = word[i] substr($0, 10) }
		{ print }' "$st" >"$st.new"
	[ "$(stat -c %s "$st.new")" -eq "$(stat -c %s "$st")" ]
	cat "$st.new" >"$st"
	rm "$st.new"
	# the check pass and the runner read it: each torn word as deferred
	smtpd_start s
	sed -i "s/:$P\$/:$PORT/" "$CONF"
	make_due
	run "$MJ_QUEUERUN" -C "$CONF" -c
	[ -z "$(find "$SPOOL" -path '*/BAD/*' -type f)" ]
	runq
	[ -z "$(find "$SPOOL" -path '*/BAD/*' -type f)" ]
	[ -z "$(queue_files)" ]
	grep -q ": $n status word(s) in .* torn (a power loss): read as deferred" "$BATS_TEST_TMPDIR/run.log"
	# every recipient not delivered got one copy, the delivered one none
	[ "$(sent)" -eq $((n + 1)) ]
	[ "$(grep -c ' to=<done@d.test>' "$BATS_TEST_TMPDIR/s/log")" -eq 0 ]
	[ "$(sed 's/.* to=//' "$BATS_TEST_TMPDIR/s/log" | sort -u | wc -l)" -eq $((n + 1)) ]
}

@test "a loop goes to BAD/: .why, message, target synced, then the old names" {
	mjq_list ex.org l a@d.test
	post 'List-Id: <l.ex.org>'
	traced_run
	[ "$status" -eq 0 ]
	[ "$output" = "runner order ok: mkdir mkdir mkdir mkdir mkdir mkdir link-why fsync-dir unlink-tmp move-msg fsync-dir unlink-msg fsync-olddir unlink-try exit0" ]
	[ -n "$(find "$SPOOL/BAD" -name '.*.why')" ]
}

@test "max_crashes moves the message with its state file to BAD/ in the spec's order" {
	P=$(free_port)
	printf '[transport_map]\nd.test = smtp:[127.0.0.1]:%s\n' "$P" >>"$CONF"
	mjq_list ex.org l a@d.test
	post
	runq
	st=$(state_files)
	sed -i 's/^crashes      0$/crashes      2/; s/^active  *0$/active          1/' "$st"
	make_due
	traced_run
	[ "$status" -eq 0 ]
	[ "$output" = "runner order ok: mkdir mkdir mkdir mkdir mkdir link-why fsync-dir unlink-tmp move-state move-msg fsync-dir unlink-msg unlink-state fsync-olddir exit0" ]
}

@test "an oversized post is held in HOLD/ in the spec's order" {
	mjq_list ex.org l a@d.test
	printf '[list]\nmax_message_size = 10\n' >>"$LISTS/ex.org/l/config"
	post
	traced_run
	[ "$status" -eq 0 ]
	[ "$output" = "runner order ok: mkdir mkdir mkdir mkdir mkdir mkdir link-why fsync-dir unlink-tmp move-msg fsync-dir unlink-msg fsync-olddir unlink-try exit0" ]
	[ -n "$(find "$SPOOL/HOLD" -name '.*.why')" ]
}
