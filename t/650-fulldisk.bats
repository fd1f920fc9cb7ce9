#!/usr/bin/env bats
# t/650-fulldisk.bats - the spool on a small tmpfs that fills up: a runner
# that cannot write state defers and keeps the message, the server keeps
# running and says why, and delivery resumes when space returns.
# (mj_enqueue's 75 on a full disk is t/100-enqueue.bats's.)

bats_require_minimum_version 1.5.0
load helpers
load smtp_helpers

setup() {
	[ "$(id -u)" -eq 0 ] || skip "needs root to mount a tmpfs"
	QS_PID=
	MNT=$BATS_TEST_TMPDIR/mnt
	mkdir -p "$MNT"
	mount -t tmpfs -o size=2m mjqtest "$MNT" || skip "cannot mount a tmpfs"
	mjq_setup </dev/null
	# the spool lives on the small file system
	SPOOL=$MNT/spool
	mkdir -p "$SPOOL/tmp" "$SPOOL/QUEUE"
	sed -i "s|^dir = $BATS_TEST_TMPDIR/spool\$|dir = $SPOOL|" "$CONF"
}

teardown() {
	queueserv_stop
	servers_stop
	umount "$MNT" 2>/dev/null || umount -l "$MNT" 2>/dev/null
	return 0
}

# fill - take every free byte of the tmpfs
fill() {
	dd if=/dev/zero of="$MNT/filler" bs=64k 2>/dev/null || true
}

@test "full spool: the runner defers and keeps the message; delivery resumes when space returns" {
	smtpd_start s
	printf '[transport_map]\nd.test = smtp:[127.0.0.1]:%s\n' "$PORT" >>"$CONF"
	mjq_list ex.org l a@d.test b@d.test
	printf 'From: p@example.net\nSubject: full\n\nhi\n' |
		"$MJ_ENQUEUE" -C "$CONF" -d ex.org -l l -r -f p@example.net
	msg=$(queue_files)
	fill
	run -0 "$MJ_QUEUERUN" -C "$CONF" -1
	echo "$output"
	# nothing delivered, the message kept whole, no state file, no
	# tmp leftover, and the log says why
	[ ! -s "$BATS_TEST_TMPDIR/s/log" ]
	[ "$(queue_files)" = "$msg" ]
	grep -q '^Subject: full$' "$SPOOL/$msg"
	[ -z "$(find "$SPOOL/QUEUE" -name '.*' ! -name '*.try' -type f)" ]
	[ -z "$(ls -A "$SPOOL/tmp")" ]
	[[ "$output" == *"No space left on device"* ]]
	# put off, not spun on: a future mtime
	[ "$(stat -c %Y "$SPOOL/$msg")" -gt "$(date +%s)" ]
	# space returns: the next try delivers both, once each
	rm "$MNT/filler"
	touch -d '1 hour ago' "$SPOOL/$msg"
	run -0 "$MJ_QUEUERUN" -C "$CONF" -1
	[ "$(wc -l <"$BATS_TEST_TMPDIR/s/log")" -eq 2 ]
	[ -z "$(queue_files)" ]
}

@test "full spool under mj_queueserv: the server keeps running, logs the cause, and delivers after space returns" {
	smtpd_start s
	sed -i 's/^start_server = no$/start_server = no\npoke_timeout_ms = 2000/' "$CONF"
	printf '[queueserv]\nrunner_program = %s\nmax_runners = 2\nqueue_run_delay = 1s\n[delivery]\nminimal_backoff_time = 1s\n[transport_map]\nd.test = smtp:[127.0.0.1]:%s\n' \
		"$MJ_QUEUERUN" "$PORT" >>"$CONF"
	mjq_list ex.org l a@d.test
	queueserv_start
	printf 'From: p@example.net\nSubject: m1\n\nhi\n' |
		"$MJ_ENQUEUE" -C "$CONF" -d ex.org -l l -r -f p@example.net
	wait_for 10 eval '[ -s "$BATS_TEST_TMPDIR/s/log" ] && [ -z "$(queue_files)" ]'
	# a message committed, then the disk fills before its runner starts
	"$MJ_QUEUESERV" -C "$CONF" stop >/dev/null
	wait "$QS_PID" || true
	QS_PID=
	printf 'From: p@example.net\nSubject: m2\n\nhi\n' |
		"$MJ_ENQUEUE" -C "$CONF" -d ex.org -l l -r -f p@example.net
	fill
	queueserv_start
	wait_for 15 grep -q 'No space left on device' "$QS_LOG"
	alive "$QS_PID"
	# the pidfile could not be written, yet it is kept and locked
	grep -q 'cannot write pidfile' "$QS_LOG"
	run -1 timeout 10 "$MJ_QUEUESERV" -f -C "$CONF"
	[[ "$output" == "mj_queueserv: already running for $SPOOL "* ]]
	run -0 "$MJ_QUEUESERV" -C "$CONF" status
	[ "$(wc -l <"$BATS_TEST_TMPDIR/s/log")" -eq 1 ]
	[ -n "$(queue_files)" ]
	# space returns: the next run delivers it
	rm "$MNT/filler"
	"$MJ_QUEUESERV" -C "$CONF" flush >/dev/null
	wait_for 20 eval '[ "$(wc -l <"$BATS_TEST_TMPDIR/s/log")" -eq 2 ] && [ -z "$(queue_files)" ]'
	alive "$QS_PID"
}
