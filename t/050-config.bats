#!/usr/bin/env bats
# The configuration loader (common/conf.c, common/settings.c, with the
# list sections of lists/lists_settings.c and [cluster] of
# cluster/cluster_settings.c), through mj_enqueue, and those sections
# through every program that reads mjq.conf: every error names file,
# line, section and key.

load helpers
load smtp_helpers
bats_require_minimum_version 1.5.0

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

# every_reader STATUS TEXT - each program that reads mjq.conf, on $CONF:
# mj_enqueue, mj_queuerun (a pass, -l, -c), mj_queueserv (the server in
# the foreground and status), mj_unsubscribe (the CGI program, a GET of
# a good link); with STATUS "ok" each takes the file (0, or 69 for
# status with no server, the confirmation page for mj_unsubscribe; the
# server is left out, it would serve), else each ends with its status
# for a bad file and "PROG: TEXT"
every_reader() {
	local want=$1 text=$2 key mac t p page
	key=$(head -1 "$BATS_TEST_TMPDIR/secret")
	t=$(date +%s)
	mac=$(printf 'mjq-unsub-1\nmylist\nexample.org\nann@users.test\n%s\n' "$t" |
		openssl dgst -sha256 -mac HMAC -macopt "hexkey:$key" -r | cut -c1-32)
	for p in enqueue queuerun-1 queuerun-l queuerun-c queueserv-f \
		queueserv-status unsubscribe; do
		case $p in
		enqueue) run "$MJ_ENQUEUE" -C "$CONF" -d example.org -l mylist -r <<<"$MSG" ;;
		queuerun-?) run "$MJ_QUEUERUN" -C "$CONF" "-${p#queuerun-}" ;;
		queueserv-f)
			[ "$want" = ok ] && continue
			run timeout 10 "$MJ_QUEUESERV" -f -C "$CONF" </dev/null ;;
		queueserv-status) run "$MJ_QUEUESERV" -C "$CONF" status ;;
		unsubscribe)
			run --separate-stderr env REQUEST_METHOD=GET MJQ_CONF="$CONF" \
				QUERY_STRING="l=mylist%40example.org&a=ann%40users.test&t=$t&s=$mac" \
				"$TOP/unsubscribe/mj_unsubscribe"
			page=${lines[0]%$'\r'} output=$stderr ;;
		esac
		echo "$p: $status: $output"
		if [ "$want" = ok ]; then
			case $p in
			queueserv-status) [ "$status" -eq 69 ] ;;
			unsubscribe) [ "$page" = "Status: 200 OK" ] ;;
			*) [ "$status" -eq 0 ] ;;
			esac
			[[ "$output" != *"$CONF:"* ]]
			continue
		fi
		case $p in
		enqueue) [ "$status" -eq 75 ] ;;
		unsubscribe) [ "$page" = "Status: 503 Service Unavailable" ] ;;
		*) [ "$status" -eq 78 ] ;;
		esac
		# mj_unsubscribe logs to syslog where a syslog daemon listens
		[ "$p" = unsubscribe ] && [ -S /dev/log ] && continue
		[[ "$output" == *"mj_${p%%-*}: $text"* ]]
	done
}

@test "every program that reads mjq.conf takes the list sections and [cluster], and refuses a misspelled key there with file and line" {
	"$TOP/scripts/mjq-unsubsecret" "$BATS_TEST_TMPDIR/secret"
	# a key of each list section (lists/lists_settings.c), in force
	printf '[request]\ntoken_lifetime = 2d\n[arc]\nseal = no\n[dmarc]\nnegative_ttl = 1m\n[unsubscribe]\nsecret_file = %s\n[dkim]\nselectors = s1\n' \
		"$BATS_TEST_TMPDIR/secret" >>"$CONF"
	every_reader ok
	printf '[dkim]\nsleector = s2\n' >>"$CONF"
	every_reader bad "$CONF:20: [dkim] sleector: unknown key"
	# a bad value is refused as well, by the list sections' own range
	sed -i '$d' "$CONF"
	printf 'sign = yes\n[unsubscribe]\ntoken_lifetime = 1h\n' >>"$CONF"
	every_reader bad "$CONF:22: [unsubscribe] token_lifetime: value 3600 out of range [86400, 315360000]"
	# [cluster] (cluster/cluster_settings.c), in force (no redis: off)
	sed -i '$d' "$CONF"
	printf 'token_lifetime = 2d\n[cluster]\nexpected_nodes = 2\nnode_name = n1\n' >>"$CONF"
	every_reader ok
	printf 'node_nmae = n2\n' >>"$CONF"
	every_reader bad "$CONF:26: [cluster] node_nmae: unknown key"
	# and its own range
	sed -i '$d' "$CONF"
	printf 'timeout_ms = 5\n' >>"$CONF"
	every_reader bad "$CONF:26: [cluster] timeout_ms: value 5 out of range [10, 60000]"
}
