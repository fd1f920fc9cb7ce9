#!/usr/bin/env bats
# The configuration loader (common/conf.c, common/settings.c), through
# mj_enqueue: every error names file, line, section and key.

load helpers
load smtp_helpers

# Posting policy is t/76's; these lists take posts from anyone.
MJQ_LIST_POSTING=open

MSG=$'Subject: x\n\nbody\n'

teardown() {
	servers_stop
}

setup() {
	mjq_setup </dev/null
	mjq_list example.org mylist
}

# try_conf TEXT - append TEXT to the config and enqueue once
try_conf() {
	printf '%s\n' "$1" >>"$CONF"
	run "$MJ_ENQUEUE" -C "$CONF" -d example.org -l mylist -r <<<"$MSG"
}

@test "a good file with every kind of value loads" {
	try_conf $'[enqueue]\nmax_message_size = 2M\nstart_server = off\npoke_timeout_ms = 50\n; a comment\n# another\n[queueserv]\nqueue_run_delay = 5m\nsocket_mode = 0640\n[queuerun]\nstarvation_age = 1h'
	[ "$status" -eq 0 ]
	[ "$output" = "" ]
}

@test "an unknown section is an error at its first key" {
	try_conf $'[nosuch]\nkey = 1'
	[ "$status" -eq 75 ]
	[ "$output" = "mj_enqueue: $CONF:10: [nosuch] key: unknown section" ]
}

@test "a key outside any section is an error" {
	printf 'stray = 1\n' >"$CONF"
	run "$MJ_ENQUEUE" -C "$CONF" -d example.org -l mylist -r <<<"$MSG"
	[ "$status" -eq 75 ]
	[ "$output" = "mj_enqueue: $CONF:1: [] stray: key outside any section" ]
}

@test "bad values: booleans, numbers, ranges, durations, sizes, modes" {
	try_conf $'[enqueue]\nstart_server = maybe'
	[ "$output" = "mj_enqueue: $CONF:10: [enqueue] start_server: 'maybe' is not yes or no" ]
	mjq_setup </dev/null
	try_conf $'[enqueue]\npoke_timeout_ms = 0'
	[ "$output" = "mj_enqueue: $CONF:10: [enqueue] poke_timeout_ms: value 0 out of range [1, 10000]" ]
	mjq_setup </dev/null
	try_conf $'[enqueue]\npoke_timeout_ms = 12abc'
	[ "$output" = "mj_enqueue: $CONF:10: [enqueue] poke_timeout_ms: '12abc' is not a whole number" ]
	mjq_setup </dev/null
	try_conf $'[queueserv]\nqueue_run_delay = 5 minutes'
	[ "$output" = "mj_enqueue: $CONF:10: [queueserv] queue_run_delay: '5 minutes' is not a duration (seconds, or with s, m, h, d, w)" ]
	mjq_setup </dev/null
	try_conf $'[queueserv]\nqueue_run_delay = 2d'
	[ "$output" = "mj_enqueue: $CONF:10: [queueserv] queue_run_delay: value 172800 out of range [1, 86400]" ]
	mjq_setup </dev/null
	try_conf $'[queueserv]\nsocket_mode = 0999'
	[ "$output" = "mj_enqueue: $CONF:10: [queueserv] socket_mode: '0999' is not an octal mode" ]
	mjq_setup </dev/null
	try_conf $'[enqueue]\nmax_message_size = -1'
	[ "$status" -eq 75 ]
	[ "$output" = "mj_enqueue: $CONF:10: [enqueue] max_message_size: '-1' is not a size (bytes, or with k, M, G)" ]
}

@test "a syntax error names its line" {
	try_conf $'[enqueue]\nthis line has no equals sign'
	[ "$status" -eq 75 ]
	[ "$output" = "mj_enqueue: $CONF:10: syntax error (expected [section] or key = value)" ]
}

@test "an over-long line is one error at its own line, not split into bogus lines" {
	long=$(head -c 100000 /dev/zero | tr '\0' a)
	try_conf "[enqueue]"$'\n'"start_server = $long"
	[ "$status" -eq 75 ]
	[ "$output" = "mj_enqueue: $CONF:10: line longer than 198 characters" ]
}

@test "garbage and NUL bytes are errors, never crashes" {
	head -c 4096 /dev/urandom >"$CONF"
	run "$MJ_ENQUEUE" -C "$CONF" -d example.org -l mylist -r <<<"$MSG"
	[ "$status" -eq 75 ]
	[[ "$output" == "mj_enqueue: $CONF:"* ]]
	[ -z "$(queue_files)" ]
}

@test "the first of several errors is the one reported" {
	try_conf $'[enqueue]\nstart_server = maybe\npoke_timeout_ms = 0'
	[ "$output" = "mj_enqueue: $CONF:10: [enqueue] start_server: 'maybe' is not yes or no" ]
}

@test "an empty smtp_helo_name means the host name, never an empty EHLO" {
	smtpd_start sink
	mjq_list example.org mylist a@example.net
	printf '[delivery]\nsmtp_helo_name =\n[transport_map]\nexample.net = smtp:[127.0.0.1]:%s\n' "$PORT" >>"$CONF"
	"$MJ_ENQUEUE" -C "$CONF" -d example.org -l mylist -r <<<"$MSG"
	run "$MJ_QUEUERUN" -C "$CONF" -1
	[ "$status" -eq 0 ]
	grep -q " EHLO $(hostname)\$" "$BATS_TEST_TMPDIR/sink/trace"
	[ "$(wc -l <"$BATS_TEST_TMPDIR/sink/log")" -eq 1 ]
}
