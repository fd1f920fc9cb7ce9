#!/usr/bin/env bats
# t/600-valgrind.bats - mj_enqueue under valgrind's memcheck: no invalid
# access, no use of uninitialised memory, no leak, on the paths the MTA
# takes every day (a message queued, the poke), and on the error paths
# (too big, bad arguments, bad sender, unknown list), each with its exact
# exit code.
#
# valgrind runs t/tools/mj_enqueue_dyn, the same objects as
# enqueue/mj_enqueue linked dynamically: in a static binary valgrind
# cannot intercept malloc and takes glibc's own start-up for errors.

bats_require_minimum_version 1.5.0
load helpers

MJ_ENQUEUE_DYN=$TOP/t/tools/mj_enqueue_dyn
MSG=$'From bob@example.net Mon Nov 17 10:00:00 2025\nSubject: hello\nFrom: bob@example.net\n\nbody line\n'

setup() {
	command -v valgrind >/dev/null || skip "valgrind is not installed"
	[ -x "$MJ_ENQUEUE_DYN" ] || skip "build t/tools/mj_enqueue_dyn (make)"
	# An ASan build (make SAN=1) cannot run under valgrind at all: the
	# two both replace malloc and map shadow memory.
	if ldd "$MJ_ENQUEUE_DYN" 2>/dev/null | grep -q libasan; then
		skip "SAN=1 build: ASan checks mj_enqueue instead of valgrind"
	fi
	mjq_setup <<-EOF
		max_message_size = 4k
		poke_timeout_ms = 5000
	EOF
	mjq_list example.org mylist
	unset SENDER DEFAULT LOCAL
	VG_LOG=$BATS_TEST_TMPDIR/valgrind.log
	SERVER_PID=
}

teardown() {
	[ -z "${SERVER_PID:-}" ] || kill "$SERVER_PID" 2>/dev/null || true
}

# vg_enqueue ARG... - mj_enqueue under memcheck; valgrind's own errors
# turn into exit 99, which no path of mj_enqueue uses without -S
vg_enqueue() {
	valgrind -q --leak-check=full --show-leak-kinds=all \
		--errors-for-leak-kinds=all --error-exitcode=99 \
		--log-file="$VG_LOG" "$MJ_ENQUEUE_DYN" -C "$CONF" "$@"
}

# vg_clean - valgrind reported nothing at all
vg_clean() {
	if [ -s "$VG_LOG" ]; then
		cat "$VG_LOG" >&2
		return 1
	fi
}

@test "valgrind: a normal message is queued without a memory error or leak" {
	run -0 vg_enqueue -d example.org -l mylist -r <<<"$MSG"
	vg_clean
	run queue_files
	[ "${#lines[@]}" -eq 1 ]
	# The From_ sender became the Return-Path: the path that parses it ran.
	[ "$(head -1 "$SPOOL/${lines[0]}")" = "Return-Path: <bob@example.net>" ]
}

@test "valgrind: the poke to a listening server is clean too" {
	"$TOP/t/tools/mj_unixsock" serve "$SPOOL/queueserv.sock" 1 \
		"$BATS_TEST_TMPDIR/pokes" 3>&- &
	SERVER_PID=$!
	wait_for 5 test -S "$SPOOL/queueserv.sock"
	run -0 vg_enqueue -d example.org -l mylist -r <<<"$MSG"
	vg_clean
	wait "$SERVER_PID"
	SERVER_PID=
	[ "$(cat "$BATS_TEST_TMPDIR/pokes")" = poke ]
}

@test "valgrind: an oversized message exits 65 without a memory error or leak" {
	run -65 vg_enqueue -d example.org -l mylist -r < <(
		printf 'Subject: big\n\n'
		head -c 100000 /dev/zero | tr '\0' x
	)
	vg_clean
	[[ "$output" == *"larger than max_message_size"* ]]
	[ -z "$(queue_files)" ]
	[ -z "$(ls -A "$SPOOL/tmp")" ]
}

@test "valgrind: bad arguments exit 64 without a memory error or leak" {
	run -64 vg_enqueue -d example.org -Z </dev/null
	vg_clean
	run -64 vg_enqueue -d ../etc -l mylist -r </dev/null
	vg_clean
	[[ "$output" == *'bad domain "../etc"'* ]]
	run -64 vg_enqueue -d example.org -l mylist -r -P 100 </dev/null
	vg_clean
	[ -z "$(queue_files)" ]
}

@test "valgrind: a bad sender and an unknown list exit 65 and 67 cleanly" {
	SENDER=$'a\nb@example.net' run -65 vg_enqueue -d example.org -l mylist -r <<<"$MSG"
	vg_clean
	run -67 vg_enqueue -d example.org -l nosuch -r <<<"$MSG"
	vg_clean
	[ -z "$(queue_files)" ]
}
