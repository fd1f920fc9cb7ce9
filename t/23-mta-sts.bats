#!/usr/bin/env bats
# t/23-mta-sts.bats - MTA-STS (RFC 8461): the policy file, TXT record and
# MX pattern parsers (smtp/mta_sts.c, through t/tools/mj_mtasts), then
# end to end: mj_testdns serving _mta-sts TXT and MX records, lighttpd
# with TLS and a test CA serving the policies at
# https://mta-sts.<domain>/.well-known/mta-sts.txt, mj_testsmtpd sinks
# with certificates for the MX names from that CA.

load helpers
load smtp_helpers

MJQ_LIST_POSTING=open
MJ_MTASTS=$TOP/t/tools/mj_mtasts

bats_require_minimum_version 1.5.0

# policy TEXT - parse TEXT (printf format) as a policy file
policy() {
	printf "$1" >"$BATS_TEST_TMPDIR/policy"
	run "$MJ_MTASTS" policy "$BATS_TEST_TMPDIR/policy"
}

@test "policy file: fields, CRLF or LF, first of a key wins, unknown keys ignored, max_age capped" {
	policy 'version: STSv1\nmode: enforce\nmx: mail.example.com\nmx: *.example.net\nmax_age: 604800\n'
	[ "$status" -eq 0 ]
	[ "$output" = "enforce 604800 mail.example.com,*.example.net" ]
	policy 'version: STSv1\r\nmode: testing\r\nmx: a.example\r\nmax_age: 86400\r\n'
	[ "$output" = "testing 86400 a.example" ]
	policy 'version: STSv1\nmode: none\nmax_age: 86400'
	[ "$output" = "none 86400 " ]
	policy 'version: STSv1\nmode: enforce\nmode: none\nfoo_bar: x y\nmx: a.example\nmax_age:  99999999999\n'
	[ "$output" = "invalid: bad max_age" ]
	policy 'version: STSv1\nmode: enforce\nmode: none\nfoo_bar: x y\nmx: a.example\nmax_age:  9999999999  \n'
	[ "$output" = "enforce 31557600 a.example" ]
}

@test "policy file: malformed ones are refused with the reason" {
	policy 'version: STSv2\nmode: enforce\nmx: a.example\nmax_age: 1\n'
	[ "$status" -eq 65 ]
	[ "$output" = "invalid: version is not STSv1" ]
	policy 'mode: enforce\nmx: a.example\nmax_age: 1\n'
	[ "$output" = "invalid: version missing" ]
	policy 'version: STSv1\nmode: enforce\nmax_age: 1\n'
	[ "$output" = "invalid: no mx pattern" ]
	policy 'version: STSv1\nmode: enforcing\nmx: a.example\nmax_age: 1\n'
	[ "$output" = "invalid: bad mode" ]
	policy 'version: STSv1\nmode: enforce\nmx: a..example\nmax_age: 1\n'
	[ "$output" = "invalid: bad mx pattern" ]
	policy 'version: STSv1\nmode: enforce\nmx: a.*.example\nmax_age: 1\n'
	[ "$output" = "invalid: bad mx pattern" ]
	policy 'version: STSv1\nmode: enforce\nmx: a.example\nmax_age: -1\n'
	[ "$output" = "invalid: bad max_age" ]
	policy '<html>\n<body>not a policy</body>\n'
	[ "$output" = "invalid: a line is not key: value" ]
	policy 'version: STSv1\nmode: enforce\x01\nmx: a.example\nmax_age: 1\n'
	[ "$output" = "invalid: control character in a value" ]
	head -c 70000 /dev/zero | tr '\0' 'x' >"$BATS_TEST_TMPDIR/policy"
	run "$MJ_MTASTS" policy "$BATS_TEST_TMPDIR/policy"
	[ "$status" -eq 65 ]
	[ "$output" = "invalid: policy larger than 65536 bytes" ]
}

@test "TXT record: v=STSv1 first, an id of 1-32 letters and digits, exactly one such record" {
	run "$MJ_MTASTS" txt 'v=STSv1; id=20160831085700Z;'
	[ "$status" -eq 0 ]
	[ "$output" = 20160831085700Z ]
	run "$MJ_MTASTS" txt 'v=STSv1;id=abc ;ext=1'
	[ "$output" = abc ]
	run "$MJ_MTASTS" txt $'v=spf1 -all\nv=STSv1; id=x1'
	[ "$output" = x1 ]
	run -65 "$MJ_MTASTS" txt $'v=STSv1; id=a\nv=STSv1; id=b'
	run -65 "$MJ_MTASTS" txt 'v=STSv1; id=abcdefghijklmnopqrstuvwxyz0123456'
	run -65 "$MJ_MTASTS" txt 'v=STSv1; id=a-b'
	run -65 "$MJ_MTASTS" txt 'v=STSv1'
	run -65 "$MJ_MTASTS" txt 'id=1; v=STSv1'
	run -65 "$MJ_MTASTS" txt 'v=STSv10; id=1'
}

@test "MX patterns: a wildcard is exactly one leftmost label; case and a trailing dot do not matter" {
	"$MJ_MTASTS" match mail.example.com mail.example.com
	"$MJ_MTASTS" match mail.example.com MAIL.Example.COM.
	"$MJ_MTASTS" match '*.example.com' mx1.example.com
	run -1 "$MJ_MTASTS" match '*.example.com' example.com
	run -1 "$MJ_MTASTS" match '*.example.com' a.b.example.com
	run -1 "$MJ_MTASTS" match '*.example.com' .example.com
	run -1 "$MJ_MTASTS" match mail.example.com mail.example.com.evil
	run -1 "$MJ_MTASTS" match mail.example.com xmail.example.com
}
