#!/usr/bin/env bats
# t/63-powerloss.bats - the power-loss check from outside: the order of
# the runner's writes, fsyncs, links and unlinks, traced with strace -f
# and checked by t/data/runner-order.awk against the numbered states of
# spool-layout/README: the state file's creation and updates, generated
# mail (a DSN), and moves to BAD/ and HOLD/.  mj_enqueue's own commit is
# t/10-enqueue.bats's.

bats_require_minimum_version 1.5.0
load helpers
load smtp_helpers

# Posting policy is t/76's; these lists take posts from anyone.
MJQ_LIST_POSTING=open

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
	# the state's updates end with one fdatasync, after the last pwrite
	last_pwrite=$(grep -n 'pwrite64(' "$BATS_TEST_TMPDIR/trace" | tail -1 | cut -d: -f1)
	last_sync=$(grep -n 'fdatasync(' "$BATS_TEST_TMPDIR/trace" | tail -1 | cut -d: -f1)
	[ "$last_sync" -gt "$last_pwrite" ]
	[ "$(grep -c 'fdatasync(' "$BATS_TEST_TMPDIR/trace")" -eq 1 ]
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
