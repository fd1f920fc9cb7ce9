#!/usr/bin/env bats
# t/640-hostile.bats - hostile input through the runner: messages no MTA
# should pass on, a subscribers file with junk in it, and SMTP servers
# that misbehave.  The runner never crashes (exit 0 from a pass); each
# outcome is delivered, deferred (message kept, future mtime) or set
# aside, as it should be.  t/410-queuerun-faults.bats covers a dropped
# DATA and 421 past a session limit; these are the rest.  And the fuzz
# targets (t/fuzz/), built with gcc's sanitizers and no libFuzzer, replay
# their seed corpora: each still builds, no seed crashes.

bats_require_minimum_version 1.5.0
load helpers
load smtp_helpers

setup() {
	mjq_setup <<-EOF
		[delivery]
		smtp_helo_timeout = 2s
		smtp_command_timeout = 2s
		smtp_data_timeout = 2s
		smtp_data_done_timeout = 2s
		smtp_connect_timeout = 2s
	EOF
}

teardown() {
	servers_stop
}

# sink [OPTION...] - a test server for d.test
sink() {
	smtpd_start s "$@"
	printf '[transport_map]\nd.test = smtp:[127.0.0.1]:%s\n' "$PORT" >>"$CONF"
}

sent() {
	cat "$BATS_TEST_TMPDIR/s/log" 2>/dev/null | wc -l
}

@test "hostile messages: NULs, 10,000 header lines, a 1 MB line, CR/LF mixes, no headers: no crash, each delivered" {
	sink
	mjq_list ex.org l a@d.test
	local n
	# each runs in its pipeline's subshell: count what QUEUE/ holds
	mk() { "$MJ_ENQUEUE" -C "$CONF" -d ex.org -l l -r -f p@example.net; }
	printf 'Subject: nul\n\nbefore\0after\0\n' | mk || true
	{ for i in $(seq 1 10000); do echo "X-H$i: v"; done; printf '\nbody\n'; } | mk
	{ printf 'Subject: long\n\n'; head -c 1048576 /dev/zero | tr '\0' a; echo; } | mk
	printf 'Subject: mix\r\nX-A: 1\nX-B: 2\r\r\n\rbody\r\nline\n\r\n.\r\n..\n' | mk
	printf 'no header at all, just text\n' | mk
	printf '\n\nonly a body after an empty header\n' | mk
	n=$(queue_files | wc -l)
	echo "# accepted by mj_enqueue: $n of 6" >&3
	[ "$n" -ge 5 ]
	run -0 runq
	# every accepted message went out once, or was set aside with a
	# reason; nothing is left in QUEUE/
	local bad=0
	[ -d "$SPOOL/BAD" ] && bad=$(find "$SPOOL/BAD" -type f ! -name '.*' | wc -l)
	echo "# delivered: $(sent), in BAD/: $bad" >&3
	[ $(($(sent) + bad)) -eq "$n" ]
	[ -z "$(queue_files)" ]
	run -1 grep -qi 'assert\|sanitizer\|segmentation' "$BATS_TEST_TMPDIR/run.log"
}

@test "a subscribers file with junk: bad addresses skipped with a warning, the rest delivered" {
	sink
	mjq_list ex.org l
	{
		echo a@d.test
		echo 'not an address'
		echo '@d.test'
		echo 'b@'
		echo '<c@d.test>'
		echo 'x@d.test y@d.test'
		printf 'e@d.test\0z@d.test\n'
		head -c 100000 /dev/zero | tr '\0' q; echo '@d.test'
		echo 'a@d.test'
		echo
		echo '# comment'
		echo 'b@d.test'
	} >"$LISTS/ex.org/l/subscribers"
	printf 'Subject: x\n\nhi\n' |
		"$MJ_ENQUEUE" -C "$CONF" -d ex.org -l l -r -f p@example.net
	run -0 runq
	# a and b, each once; the junk named in warnings
	sed 's/.* to=//' "$BATS_TEST_TMPDIR/s/log" | sort -u >"$BATS_TEST_TMPDIR/got"
	grep -qx '<a@d.test>' "$BATS_TEST_TMPDIR/got"
	grep -qx '<b@d.test>' "$BATS_TEST_TMPDIR/got"
	[ "$(grep -c . "$BATS_TEST_TMPDIR/s/log")" -eq "$(wc -l <"$BATS_TEST_TMPDIR/got")" ]
	run -1 grep -q 'to=<not an address>\|to=<@d.test>\|to=<b@>' "$BATS_TEST_TMPDIR/s/log"
	grep -q 'subscribers:3: invalid address skipped' "$BATS_TEST_TMPDIR/run.log"
	grep -q 'duplicate address a@d.test skipped' "$BATS_TEST_TMPDIR/run.log"
	[ -z "$(queue_files)" ]
}

# defers_with TEXT - one pass deferred everything, kept the message with a
# future mtime, and logged TEXT
defers_with() {
	[ "$(sent)" -eq 0 ]
	local f
	f=$SPOOL/$(queue_files)
	[ -f "$f" ]
	[ "$(stat -c %Y "$f")" -gt "$(date +%s)" ]
	grep -q "status=deferred.*$1" "$BATS_TEST_TMPDIR/run.log"
}

misbehaving() {
	sink "$@"
	mjq_list ex.org l a@d.test b@d.test
	printf 'Subject: x\n\nhi\n' |
		"$MJ_ENQUEUE" -C "$CONF" -d ex.org -l l -r -f p@example.net
	run -0 runq
}

@test "garbage at the greeting: deferred" {
	misbehaving --garbage greeting
	defers_with ''
}

@test "a 2 MB reply line to EHLO: deferred" {
	misbehaving --long-reply ehlo
	defers_with ''
}

@test "421 at the greeting: deferred with the server's text" {
	misbehaving --reply greeting='421 4.3.2 go away'
	defers_with '421 4.3.2 go away'
}

@test "a server that never answers after MAIL: deferred after the timeout" {
	misbehaving --silent mail
	defers_with ''
}

@test "replies split one byte per write: delivered" {
	misbehaving --split
	[ "$(sent)" -eq 2 ]
	[ -z "$(queue_files)" ]
}

@test "452 past 1 recipient per transaction: all delivered, none twice" {
	misbehaving --rcpt-limit 1
	if [ -n "$(queue_files)" ]; then
		find "$SPOOL/QUEUE" -type f ! -name '.*' -exec touch -d '1 hour ago' {} +
		run -0 runq
	fi
	[ "$(sent)" -eq 2 ]
	[ "$(sed 's/.* to=//' "$BATS_TEST_TMPDIR/s/log" | sort -u | wc -l)" -eq 2 ]
	[ -z "$(queue_files)" ]
}

@test "every fuzz target builds with gcc (no clang, no libFuzzer) and replays its seed corpus under ASan and UBSan without a crash" {
	slow "builds the library and every target with sanitizers"
	run make -C "$TOP" -j2 --no-print-directory fuzz-replay \
		FUZZ_REPLAY_DIR="$BATS_TEST_TMPDIR/replay"
	printf '%s\n' "$output" | grep -v '^gcc \|^ar \|^    ' | tail -40
	[ "$status" -eq 0 ]
	# every target ran, over every file of its corpus
	n=0
	for f in "$TOP"/t/fuzz/fuzz_*.c; do
		t=$(basename "$f" .c)
		want=$(find "$TOP/t/fuzz/corpus/${t#fuzz_}" -type f ! -name '.*' | wc -l)
		[ "$want" -gt 0 ]
		[[ "$output" == *"/replay/$t: $want inputs replayed"* ]]
		n=$((n + 1))
	done
	[ "$n" -ge 16 ]
}
