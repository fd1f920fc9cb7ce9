#!/usr/bin/env bats
# t/240-pools.bats - sending-address pools (issue 30, part 1): the
# [delivery] keys source_pool, source_pool_map, source_pool_list and
# source_helo_name, over loopback from the sources 127.0.0.2-127.0.0.5
# to one mj_testsmtpd on 127.0.0.1, which logs the client address of
# each recipient (--log-client) and counts and caps the sessions of each
# client address (--client-stats, --client-max-sessions).
#
# What is checked: a post spreads over a pool's addresses by weight
# (smooth weighted round robin: exactly), each address with its own EHLO
# name; a list's pool goes before its destination's; one address
# throttled with 421 keeps its own sessions while the others stay at
# full concurrency; an address that cannot be bound is logged and
# skipped, never replaced by the default one; the status, JSON and
# Prometheus rows are per (destination, address).

bats_require_minimum_version 1.5.0
load helpers
load smtp_helpers

setup() {
	QS_PID=
}

teardown() {
	stop_everything
}

# conf [INI...] - the spool and config: d.test goes to the server, the
# given lines added to [delivery]
conf() {
	mjq_setup <<-EOF
		[delivery]
		destination_recipient_limit = 5
		minimal_backoff_time = 1s
		maximal_backoff_time = 2s
		$(printf '%s\n' "$@")
		[transport_map]
		d.test = smtp:[127.0.0.1]:$PORT
	EOF
}

# post LIST N - a list of N subscribers at d.test, and a post to it
post() {
	mjq_list ex.org "$1"
	seq -f 'u%g@d.test' 1 "$2" >"$LISTS/ex.org/$1/subscribers"
	printf 'From: p@example.net\nSubject: s\n\nhello\n' |
		"$MJ_ENQUEUE" -C "$CONF" -d ex.org -l "$1" -r -f p@example.net
}

# from ADDR - recipients the server took from client address ADDR
from() {
	grep -c " client=$1\$" "$BATS_TEST_TMPDIR/s/log" || true
}

# cstat ADDR FIELD - a field of ADDR's --client-stats line
cstat() {
	sed -n "s/^$1 .*$2=\\([0-9]*\\).*/\\1/p" "$BATS_TEST_TMPDIR/s/clients"
}

# throttled [INI...] - a server that takes one session at a time from
# 127.0.0.2 and any number from the others, each of which delivers in
# 300 ms; the pool of 127.0.0.2-5 for everything at a window of 3, with
# the given [delivery] lines; a post to 120 recipients
throttled() {
	smtpd_start s --log-client --delay eod=300 \
		--client-max-sessions 127.0.0.2=1 \
		--client-stats "$BATS_TEST_TMPDIR/s/clients"
	conf 'source_pool = all 127.0.0.2 127.0.0.3 127.0.0.4 127.0.0.5' \
		'source_pool_map = * all' "$@" \
		'destination_concurrency_limit = 3' \
		'initial_destination_concurrency = 3'
	post big 120
}

# row N - the status line of smtp:127.0.0.N->[127.0.0.1]:$PORT in $output
row() {
	printf '%s\n' "$output" | grep -F "smtp:127.0.0.$1->[127.0.0.1]:$PORT "
}

# status_json - mj_queueserv status -j without a server (the table)
status_json() {
	run --separate-stderr -69 "$MJ_QUEUESERV" -C "$CONF" status -j
}

@test "a post spreads over a pool by weight, each address with its own EHLO name" {
	smtpd_start s --log-client
	conf 'source_pool = w 127.0.0.2*3 127.0.0.3' \
		'source_pool_map = d.test w' \
		'source_helo_name = 127.0.0.2 out2.example.net'
	post big 40
	runq
	[ "$(wc -l <"$BATS_TEST_TMPDIR/s/log")" -eq 40 ]
	[ "$(from 127.0.0.2)" -eq 30 ]
	[ "$(from 127.0.0.3)" -eq 10 ]
	[ "$(sed 's/ client=.*//' "$BATS_TEST_TMPDIR/s/log" | sort -u | wc -l)" -eq 40 ]
	# the sessions from 127.0.0.2, and only they, said its name
	awk '/ client=127\.0\.0\.2$/ { print $1 }' "$BATS_TEST_TMPDIR/s/log" |
		sort -u >"$BATS_TEST_TMPDIR/two"
	awk '$3 == "EHLO" && $4 == "out2.example.net" { print $1 }' \
		"$BATS_TEST_TMPDIR/s/trace" | sort -u >"$BATS_TEST_TMPDIR/ehlo"
	[ -s "$BATS_TEST_TMPDIR/two" ]
	diff "$BATS_TEST_TMPDIR/two" "$BATS_TEST_TMPDIR/ehlo"
	grep -q "EHLO $(hostname)" "$BATS_TEST_TMPDIR/s/trace"
	# each delivery line names the pool's address it went out from,
	# the same the receiver saw for that recipient
	[ "$(grep -c 'to=<.*status=sent .*, source=127\.0\.0\.2$' "$BATS_TEST_TMPDIR/run.log")" -eq 30 ]
	[ "$(grep -c 'to=<.*status=sent .*, source=127\.0\.0\.3$' "$BATS_TEST_TMPDIR/run.log")" -eq 10 ]
	sed -n 's/.*to=<\([^>]*\)>.*, source=\(.*\)$/\1 \2/p' \
		"$BATS_TEST_TMPDIR/run.log" | sort >"$BATS_TEST_TMPDIR/logged"
	sed 's/.* to=<\([^>]*\)> client=\(.*\)/\1 \2/' \
		"$BATS_TEST_TMPDIR/s/log" | sort >"$BATS_TEST_TMPDIR/seen"
	diff "$BATS_TEST_TMPDIR/seen" "$BATS_TEST_TMPDIR/logged"
	# one row per (destination, address), the address last
	status_json
	[[ "$output" == *'{"transport":"smtp","nexthop":"[127.0.0.1]:'$PORT'","delivered":30,'*'"source":"127.0.0.2"},{"transport":"smtp","nexthop":"[127.0.0.1]:'$PORT'","delivered":10,'*'"source":"127.0.0.3"}]'* ]]
	run --separate-stderr -69 "$MJ_QUEUESERV" -C "$CONF" status
	[[ "$output" == *$'\n'"smtp:127.0.0.2->[127.0.0.1]:$PORT "*"30 "* ]]
	run --separate-stderr -69 "$MJ_QUEUESERV" -C "$CONF" status -p
	[[ "$output" == *'mjq_destination_window{transport="smtp",nexthop="[127.0.0.1]:'$PORT'",source="127.0.0.3"} '* ]]
	[[ "$output" == *'mjq_deliveries_total{transport="smtp",nexthop="[127.0.0.1]:'$PORT'",source="127.0.0.2",outcome="delivered"} 30'* ]]
}

@test "a list's pool goes before its destination's; other mail keeps the default address" {
	smtpd_start s --log-client
	conf 'source_pool = w 127.0.0.2 127.0.0.3' \
		'source_pool = solo [127.0.0.4]' \
		'source_pool_map = .test w' \
		'source_pool_list = news@ex.org solo'
	post news 10
	runq
	[ "$(from 127.0.0.4)" -eq 10 ]
	post talk 10
	runq
	[ "$(from 127.0.0.2)" -eq 5 ]
	[ "$(from 127.0.0.3)" -eq 5 ]
	# no pool for the domain: the kernel's choice, 127.0.0.1
	sed -i 's/^source_pool_map = .*/source_pool_map = other.test w/' "$CONF"
	post misc 4
	runq
	[ "$(from 127.0.0.1)" -eq 4 ]
	[ "$(wc -l <"$BATS_TEST_TMPDIR/s/log")" -eq 24 ]
	# the kernel's choice: the delivery line is as it was, no source=
	[ "$(grep -c 'to=<.*status=sent' "$BATS_TEST_TMPDIR/run.log")" -eq 24 ]
	[ "$(grep -c 'status=sent.*, source=127\.0\.0\.[234]$' "$BATS_TEST_TMPDIR/run.log")" -eq 20 ]
	[ "$(grep -c 'source=' "$BATS_TEST_TMPDIR/run.log")" -eq 20 ]
}

@test "one address throttled with 421 keeps its own sessions; the others stay at full concurrency" {
	throttled
	wait_for 90 eval '[ "$(wc -l <"$BATS_TEST_TMPDIR/s/log")" -ge 120 ] || { make_due; runq; false; }'
	cat "$BATS_TEST_TMPDIR/s/clients"
	[ "$(wc -l <"$BATS_TEST_TMPDIR/s/log")" -eq 120 ]
	[ "$(sed 's/ client=.*//; s/^[0-9]* [0-9]* //' "$BATS_TEST_TMPDIR/s/log" | sort -u | wc -l)" -eq 120 ]
	for a in 2 3 4 5; do
		[ "$(from 127.0.0.$a)" -eq 30 ]
	done
	# 127.0.0.2 was refused and held to one session ...
	[ "$(cstat 127.0.0.2 refused)" -ge 1 ]
	[ "$(cstat 127.0.0.2 max_open)" -eq 1 ]
	# ... while each other address had its window's 3, never refused
	for a in 3 4 5; do
		[ "$(cstat 127.0.0.$a max_open)" -eq 3 ]
		[ "$(cstat 127.0.0.$a refused)" -eq 0 ]
	done
	[ -z "$(queue_files)" ]
}

@test "without a session cache, one address's 421s are its own feedback and error; the others never see them" {
	throttled 'smtp_connection_cache_time = 0'
	runq
	cat "$BATS_TEST_TMPDIR/s/clients"
	[ "$(cstat 127.0.0.2 refused)" -ge 1 ]
	run --separate-stderr -69 "$MJ_QUEUESERV" -C "$CONF" status
	echo "$output"
	# the refused address's row holds the deferrals and the 421 ...
	row 2 >"$BATS_TEST_TMPDIR/row"
	[ "$(awk '{ print $3 }' "$BATS_TEST_TMPDIR/row")" -ge 1 ]
	grep -q ' ago: 421 4.3.2 service not available$' "$BATS_TEST_TMPDIR/row"
	# ... the others delivered all theirs at once, at full concurrency
	for a in 3 4 5; do
		[ "$(row $a | awk '{ print $2, $3, $4, $5, $NF }')" = "30 0 0 3 -" ]
		[ "$(cstat 127.0.0.$a max_open)" -eq 3 ]
		[ "$(cstat 127.0.0.$a refused)" -eq 0 ]
	done
	wait_for 30 eval '[ "$(wc -l <"$BATS_TEST_TMPDIR/s/log")" -ge 120 ] || { make_due; runq; false; }'
	[ "$(wc -l <"$BATS_TEST_TMPDIR/s/log")" -eq 120 ]
}

@test "an address that cannot be bound is logged and skipped, never replaced by the default" {
	smtpd_start s --log-client
	conf 'source_pool = u 192.0.2.1 127.0.0.3' \
		'source_pool = none 192.0.2.1*2 [2001:db8::25]' \
		'source_pool_map = d.test u' \
		'source_pool_list = stuck none'
	post big 10
	runq
	[ "$(from 127.0.0.3)" -eq 10 ]
	[ "$(wc -l <"$BATS_TEST_TMPDIR/s/log")" -eq 10 ]
	grep -q 'cannot bind source address 192.0.2.1: Cannot assign requested address; it is skipped in its pools' \
		"$BATS_TEST_TMPDIR/run.log"
	grep -q 'cannot bind source address 2001:db8::25: ' "$BATS_TEST_TMPDIR/run.log"
	[ -z "$(queue_files)" ]
	# a pool with no address left: its recipients wait, from nowhere else
	post stuck 3
	runq
	[ "$(wc -l <"$BATS_TEST_TMPDIR/s/log")" -eq 10 ]
	grep -q 'source pool none has no address this host can bind; its recipients wait' \
		"$BATS_TEST_TMPDIR/run.log"
	[ "$(queue_files | wc -l)" -eq 1 ]
}

# sources_match - each delivery line's source= is the client address the
# server saw for that recipient
sources_match() {
	sed -n 's/.*to=<\([^>]*\)>.*status=sent .*, source=\(.*\)$/\1 \2/p' \
		"$BATS_TEST_TMPDIR/run.log" | sort >"$BATS_TEST_TMPDIR/logged"
	sed 's/.* to=<\([^>]*\)> client=\(.*\)/\1 \2/' \
		"$BATS_TEST_TMPDIR/s/log" | sort >"$BATS_TEST_TMPDIR/seen"
	diff "$BATS_TEST_TMPDIR/seen" "$BATS_TEST_TMPDIR/logged"
}

@test "a pool of IPv4 and IPv6 addresses sends to an IPv4-only host from its IPv4 addresses only, by their weights; none deferred 4.4.3" {
	smtpd_start s --log-client
	conf 'source_pool = mix 127.0.0.2*3 ::1*2 127.0.0.3' \
		'source_pool_map = d.test mix'
	post big 40
	runq
	run -1 grep -q 'dsn=4\.4\.3\|status=deferred' "$BATS_TEST_TMPDIR/run.log"
	[ "$(wc -l <"$BATS_TEST_TMPDIR/s/log")" -eq 40 ]
	# an address literal: its family is known before any delivery, the
	# weights hold exactly among the IPv4 addresses
	[ "$(from 127.0.0.2)" -eq 30 ]
	[ "$(from 127.0.0.3)" -eq 10 ]
	run -1 grep -q 'source=::1' "$BATS_TEST_TMPDIR/run.log"
	sources_match
}

@test "a pool of IPv4 and IPv6 addresses and a host name with IPv4 addresses only: what the first delivery finds holds, nothing deferred 4.4.3, never sent from the IPv6 address" {
	smtpd_start s --log-client
	printf 'v4.test A 127.0.0.1\n' >"$BATS_TEST_TMPDIR/zone"
	dnsd_start "$BATS_TEST_TMPDIR/zone"
	mjq_setup <<-EOF
		[delivery]
		destination_recipient_limit = 2
		minimal_backoff_time = 1s
		maximal_backoff_time = 2s
		dns_server = 127.0.0.1:$DNS_PORT
		source_pool = mix 127.0.0.2*3 ::1*2 127.0.0.3
		source_pool_map = d.test mix
		[transport_map]
		d.test = smtp:v4.test:$PORT
	EOF
	post big 60
	runq
	run -1 grep -q 'dsn=4\.4\.3\|status=deferred' "$BATS_TEST_TMPDIR/run.log"
	[ "$(wc -l <"$BATS_TEST_TMPDIR/s/log")" -eq 60 ]
	[ "$(from ::1)" -eq 0 ]
	run -1 grep -q 'source=::1' "$BATS_TEST_TMPDIR/run.log"
	# both IPv4 addresses sent, the heavier more
	[ "$(from 127.0.0.3)" -gt 0 ]
	[ "$(from 127.0.0.2)" -gt "$(from 127.0.0.3)" ]
	sources_match
}

@test "pool keys are checked: addresses, weights, names, sections" {
	PORT=25
	conf 'source_pool = w 127.0.0.2*0'
	run -78 "$MJ_QUEUERUN" -C "$CONF" -1
	[[ "$output" == *"[delivery] source_pool: bad weight \"0\" (1 to 1000)"* ]]
	conf 'source_pool = w 127.0.0.300'
	run -78 "$MJ_QUEUERUN" -C "$CONF" -1
	[[ "$output" == *'source_pool: not an IPv4 or IPv6 address: "127.0.0.300"'* ]]
	conf 'source_pool = w 127.0.0.2' 'source_pool = w 127.0.0.3'
	run -78 "$MJ_QUEUERUN" -C "$CONF" -1
	[[ "$output" == *"pool w is defined twice"* ]]
	conf 'source_pool = w 127.0.0.2' 'source_pool_map = x.test v'
	run -78 "$MJ_QUEUERUN" -C "$CONF" -1
	[[ "$output" == *"source_pool_map x.test names pool v, which no source_pool defines"* ]]
	conf 'source_pool = w 127.0.0.2' 'source_helo_name = 127.0.0.9 x.example'
	run -78 "$MJ_QUEUERUN" -C "$CONF" -1
	[[ "$output" == *"source_helo_name 127.0.0.9: no source_pool holds that address"* ]]
	conf
	printf '[transport:smtp]\nsource_pool = w 127.0.0.2\n' >>"$CONF"
	run -78 "$MJ_QUEUERUN" -C "$CONF" -1
	[[ "$output" == *"[transport:smtp] source_pool: sending-address pools belong in [delivery]"* ]]
	# empty keys are no pool at all (the example config's defaults)
	conf 'source_pool =' 'source_pool_map =' 'source_pool_list =' 'source_helo_name ='
	run -0 "$MJ_QUEUERUN" -C "$CONF" -1
}

@test "mj_schedsim -w: sources by weight, each with its own window; one throttled leaves the others as they were" {
	local scen='[scheduler]
destination_recipient_limit = 10
initial_destination_concurrency = 4
[job a]
recipients = 400
destination = gmail
[destination gmail]
server_limit = 4'
	# 40 entries by weight 3:1, each source a destination of its own
	run -0 "$MJ_SCHEDSIM" -c -w 3,1 <<<"$scen"
	[ "${#lines[@]}" -eq 2 ]
	[[ "${lines[0]}" == "destination=s1->gmail deliveries=30 "* ]]
	[[ "${lines[1]}" == "destination=s2->gmail deliveries=10 "* ]]
	run -0 "$MJ_SCHEDSIM" -c -w 1,1 <<<"$scen"
	[[ "${lines[0]}" == "destination=s1->gmail deliveries=20 "* ]]
	local s2=${lines[1]} s1=${lines[0]}
	# s1 alone answers 421 beyond one session: it defers far more, and
	# s2 runs exactly as it did without that
	run -0 "$MJ_SCHEDSIM" -c -w 1,1 <<<"$scen"$'\n[destination s1->gmail]\nserver_limit = 1'
	[ "${lines[1]}" = "$s2" ]
	[ "${lines[0]}" != "$s1" ]
	[[ "${lines[0]}" =~ deferred_pct=(9[0-9]|100)\. ]]
	# a bad weight is a usage error
	run -64 "$MJ_SCHEDSIM" -c -w 1,0 <<<"$scen"
	[ "$output" = "mj_schedsim: -w: want weights 1-1000, comma-separated, at most 64: 1,0" ]
}
