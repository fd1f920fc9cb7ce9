#!/usr/bin/env bats
# Nexthop resolution (smtp/mx_*) on canned answers from mj_testdns:
# MX preference order, shuffling of equal preferences, A/AAAA fallback,
# [host] and IP literals, failures; then the client trying the next MX.

load helpers
load smtp_helpers
bats_require_minimum_version 1.5.0

setup() {
	ZONE=$BATS_TEST_TMPDIR/zone
	cat >"$ZONE" <<'ZONE'
# MX records out of preference order, on purpose
example.org     MX   30 mx3.example.org
example.org     MX   10 mx1.example.org
example.org     MX   20 mx2.example.org
mx1.example.org A    127.0.0.2
mx2.example.org A    127.0.0.1
mx2.example.org AAAA ::1
mx3.example.org A    127.0.0.3
equal.org       MX   5  first.equal.org
equal.org       MX   10 a.equal.org
equal.org       MX   10 b.equal.org
first.equal.org A    127.0.0.4
a.equal.org     A    127.0.0.5
b.equal.org     A    127.0.0.6
plain.org       A    127.0.0.7
plain.org       A    127.0.0.8
noaddr.org      MX   10 nowhere.noaddr.org
nullmx.org      MX   0  .
broken.org      SERVFAIL
ZONE
	dnsd_start "$ZONE"
	DNS=127.0.0.1:$DNS_PORT
	QLOG=$BATS_TEST_TMPDIR/dns/log
}

teardown() {
	servers_stop
}

mxtry() {
	"$MJ_MXTRY" -s "$DNS" "$@"
}

@test "MX hosts come in preference order, each with its A and AAAA addresses" {
	run mxtry example.org
	[ "$status" -eq 0 ]
	[ "$output" = "mx1.example.org 10 127.0.0.2 25
mx2.example.org 20 127.0.0.1 25
mx2.example.org 20 ::1 25
mx3.example.org 30 127.0.0.3 25" ]
	[ "$(head -1 "$QLOG")" = "example.org MX" ]
}

@test "domain:port keeps the MX lookup and uses the port" {
	run mxtry example.org:2525
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = "mx1.example.org 10 127.0.0.2 2525" ]
	[ "${#lines[@]}" -eq 4 ]
}

@test "equal preferences are shuffled, lower preferences stay first" {
	run mxtry -n 60 equal.org
	[ "$status" -eq 0 ]
	[ "${#lines[@]}" -eq 60 ]
	# every run: first.equal.org first, then a and b in either order
	[ "$(printf '%s\n' "${lines[@]}" | grep -cvE '^first.equal.org (a.equal.org b.equal.org|b.equal.org a.equal.org)$')" -eq 0 ]
	# both orders occur (each has probability 2^-59 of never showing)
	printf '%s\n' "${lines[@]}" | grep -qx 'first.equal.org a.equal.org b.equal.org'
	printf '%s\n' "${lines[@]}" | grep -qx 'first.equal.org b.equal.org a.equal.org'
}

@test "no MX: the domain's own A records, with preference 0" {
	run mxtry plain.org
	[ "$status" -eq 0 ]
	[ "$output" = "plain.org 0 127.0.0.7 25
plain.org 0 127.0.0.8 25" ]
	[ "$(cat "$QLOG")" = "plain.org MX
plain.org A
plain.org AAAA" ]
}

@test "[host] and [host]:port make no MX lookup" {
	run mxtry '[mx2.example.org]:2526'
	[ "$status" -eq 0 ]
	[ "$output" = "mx2.example.org 0 127.0.0.1 2526
mx2.example.org 0 ::1 2526" ]
	[ "$(cat "$QLOG")" = "mx2.example.org A
mx2.example.org AAAA" ]
	# and a bracketed domain that has MX records ignores them
	run mxtry '[example.org]'
	[ "$status" -eq 68 ]
	[ "$output" = "notfound: example.org: Host or domain name not found" ]
	run ! grep -q 'example.org MX' "$QLOG"
}

@test "IP literals need no DNS at all" {
	run mxtry '[127.0.0.9]:99'
	[ "$status" -eq 0 ]
	[ "$output" = "127.0.0.9 0 127.0.0.9 99" ]
	run mxtry '[ipv6:::1]'
	[ "$output" = "::1 0 ::1 25" ]
	[ ! -s "$QLOG" ]
}

@test "NXDOMAIN and null MX bounce; SERVFAIL defers" {
	run mxtry nosuch.org
	[ "$status" -eq 68 ]
	[ "$output" = "notfound: nosuch.org: Host or domain name not found" ]
	[ "$(cat "$QLOG")" = "nosuch.org MX" ]
	run mxtry nullmx.org
	[ "$status" -eq 68 ]
	[ "$output" = "notfound: nullmx.org accepts no mail (null MX)" ]
	run mxtry noaddr.org
	[ "$status" -eq 68 ]
	[ "$output" = "notfound: noaddr.org: Host or domain name not found" ]
	run mxtry broken.org
	[ "$status" -eq 75 ]
	[ "$output" = "tempfail: MX lookup of broken.org failed" ]
}

@test "bad nexthops and bad dns_server values are refused" {
	for n in 'example.org:x' 'example.org:0' '[example.org' '[h]x' ':25' 'h:70000'; do
		run mxtry "$n"
		[ "$status" -eq 75 ]
		[ "$output" = "tempfail: bad nexthop syntax: $n" ]
	done
	run "$MJ_MXTRY" -s 'not-an-ip:53' example.org
	[ "$status" -eq 78 ]
	[ "$output" = 'mj_mxtry: bad dns_server "not-an-ip:53": want IPv4addr[:port]' ]
}

@test "the client tries the next MX after a refused connection" {
	smtpd_start s
	# mx1 (127.0.0.2) has nothing on PORT; mx2 (127.0.0.1) has the server
	run "$MJ_SMTPTRY" -M example.org -D "$DNS" -p "$PORT" -f s@x \
		-r a@example.org -m "$ZONE" -T connect=2000
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = "session failed status=deferred code=0 dsn=4.4.1 text=connect to mx1.example.org[127.0.0.2]:$PORT: Connection refused (connect)" ]
	[ "${lines[1]}" = "session ok relay=mx2.example.org[127.0.0.1]:$PORT esmtp=1 pipelining=1 size=1/10240000 8bitmime=1" ]
	[ "${lines[2]}" = "xact=1 to=<a@example.org> status=sent code=250 dsn=2.0.0 text=250 2.0.0 Ok: queued as 1 (end of data)" ]
	[ "${lines[3]}" = "feedback=positive" ]
	[ "$(cat "$BATS_TEST_TMPDIR/s/log")" = "1 1 from=<s@x> to=<a@example.org>" ]
}

@test "when every MX refuses, the result is negative feedback" {
	PORT=$(free_port)
	run "$MJ_SMTPTRY" -M plain.org -D "$DNS" -p "$PORT" -f s@x -r a@plain.org -m "$ZONE"
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = "session failed status=deferred code=0 dsn=4.4.1 text=connect to plain.org[127.0.0.7]:$PORT: Connection refused (connect)" ]
	[ "${lines[1]}" = "session failed status=deferred code=0 dsn=4.4.1 text=connect to plain.org[127.0.0.8]:$PORT: Connection refused (connect)" ]
	[ "${lines[2]}" = "feedback=negative" ]
}
