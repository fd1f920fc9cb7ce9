#!/usr/bin/env bats
# t/230-mta-sts.bats - MTA-STS (RFC 8461): the policy file, TXT record and
# MX pattern parsers (smtp/mta_sts.c, through t/tools/mj_mtasts), then
# end to end: mj_testdns serving _mta-sts TXT and MX records, lighttpd
# with TLS and a test CA serving the policies at
# https://mta-sts.<domain>/.well-known/mta-sts.txt, mj_testsmtpd sinks
# with certificates for the MX names from that CA.  Last, TLS-RPT (RFC
# 8460): the sessions of a day reported the next day (a runner whose
# clock a test can move, make fault-runner) to the rua of _smtp._tls,
# the report read by Python (t/tools/mj_tlsrptcheck.py) and its DKIM
# signature checked by python3-dkim (mj_dkimverify.py).
# slow: 5000 domains each fetch a policy over HTTPS and deliver over TLS

load helpers
load smtp_helpers

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

@test "policy file: extension fields of RFC 8461 3.2's ABNF are ignored, whatever form the grammar allows" {
	local base='version: STSv1\nmode: enforce\nmx: a.example\nmax_age: 86400\n'
	local ok='enforce 86400 a.example'
	# sts-policy-ext-name: (ALPHA / DIGIT) 0*31(ALPHA / DIGIT / "_" / "-" / ".")
	for f in 'x-contact: postmaster@example.com' 'ext.name-1_2: v' \
		'9lives: v' 'Z: v' 'a1234567890123456789012345678901: 32 chars' \
		'Mode: an extension, the registered names are case-sensitive' \
		'x-tight:v' 'x-punct: a=b;c, "d" <e> {f} ~!' 'x-spaced: a  b   c   ' \
		'x-utf8: caf\303\251 \342\202\254 \360\237\230\200'; do
		policy "$base$f\n"
		[ "$status" -eq 0 ] || { echo "$f: $output"; false; }
		[ "$output" = "$ok" ]
		policy "$f\r\n$base"
		[ "$output" = "$ok" ] || { echo "first $f: $output"; false; }
	done
	# a registered key is matched exactly: "Version" does not stand for it
	policy 'Version: STSv1\nmode: enforce\nmx: a.example\nmax_age: 1\n'
	[ "$output" = "invalid: version missing" ]
}

@test "policy file: field names and values outside the ABNF are refused with the reason" {
	local base='version: STSv1\nmode: enforce\nmx: a.example\nmax_age: 86400\n'
	for f in '-x: v' '.x: v' '_x: v' 'x y: v' 'x-contact : v' 'x/y: v' \
		'x@y: v' 'a12345678901234567890123456789012: 33 chars' \
		'x\303\251: v'; do
		policy "$base$f\n"
		[ "$status" -eq 65 ] || { echo "$f: $output"; false; }
		[ "$output" = "invalid: bad key" ] || { echo "$f: $output"; false; }
	done
	policy "${base}x-empty:\n"
	[ "$output" = "invalid: extension field x-empty without a value" ]
	policy "${base}x-empty:   \n"
	[ "$output" = "invalid: extension field x-empty without a value" ]
	for f in 'x-tab: a\tb' 'x-del: a\177b' 'x-cr: a\rb' 'x-esc: \033[1m'; do
		policy "$base$f\n"
		[ "$status" -eq 65 ]
		[ "$output" = "invalid: control character in a value" ] ||
			{ echo "$f: $output"; false; }
	done
	for f in 'x-bad: \377' 'x-bad: a\200b' 'x-bad: \300\257' \
		'x-bad: \355\240\200' 'x-bad: \342\202' 'x-bad: \364\220\200\200'; do
		policy "$base$f\n"
		[ "$status" -eq 65 ]
		[ "$output" = "invalid: a value is not UTF-8" ] ||
			{ echo "$f: $output"; false; }
	done
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

# cert NAME CN... - key and certificate NAME for the names CN... (the
# first is the subject) signed by the test CA
cert() {
	local n=$1 cn=$2 san="" h
	shift
	for h in "$@"; do san="$san${san:+,}DNS:$h"; done
	openssl req -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes \
		-subj "/CN=$cn" -keyout "$C/$n.key" -out "$C/$n.csr" 2>/dev/null
	printf 'subjectAltName=%s\n' "$san" >"$C/$n.ext"
	openssl x509 -req -in "$C/$n.csr" -CA "$C/ca.crt" -CAkey "$C/ca.key" \
		-CAcreateserial -extfile "$C/$n.ext" -out "$C/$n.crt" -days 30 \
		2>/dev/null
}

setup_file() {
	C=$BATS_FILE_TMPDIR/certs
	export C
	mkdir -p "$C"
	openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 \
		-nodes -subj "/CN=mjq MTA-STS test CA" -days 30 \
		-keyout "$C/ca.key" -out "$C/ca.crt" 2>/dev/null
	cert mx mx1.sts.test
	cert other other.example
	# the policy server: every mta-sts.<domain> of the tests but one
	cert web mta-sts.sts.test mta-sts.sts.test mta-sts.redirect.test \
		mta-sts.ctype.test
	cat "$C/web.crt" "$C/web.key" >"$C/web.pem"
	for n in mx other web; do [ -s "$C/$n.crt" ] || return 1; done
	make -s -C "$TOP" fault-runner FAULT_DIR="$BATS_FILE_TMPDIR" >/dev/null
}

setup() {
	command -v lighttpd >/dev/null || skip "needs lighttpd (make test installs it)"
	[ -f /usr/lib/lighttpd/mod_openssl.so ] ||
		skip "needs lighttpd-mod-openssl (make test installs it)"
	mjq_setup </dev/null
	T=$BATS_TEST_TMPDIR
	DNS_PORT=
	WEB_PID=
	ID=1
}

teardown() {
	[ -z "${WEB_PID:-}" ] || stop_pid "$WEB_PID"
	queueserv_stop
	servers_stop
}

# web_start - lighttpd with TLS on a free loopback port (its certificate
# and key $WEB_PEM, else web.pem of setup_file): the document
# root of host H is $T/www/H/ (mod_simple_vhost); mta-sts.redirect.test
# answers 301, mta-sts.ctype.test serves its policy as text/html
web_start() {
	local d=$T/web
	mkdir -p "$d" "$T/www"
	WEB_PORT=${WEB_PORT:-$(free_port)}
	cat >"$d/lighttpd.conf" <<-CONF
	server.modules = ("mod_openssl", "mod_simple_vhost", "mod_redirect")
	server.document-root = "$T/www/none"
	server.bind = "127.0.0.1"
	server.port = $WEB_PORT
	server.errorlog = "$d/error.log"
	ssl.engine = "enable"
	ssl.pemfile = "${WEB_PEM:-$C/web.pem}"
	simple-vhost.server-root = "$T/www/"
	simple-vhost.document-root = "/"
	mimetype.assign = (".txt" => "text/plain")
	\$HTTP["host"] == "mta-sts.redirect.test" {
		url.redirect = ("^/(.*)" => "https://mta-sts.sts.test/\$1")
	}
	\$HTTP["host"] == "mta-sts.ctype.test" {
		mimetype.assign = (".txt" => "text/html")
	}
	CONF
	lighttpd -D -f "$d/lighttpd.conf" 2>"$d/stderr" 3>&- &
	WEB_PID=$!
	echo "$WEB_PID" >>"$T/server.pids"
	wait_for 30 curl -s -o /dev/null -k \
		--connect-to "::127.0.0.1:$WEB_PORT" \
		https://mta-sts.sts.test/
}

# web_stop - the policy server goes away
web_stop() {
	stop_pid "$WEB_PID"
	WEB_PID=
}

# policy DOMAIN MODE MAX_AGE MX... - the policy file of DOMAIN
policy_file() {
	local dom=$1 mode=$2 age=$3 d
	shift 3
	d=$T/www/mta-sts.$dom/.well-known
	mkdir -p "$d"
	{
		printf 'version: STSv1\nmode: %s\n' "$mode"
		for m in "$@"; do printf 'mx: %s\n' "$m"; done
		printf 'max_age: %s\n' "$age"
	} >"$d/mta-sts.txt"
}

# zone DOMAIN [ID] - DNS: DOMAIN's MX mx1.sts.test at 127.0.0.1 and, with
# ID, its _mta-sts TXT record; (re)started on the same port
zone() {
	local dom=$1 id=${2:-}
	{
		echo "$dom MX 10 mx1.sts.test"
		echo "mx1.sts.test A 127.0.0.1"
		[ -z "$id" ] || echo "_mta-sts.$dom TXT v=STSv1; id=$id"
		[ -z "${ZONE_EXTRA:-}" ] || printf '%s\n' "$ZONE_EXTRA"
	} >"$T/zone"
	if [ -n "$DNS_PORT" ]; then
		stop_pid "$DNS_PID"
		rm -f "$T/dns/again"
		"$MJ_TESTDNS" -p "$DNS_PORT" --port-file "$T/dns/again" \
			--log "$T/dns/log" "$T/zone" 2>>"$T/dns/stderr" 3>&- &
		DNS_PID=$!
		echo "$DNS_PID" >>"$T/server.pids"
		# the port file is written once the socket is bound
		wait_for 30 test -s "$T/dns/again"
	else
		dnsd_start "$T/zone"
		DNS_PID=$(tail -1 "$T/server.pids")
	fi
}

# server CERT [OPTION...] - the MX: mj_testsmtpd "s" with STARTTLS and
# CERT ("none": no STARTTLS); sets PORT
server() {
	local c=$1
	shift
	if [ "$c" = none ]; then
		smtpd_start s "$@"
	else
		smtpd_start s --tls-cert "$C/$c.crt" --tls-key "$C/$c.key" \
			--tls-log "$T/s/tls" "$@"
	fi
}

# configure DOMAIN [INI...] - the runner delivers DOMAIN through DNS (MX)
# to the server at smtp_tls_security_level may (the default), trusting
# the test CA for SMTP and for policies, every policy fetch connected to
# the test's lighttpd
configure() {
	local dom=$1
	shift
	{
		printf '[delivery]\ndns_server = 127.0.0.1:%s\n' "$DNS_PORT"
		printf 'smtp_tls_CAfile = %s/ca.crt\n' "$C"
		printf 'smtp_mta_sts_CAfile = %s/ca.crt\n' "$C"
		printf 'smtp_mta_sts_connect_to = 127.0.0.1:%s\n' "${WEB_PORT:-1}"
		printf 'smtp_mta_sts_wait = 5s\n'
		printf 'minimal_backoff_time = 1s\nmaximal_backoff_time = 2s\n'
		for l in "$@"; do echo "$l"; done
		printf '[transport_map]\n%s = smtp:%s:%s\n' "$dom" "$dom" "$PORT"
	} >>"$CONF"
}

# post DOMAIN - a post to u1@DOMAIN
post() {
	mkdir -p "$LISTS/ex.org/l"
	echo "u1@$1" >"$LISTS/ex.org/l/subscribers"
	list_posting ex.org l
	printf 'From: p@example.net\nSubject: s\nMessage-Id: <1@x>\n\nhello\n' |
		"$MJ_ENQUEUE" -C "$CONF" -d ex.org -l l -r -f p@example.net
}

# delivered - the recipients the server accepted
delivered() {
	[ -f "$T/s/log" ] && wc -l <"$T/s/log" || echo 0
}

# sts_run DOMAIN MODE CERT [MX...] - a policy of MODE for DOMAIN (mx
# mx1.sts.test unless given), the MX showing CERT, one post, one pass
sts_run() {
	local dom=$1 mode=$2 c=$3
	shift 3
	[ $# -gt 0 ] || set -- mx1.sts.test
	policy_file "$dom" "$mode" 86400 "$@"
	web_start
	zone "$dom" "$ID"
	server "$c"
	configure "$dom"
	post "$dom"
	runq
}

@test "enforce: the MX the policy names, verified for its name: sent, the policy cached and shown by status" {
	sts_run sts.test enforce mx
	grep -q '_mta-sts.sts.test TXT' "$T/dns/log"
	grep -q 'smtp: MTA-STS policy of sts.test: mode=enforce max_age=86400 id=1 mx=mx1.sts.test$' "$T/run.log"
	grep -q 'status=sent (.*), tls=verified$' "$T/run.log"
	[ "$(delivered)" -eq 1 ]
	[ -s "$SPOOL/state/mta-sts" ]
	run -69 --separate-stderr "$MJ_QUEUESERV" -C "$CONF" status
	[[ "$output" == *$'\nmta-sts: sts.test enforce id=1 expires=8640'[0-9]'s mx=mx1.sts.test'* ]]
	run -69 --separate-stderr "$MJ_QUEUESERV" -C "$CONF" status -j
	[[ "$output" == *'"mta_sts":[{"domain":"sts.test","mode":"enforce","id":"1","max_age":86400,"expires_in":'*',"mx":["mx1.sts.test"]}]'* ]]
}

@test "enforce: a wildcard pattern matches the MX; an MX the patterns do not match is never tried (4.7.5, deferred)" {
	sts_run sts.test enforce mx '*.sts.test'
	grep -q 'status=sent (.*), tls=verified$' "$T/run.log"
	servers_stop
	rm -rf "$T/s" "$T/run.log" "$SPOOL" "$T/www" "$T/dns"
	DNS_PORT= WEB_PORT=
	mjq_setup </dev/null
	sts_run sts.test enforce mx mx.elsewhere.test '*.mx1.sts.test'
	grep -q 'dsn=4.7.5, status=deferred (MX host mx1.sts.test does not match the MTA-STS policy of sts.test)$' "$T/run.log"
	[ ! -s "$T/s/trace" ]
	[ "$(delivered)" -eq 0 ]
}

@test "enforce: a certificate for another name defers (4.7.5), where may without a policy delivers" {
	sts_run sts.test enforce other
	grep -q 'dsn=4.7.5, status=deferred (TLS handshake with mx1.sts.test\[127.0.0.1\]:[0-9]* failed: certificate verification failed: hostname mismatch)$' "$T/run.log"
	grep -q 'smtp: MTA-STS policy of sts.test (enforce): mx1.sts.test: TLS handshake' "$T/run.log"
	[ "$(delivered)" -eq 0 ]
	run -1 grep -q 'MAIL FROM' "$T/s/trace"
}

@test "enforce: STARTTLS stripped defers, nothing goes in clear text" {
	sts_run sts.test enforce none
	grep -q 'dsn=4.7.4, status=deferred (TLS is required, but was not offered by host mx1.sts.test\[127.0.0.1\]:[0-9]*)$' "$T/run.log"
	[ "$(delivered)" -eq 0 ]
	run -1 grep -qi 'MAIL FROM' "$T/s/trace"
	run -1 grep -q 'retrying in clear text\|continuing in clear text' "$T/run.log"
}

@test "enforce with extension fields (x-contact:, a.b-c_d:): the policy holds, STARTTLS stripped defers, nothing in clear text" {
	policy_file sts.test enforce 86400 mx1.sts.test
	printf 'x-contact: postmaster@sts.test\r\na.b-c_d: 1 2 3\n' \
		>>"$T/www/mta-sts.sts.test/.well-known/mta-sts.txt"
	web_start
	zone sts.test 1
	server none
	configure sts.test
	post sts.test
	runq
	grep -q 'smtp: MTA-STS policy of sts.test: mode=enforce max_age=86400 id=1 mx=mx1.sts.test$' "$T/run.log"
	grep -q 'dsn=4.7.4, status=deferred (TLS is required, but was not offered by host mx1.sts.test\[127.0.0.1\]:[0-9]*)$' "$T/run.log"
	[ "$(delivered)" -eq 0 ]
	run -1 grep -qi 'MAIL FROM' "$T/s/trace"
	run -1 grep -q 'tls=none\|without MTA-STS' "$T/run.log"
}

@test "testing: delivered as before, what enforce would have refused logged" {
	sts_run sts.test testing other
	grep -q 'status=sent (.*), tls=trusted$' "$T/run.log"
	grep -q 'smtp: MTA-STS policy of sts.test (testing): mx1.sts.test would have failed: certificate not verified for the MX host name$' "$T/run.log"
	[ "$(delivered)" -eq 1 ]
}

@test "testing: STARTTLS stripped and an unlisted MX are delivered in clear text, and logged" {
	sts_run sts.test testing none mx.elsewhere.test
	grep -q 'status=sent (.*), tls=none$' "$T/run.log"
	grep -q 'smtp: MTA-STS policy of sts.test (testing): mx1.sts.test would have failed: MX host not in the policy$' "$T/run.log"
	[ "$(delivered)" -eq 1 ]
}

@test "none: the policy is forgotten, delivery as without MTA-STS" {
	policy_file sts.test none 86400
	web_start
	zone sts.test 1
	server other
	configure sts.test
	post sts.test
	runq
	grep -q 'smtp: MTA-STS policy of sts.test: mode=none max_age=86400 id=1 mx=-$' "$T/run.log"
	grep -q 'status=sent (.*), tls=trusted$' "$T/run.log"
	run -1 grep -q 'would have failed' "$T/run.log"
}

@test "no TXT record: no fetch, delivery as before; smtp_mta_sts = no: no look-up at all" {
	policy_file sts.test enforce 86400 mx1.sts.test
	web_start
	zone sts.test
	server other
	configure sts.test
	post sts.test
	runq
	grep -q '_mta-sts.sts.test TXT' "$T/dns/log"
	grep -q 'status=sent (.*), tls=trusted$' "$T/run.log"
	run -1 grep -q "MTA-STS policy of" "$T/run.log"
	servers_stop
	rm -rf "$T/s" "$T/run.log" "$SPOOL" "$T/dns"
	DNS_PORT=
	mjq_setup </dev/null
	zone sts.test 1
	server other
	configure sts.test 'smtp_mta_sts = no'
	post sts.test
	runq
	run -1 grep -q '_mta-sts' "$T/dns/log"
	grep -q 'status=sent (.*), tls=trusted$' "$T/run.log"
}

@test "the cache survives the runner: the next runner uses it without a look-up" {
	sts_run sts.test enforce mx
	grep -q 'status=sent' "$T/run.log"
	web_stop
	: >"$T/dns/log"
	post sts.test
	runq
	[ "$(delivered)" -eq 2 ]
	run -1 grep -q '_mta-sts' "$T/dns/log"
	[ "$(grep -c 'MTA-STS policy of sts.test: mode=' "$T/run.log")" -eq 1 ]
}

# again_post - the next post to sts.test, one pass, the run log afresh
again_post() {
	mv "$T/run.log" "$T/run.log.$((++RUNS))"
	post sts.test
	runq
}

@test "a policy that cannot be fetched: the cached one stays in force (a changed id, the web server gone)" {
	policy_file sts.test enforce 86400 mx1.sts.test
	web_start
	zone sts.test 1
	server mx
	configure sts.test 'smtp_mta_sts_refresh = 1s'
	post sts.test
	runq
	grep -q 'status=sent (.*), tls=verified$' "$T/run.log"
	web_stop
	zone sts.test 2
	sleep 1.1
	again_post
	grep -q 'cannot fetch the MTA-STS policy of sts.test: .*; the cached policy stays$' "$T/run.log"
	grep -q 'status=sent (.*), tls=verified$' "$T/run.log"
	[ "$(delivered)" -eq 2 ]
	run -69 --separate-stderr "$MJ_QUEUESERV" -C "$CONF" status
	[[ "$output" == *$'\nmta-sts: sts.test enforce id=1 '* ]]
}

@test "a policy that cannot be fetched, none cached: delivered as without MTA-STS, logged" {
	zone sts.test 1
	server other
	configure sts.test
	post sts.test
	runq
	grep -q 'cannot fetch the MTA-STS policy of sts.test: https://mta-sts.sts.test/.well-known/mta-sts.txt: .*; delivering without MTA-STS$' "$T/run.log"
	grep -q 'status=sent (.*), tls=trusted$' "$T/run.log"
}

# hang_start - a policy server that accepts and never says a word
# (mj_testsmtpd, silent from its greeting on: the TLS handshake hangs);
# sets WEB_PORT
hang_start() {
	smtpd_start hang --silent greeting
	WEB_PORT=$PORT
}

@test "a policy server that never answers: the fetch gives up after smtp_mta_sts_timeout; none cached: delivered without MTA-STS, logged" {
	hang_start
	zone sts.test 1
	server other
	configure sts.test 'smtp_mta_sts_timeout = 1s' 'smtp_mta_sts_wait = 30s'
	post sts.test
	SECONDS=0
	runq
	# given up after the fetch's 1 s, long before the 30 s of waiting
	[ "$SECONDS" -lt 10 ]
	grep -q 'cannot fetch the MTA-STS policy of sts.test: https://mta-sts.sts.test/.well-known/mta-sts.txt: .*timed out after 1[0-9][0-9][0-9] milliseconds.*; delivering without MTA-STS$' "$T/run.log"
	run -1 grep -q 'not known yet' "$T/run.log"
	grep -q 'status=sent (.*), tls=trusted$' "$T/run.log"
	[ "$(delivered)" -eq 1 ]
}

@test "a policy server that never answers, a policy cached: the fetch gives up, the cached policy stays in force" {
	policy_file sts.test enforce 86400 mx1.sts.test
	web_start
	zone sts.test 1
	server mx
	configure sts.test 'smtp_mta_sts_refresh = 1s' 'smtp_mta_sts_timeout = 1s' \
		'smtp_mta_sts_wait = 30s'
	post sts.test
	runq
	grep -q 'status=sent (.*), tls=verified$' "$T/run.log"
	# the id changes; the policy server now hangs on the same port
	web_stop
	smtpd_start hang --silent greeting --port "$WEB_PORT"
	zone sts.test 2
	sleep 1.1
	SECONDS=0
	again_post
	[ "$SECONDS" -lt 10 ]
	grep -q 'cannot fetch the MTA-STS policy of sts.test: .*timed out after 1[0-9][0-9][0-9] milliseconds.*; the cached policy stays$' "$T/run.log"
	grep -q 'status=sent (.*), tls=verified$' "$T/run.log"
	[ "$(delivered)" -eq 2 ]
	run -69 --separate-stderr "$MJ_QUEUESERV" -C "$CONF" status
	[[ "$output" == *$'\nmta-sts: sts.test enforce id=1 '* ]]
}

# many_domains N - N domains d1.test ... dN.test, each with its MX
# mx1.sts.test and an enforce policy (mx1.sts.test, a day) served under a
# certificate of its own with every mta-sts.dI.test name; the transport
# map sends each to the port in $T/port (rewritten by a test); the list
# l@ex.org
many_domains() {
	local n=$1 d=$T/www
	openssl req -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes \
		-subj /CN=mta-sts.d1.test -keyout "$T/many.key" \
		-out "$T/many.csr" 2>/dev/null
	printf 'subjectAltName=%s\n' "$(seq 1 "$n" |
		sed 's/.*/DNS:mta-sts.d&.test/' | paste -sd,)" >"$T/many.ext"
	openssl x509 -req -in "$T/many.csr" -CA "$C/ca.crt" -CAkey "$C/ca.key" \
		-CAcreateserial -extfile "$T/many.ext" -out "$T/many.crt" \
		-days 30 2>/dev/null
	cat "$T/many.crt" "$T/many.key" >"$T/many.pem"
	for i in $(seq 1 "$n"); do
		mkdir -p "$d/mta-sts.d$i.test/.well-known"
		printf 'version: STSv1\nmode: enforce\nmx: mx1.sts.test\nmax_age: 86400\n' \
			>"$d/mta-sts.d$i.test/.well-known/mta-sts.txt"
	done
	seq 1 "$n" | awk '{ printf "d%s.test MX 10 mx1.sts.test\n_mta-sts.d%s.test TXT v=STSv1; id=1\n", $1, $1 }' \
		>"$T/many.zone"
	echo "mx1.sts.test A 127.0.0.1" >>"$T/many.zone"
	dnsd_start "$T/many.zone"
	{
		printf '[delivery]\ndns_server = 127.0.0.1:%s\n' "$DNS_PORT"
		printf 'smtp_tls_CAfile = %s/ca.crt\n' "$C"
		printf 'smtp_mta_sts_CAfile = %s/ca.crt\n' "$C"
		printf 'smtp_mta_sts_connect_to = 127.0.0.1:%s\n' "$WEB_PORT"
		printf 'smtp_mta_sts_wait = 5s\n'
		printf '[transport_map]\n'
		seq 1 "$n" | sed 's/.*/d&.test = smtp:d&.test:MXPORT/'
	} >>"$CONF"
	mkdir -p "$LISTS/ex.org/l"
	list_posting ex.org l
}

# many_post - a post to u@ each domain in $T/to (numbers, one a line)
many_post() {
	sed 's/.*/u@d&.test/' "$T/to" >"$LISTS/ex.org/l/subscribers"
	printf 'From: p@example.net\nSubject: s\nMessage-Id: <%s@x>\n\nhello\n' \
		"$RANDOM$RANDOM" |
		"$MJ_ENQUEUE" -C "$CONF" -d ex.org -l l -r -f p@example.net
}

# many_fetched - the domains whose policy has been fetched (numbers,
# sorted as comm wants them)
many_fetched() {
	sed -n 's/.*MTA-STS policy of d\([0-9]*\)\.test: mode=enforce .*/\1/p' \
		"$T/run.log" | sort -u
}

@test "5000 domains with enforce policies: none is given up before its max_age; the policy host gone, STARTTLS stripped defers every one, nothing in clear text" {
	local n=5000
	WEB_PORT=$(free_port)
	many_domains "$n"
	WEB_PEM=$T/many.pem web_start
	# every domain's policy fetched while its mail goes to a verified MX
	server mx
	sed -i "s/:MXPORT\$/:$PORT/" "$CONF"
	seq 1 "$n" >"$T/to"
	# (a pass on a loaded machine may leave domains a delivery did not
	# wait for: the next post goes to those; each pass has all the time
	# it needs, the loop a bound for a hang)
	SECONDS=0
	while [ -s "$T/to" ] && [ "$SECONDS" -lt 3600 ]; do
		many_post
		RUNQ_TIMEOUT=3600 runq
		many_fetched | comm -13 - <(seq 1 "$n" | sort) >"$T/to"
		echo "# ${SECONDS}s: $(wc -l <"$T/to") domains without a policy" >&3
	done
	[ ! -s "$T/to" ]
	# the policy host gone, the MX without STARTTLS: every domain's
	# mail meets its cached policy
	web_stop
	stop_pid "$(cat "$T/s/pid")"
	rm -rf "$T/s"
	server none
	sed -i "s/^\\(d[0-9]*\\.test = smtp:d[0-9]*\\.test:\\)[0-9]*\$/\\1$PORT/" "$CONF"
	: >"$T/run.log"
	seq 1 "$n" >"$T/to"
	many_post
	RUNQ_TIMEOUT=3600 runq
	# every domain deferred 4.7.4 (a delivery a loaded machine made
	# time out is tried once more)
	for i in 1 2 3; do
		sed -n 's/.*to=<u@d\([0-9]*\)\.test>.*dsn=4\.7\.4, status=deferred (TLS is required, but was not offered by host mx1\.sts\.test.*/\1/p' \
			"$T/run.log" | sort -u >"$T/refused"
		[ "$(wc -l <"$T/refused")" -lt "$n" ] || break
		make_due
		RUNQ_TIMEOUT=3600 runq
	done
	[ "$(wc -l <"$T/refused")" -eq "$n" ]
	run -1 grep -q 'status=sent\|tls=none\|without MTA-STS\|cannot cache' "$T/run.log"
	[ "$(delivered)" -eq 0 ]
	run -1 grep -qi 'MAIL FROM' "$T/s/trace"
	run -69 --separate-stderr "$MJ_QUEUESERV" -C "$CONF" status
	[ "$(grep -c '^mta-sts: d[0-9]*\.test enforce id=1 ' <<<"$output")" -eq "$n" ]
}

@test "a changed id fetches the policy again; an unchanged id does not" {
	policy_file sts.test enforce 86400 mx1.sts.test
	web_start
	zone sts.test 1
	server mx
	configure sts.test 'smtp_mta_sts_refresh = 1s'
	post sts.test
	runq
	grep -q 'MTA-STS policy of sts.test: mode=enforce max_age=86400 id=1 ' "$T/run.log"
	# the file changes, the id does not: the cached policy stays
	policy_file sts.test testing 86400 mx1.sts.test
	sleep 1.1
	again_post
	grep -q '_mta-sts.sts.test TXT' "$T/dns/log"
	run -1 grep -q 'MTA-STS policy of sts.test: mode=' "$T/run.log"
	run -69 --separate-stderr "$MJ_QUEUESERV" -C "$CONF" status
	[[ "$output" == *$'\nmta-sts: sts.test enforce id=1 '* ]]
	# the id changes: fetched again at the next look, testing from then
	zone sts.test 2
	sleep 1.1
	again_post
	grep -q 'MTA-STS policy of sts.test: mode=testing max_age=86400 id=2 mx=mx1.sts.test$' "$T/run.log"
	run -69 --separate-stderr "$MJ_QUEUESERV" -C "$CONF" status
	[[ "$output" == *$'\nmta-sts: sts.test testing id=2 '* ]]
	[ "$(delivered)" -eq 3 ]
}

@test "max_age: an expired policy is not used; it is fetched again" {
	policy_file sts.test enforce 2 mx1.sts.test
	web_start
	zone sts.test 1
	server mx
	configure sts.test
	post sts.test
	runq
	grep -q 'MTA-STS policy of sts.test: mode=enforce max_age=2 id=1' "$T/run.log"
	run -69 --separate-stderr "$MJ_QUEUESERV" -C "$CONF" status
	[[ "$output" == *$'\nmta-sts: sts.test enforce id=1 '* ]]
	policy_file sts.test testing 2 mx1.sts.test
	sleep 2.1
	run -69 --separate-stderr "$MJ_QUEUESERV" -C "$CONF" status
	[[ "$output" != *'mta-sts: '* ]]
	again_post
	grep -q 'MTA-STS policy of sts.test: mode=testing max_age=2 id=1' "$T/run.log"
	[ "$(delivered)" -eq 2 ]
}

# refused DOMAIN REASON - the policy of DOMAIN is refused for REASON:
# delivered as without MTA-STS (to a certificate enforce would refuse)
refused() {
	web_start
	zone "$1" 1
	server other
	configure "$1"
	post "$1"
	runq
	grep -q "cannot fetch the MTA-STS policy of $1: $2; delivering without MTA-STS\$" "$T/run.log"
	grep -q 'status=sent (.*), tls=trusted$' "$T/run.log"
	run -1 grep -q "MTA-STS policy of $1: mode=" "$T/run.log"
}

@test "an oversized policy is refused" {
	policy_file sts.test enforce 86400 mx1.sts.test
	head -c 70000 /dev/zero | tr '\0' '#' >>"$T/www/mta-sts.sts.test/.well-known/mta-sts.txt"
	refused sts.test 'https://mta-sts.sts.test/.well-known/mta-sts.txt: policy too large'
}

@test "a malformed policy is refused" {
	mkdir -p "$T/www/mta-sts.sts.test/.well-known"
	printf 'version: STSv1\nmode: enforce\nmx: mx1.sts.test\n' \
		>"$T/www/mta-sts.sts.test/.well-known/mta-sts.txt"
	refused sts.test 'max_age missing'
}

@test "a redirect is refused, not followed" {
	policy_file sts.test enforce 86400 mx1.sts.test
	refused redirect.test 'HTTP 301: redirect refused'
}

@test "a policy not served as text/plain is refused" {
	policy_file ctype.test enforce 86400 mx1.sts.test
	refused ctype.test 'media type text/html, not text/plain'
}

@test "a policy server whose certificate is not for mta-sts.<domain> is refused" {
	policy_file nocert.test enforce 86400 mx1.sts.test
	refused nocert.test "https://mta-sts.nocert.test/.well-known/mta-sts.txt: .*"
	grep -q "mta-sts.nocert.test.*\(certificate\|SSL\|match\)" "$T/run.log"
}

@test "a [tls_policy] line overrides the MTA-STS policy" {
	policy_file sts.test enforce 86400 mx1.sts.test
	web_start
	zone sts.test 1
	server other
	configure sts.test
	printf '[tls_policy]\nsts.test = may\n' >>"$CONF"
	post sts.test
	runq
	grep -q 'status=sent (.*), tls=trusted$' "$T/run.log"
}

# tlsa CERT - the DANE-EE(3) SPKI(1) SHA-256(1) data of CERT
tlsa() {
	openssl x509 -in "$C/$1.crt" -noout -pubkey |
		openssl pkey -pubin -outform DER | openssl dgst -sha256 -r |
		cut -d' ' -f1
}

# dane_run [tlsa] - an enforce policy naming another MX, DNS with the AD
# bit (and, with "tlsa", a TLSA record of the MX's key), the runner at
# dane
dane_run() {
	local d=$T/dns
	policy_file sts.test enforce 86400 mx.elsewhere.test
	web_start
	server mx
	{
		echo "sts.test MX 10 mx1.sts.test"
		echo "mx1.sts.test A 127.0.0.1"
		echo "_mta-sts.sts.test TXT v=STSv1; id=1"
		[ "${1:-}" != tlsa ] ||
			echo "_$PORT._tcp.mx1.sts.test TLSA ${TLSA_USAGE:-3} 1 1 $(tlsa mx)"
	} >"$T/zone"
	mkdir -p "$d"
	"$MJ_TESTDNS" -p 0 --port-file "$d/port" --log "$d/log" --ad \
		"$T/zone" 2>"$d/stderr" 3>&- &
	echo $! >>"$T/server.pids"
	wait_for 30 test -s "$d/port"
	DNS_PORT=$(cat "$d/port")
	configure sts.test 'smtp_tls_security_level = dane' \
		'smtp_dns_support_level = dnssec'
	post sts.test
	runq
}

@test "DANE wins where the MX host has TLSA records; without them the policy applies" {
	dane_run
	grep -q 'dsn=4.7.5, status=deferred (MX host mx1.sts.test does not match the MTA-STS policy of sts.test)$' "$T/run.log"
	servers_stop
	rm -rf "$T/s" "$T/run.log" "$SPOOL" "$T/www" "$T/dns"
	DNS_PORT= WEB_PORT=
	mjq_setup </dev/null
	dane_run tlsa
	grep -q '_[0-9]*._tcp.mx1.sts.test TLSA' "$T/dns/log"
	grep -q 'status=sent (.*), tls=verified$' "$T/run.log"
}

@test "status while the server runs: the policy its runner fetched, in text and in -j" {
	policy_file sts.test enforce 86400 mx1.sts.test
	web_start
	zone sts.test 1
	server mx
	configure sts.test
	printf '[queueserv]\nmax_runners = 1\nqueue_run_delay = 1h\n' >>"$CONF"
	queueserv_start
	run "$MJ_QUEUESERV" -C "$CONF" status -j
	[ "$status" -eq 0 ]
	[[ "$output" == *'"mta_sts":[]'* ]]
	post sts.test
	wait_for 30 grep -q 'status=sent (.*), tls=verified$' "$QS_LOG"
	[ -n "$(runner_pids)" ]
	run "$MJ_QUEUESERV" -C "$CONF" status
	[ "$status" -eq 0 ]
	[[ "$output" == *$'\nmta-sts: sts.test enforce id=1 expires=8640'[0-9]'s mx=mx1.sts.test'* ]]
	run "$MJ_QUEUESERV" -C "$CONF" status -j
	[ "$status" -eq 0 ]
	[[ "$output" == *'"mta_sts":[{"domain":"sts.test","mode":"enforce","id":"1","max_age":86400,"expires_in":'8640[0-9]',"mx":["mx1.sts.test"]}]'* ]]
	echo "$output" | python3 -m json.tool >/dev/null
}

@test "mj_stsfetch: the policy on standard output (0), why not in one line (1; 2 the certificate; 3 not a policy), a bad call (64); the runner does not link libcurl" {
	local f=$TOP/stsfetch/mj_stsfetch
	policy_file sts.test enforce 86400 mx1.sts.test
	web_start
	run -0 "$f" -A "$C/ca.crt" -c "127.0.0.1:$WEB_PORT" sts.test
	[ "$output" = "$(cat "$T/www/mta-sts.sts.test/.well-known/mta-sts.txt")" ]
	# -m: the size limit, the transfer cut past it
	run -3 "$f" -A "$C/ca.crt" -c "127.0.0.1:$WEB_PORT" -m 20 sts.test
	[ "$output" = 'https://mta-sts.sts.test/.well-known/mta-sts.txt: policy too large' ]
	# the system store does not know the test CA
	run -2 "$f" -c "127.0.0.1:$WEB_PORT" sts.test
	[ "${#lines[@]}" -eq 1 ]
	[[ "$output" == 'https://mta-sts.sts.test/.well-known/mta-sts.txt: SSL certificate problem: '* ]]
	run -64 "$f"
	run -64 "$f" -t 0 sts.test
	run -64 "$f" 'evil.test/x?'
	run -64 "$f" 'user@evil.test'
	run -1 grep -q libcurl <(ldd "$MJ_QUEUERUN")
	grep -q libcurl <(ldd "$f")
}

@test "the runner's own deadline kills an mj_stsfetch that hangs; without mj_stsfetch MTA-STS is off, logged" {
	local b=$T/bin
	mkdir -p "$b"
	cp "$MJ_QUEUERUN" "$b/"
	# a helper that notes its call and hangs, in a child of its own
	printf '#!/bin/sh\necho "$@" >%s/args\nsleep 60\n' "$T" >"$b/mj_stsfetch"
	chmod 755 "$b/mj_stsfetch"
	zone sts.test 1
	server other
	configure sts.test 'smtp_mta_sts_timeout = 1s' 'smtp_mta_sts_wait = 30s'
	post sts.test
	SECONDS=0
	MJ_QUEUERUN=$b/mj_queuerun runq
	[ "$SECONDS" -lt 15 ]
	[ "$(cat "$T/args")" = "-m 65536 -t 1000 -A $C/ca.crt -c 127.0.0.1:1 -- sts.test" ]
	grep -q 'cannot fetch the MTA-STS policy of sts.test: mj_stsfetch killed after 6 s; delivering without MTA-STS$' "$T/run.log"
	grep -q 'status=sent (.*), tls=trusted$' "$T/run.log"
	run -1 pgrep -f "sleep 60"
	# no mj_stsfetch beside the runner, nor in ../stsfetch/
	rm "$b/mj_stsfetch"
	: >"$T/dns/log"
	post sts.test
	MJ_QUEUERUN=$b/mj_queuerun runq
	grep -q "MTA-STS off: cannot find mj_stsfetch beside $b\$" "$T/run.log"
	run -1 grep -q '_mta-sts' "$T/dns/log"
	[ "$(delivered)" -eq 2 ]
}

@test "enforce: after a TLS failure at the first matching MX the next matching one is tried and gets the mail; the unmatched MX never, clear text never" {
	cert mx2 mx2.sts.test
	policy_file sts.test enforce 86400 mx1.sts.test mx2.sts.test
	web_start
	# one server behind every MX name: its certificate names mx2 only,
	# so mx1 fails verification; mx.elsewhere.test, preferred, is not in
	# the policy
	{
		echo "sts.test MX 5 mx.elsewhere.test"
		echo "sts.test MX 10 mx1.sts.test"
		echo "sts.test MX 20 mx2.sts.test"
		echo "mx.elsewhere.test A 127.0.0.1"
		echo "mx1.sts.test A 127.0.0.1"
		echo "mx2.sts.test A 127.0.0.1"
		echo "_mta-sts.sts.test TXT v=STSv1; id=1"
	} >"$T/zone"
	dnsd_start "$T/zone"
	server mx2 --stats "$T/s/stats"
	configure sts.test
	post sts.test
	runq
	grep -q 'to=<u1@sts.test>, relay=mx2.sts.test\[127.0.0.1\]:[0-9]*, .*status=sent (.*), tls=verified$' "$T/run.log"
	[ "$(delivered)" -eq 1 ]
	# two sessions: mx1's, ended after STARTTLS by the failed
	# verification, and mx2's, the one handshake the server finished
	grep -q '^sessions=2 ' "$T/s/stats"
	[ "$(cat "$T/s/tls")" = "2 TLSv1.3 resumed=0 sni=mx2.sts.test" ]
	[ "$(awk '$1 == 1 { print $3 }' "$T/s/trace" | tr '\n' ' ')" = "EHLO STARTTLS " ]
	# in clear text nothing but EHLO and STARTTLS, in either session
	[ "$(awk '$1 == 2 && ++n <= 2 { print $3 }' "$T/s/trace" | tr '\n' ' ')" = "EHLO STARTTLS " ]
	grep -q 'mx1.sts.test.*certificate verification failed: hostname mismatch' "$T/run.log"
	run -1 grep -q 'mx.elsewhere.test\[' "$T/run.log"
}

# tlsrpt_setup - the runner whose clock moves (at day 0 now), the rua's
# server "r" (sets RPORT), ex.org's DKIM key s1
tlsrpt_setup() {
	MJ_QUEUERUN=$BATS_FILE_TMPDIR/mj_queuerun
	export MJQ_TEST_CLOCK_OFFSET=0
	smtpd_start r
	RPORT=$PORT
	printf '[dkim]\nsign = yes\nselectors = s1\n' >>"$CONF"
	mkdir -p "$LISTS/ex.org"
	"$TOP/scripts/mjq-dkimkey" -C "$CONF" ex.org s1 >/dev/null
	[ -s "$LISTS/ex.org/.dkim/s1.key" ]
}

# tlsrpt_conf [INI...] - after configure: mail to rua.test goes to "r";
# [tlsrpt] on, from tlsrpt@ex.org
tlsrpt_conf() {
	{
		printf 'rua.test = smtp:[127.0.0.1]:%s\n' "$RPORT"
		printf '[tlsrpt]\nenable = yes\nfrom = tlsrpt@ex.org\n'
		for l in "$@"; do echo "$l"; done
	} >>"$CONF"
}

# day_run N - a runner pass on day N (0 today)
day_run() {
	MJQ_TEST_CLOCK_OFFSET=$(($1 * 86400)) runq
}

# reports - the messages the rua's server got
reports() {
	find "$T/r/save" -type f 2>/dev/null | sort
}

# two_mx_zone - sts.test's MX mx1 and mx2 behind one server, and the
# TLSRPT record asking for reports at reports@rua.test
two_mx_zone() {
	{
		echo "sts.test MX 10 mx1.sts.test"
		echo "sts.test MX 20 mx2.sts.test"
		echo "mx1.sts.test A 127.0.0.1"
		echo "mx2.sts.test A 127.0.0.1"
		echo "_mta-sts.sts.test TXT v=STSv1; id=1"
		echo "_smtp._tls.sts.test TXT v=TLSRPTv1; rua=https://r.test/x,mailto:reports@rua.test"
	} >"$T/zone"
	dnsd_start "$T/zone"
}

@test "TLS-RPT: a day's sessions under an enforce policy, one verified, one with a certificate for another name: the next day one report to the rua, its JSON, RFC 8460 fields and DKIM; never twice" {
	cert mx2 mx2.sts.test
	policy_file sts.test enforce 86400 mx1.sts.test mx2.sts.test
	web_start
	two_mx_zone
	tlsrpt_setup
	server mx2
	configure sts.test
	tlsrpt_conf 'organization = Example "Lists" é' 'contact = postmaster@ex.org'
	post sts.test
	day_run 0
	# mx1 failed verification, mx2 got the mail: two sessions recorded
	grep -q 'relay=mx2.sts.test\[127.0.0.1\]:[0-9]*, .*status=sent (.*), tls=verified$' "$T/run.log"
	day=$(date -u +%F)
	[ "$(wc -l <"$SPOOL/state/tlsrpt/$day")" -eq 2 ]
	[ -z "$(reports)" ]
	# the day is not over: no report yet, the records stay
	day_run 0
	[ -z "$(reports)" ]
	[ -s "$SPOOL/state/tlsrpt/$day" ]
	day_run 1
	[ "$(reports | wc -l)" -eq 1 ]
	f=$(reports)
	id="$day.sts.test@ex.org"
	grep -q "TLS-RPT report of $day for sts.test to <reports@rua.test>, Report-ID $id$" "$T/run.log"
	run "$TOP/t/tools/mj_tlsrptcheck.py" "$f"
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = "header TLS-Report-Domain: sts.test" ]
	[ "${lines[1]}" = "header TLS-Report-Submitter: ex.org" ]
	[ "${lines[2]}" = "header Subject: Report Domain: sts.test Submitter: ex.org Report-ID: <$id>" ]
	[ "${lines[3]}" = "header report-type: tlsrpt" ]
	[ "${lines[4]}" = "part text/plain" ]
	[ "${lines[5]}" = "part application/tlsrpt+json" ]
	[ "${lines[6]}" = "report Example \"Lists\" é | postmaster@ex.org | $id | ${day}T00:00:00Z | ${day}T23:59:59Z" ]
	# JSON in ASCII (RFC 8259 escapes), so the part needs no encoding
	grep -qF '{"organization-name":"Example \"Lists\" \u00e9",' "$f"
	[ "${lines[7]}" = "policy sts sts.test ok=1 failed=1 mx=mx1.sts.test,mx2.sts.test string=version: STSv1|mode: enforce|mx: mx1.sts.test|mx: mx2.sts.test|max_age: 86400" ]
	[ "${lines[8]}" = "failure certificate-host-mismatch mx=mx1.sts.test ip=127.0.0.1 from=127.0.0.1 count=1" ]
	[ "${#lines[@]}" -eq 9 ]
	grep -q '^Content-Type: multipart/report; report-type="tlsrpt";' "$f"
	tr -d "\r" <"$f" | grep -qx "Content-Disposition: attachment;"
	grep -Eq "filename=\"ex.org!sts.test![0-9]+![0-9]+.json\"" "$f"
	tr -d "\r" <"$f" | grep -qx "From: <tlsrpt@ex.org>"
	run "$TOP/t/tools/mj_dkimverify.py" -n 1 "$f" "$LISTS/ex.org/.dkim"
	[ "$status" -eq 0 ]
	[[ "$output" == "pass a=rsa-sha256 s=s1 d=ex.org"* ]]
	# the records are gone; the next sweeps, that day and the next, send
	# nothing again (the report's own delivery went to "[host]": no
	# policy domain, no record)
	[ -z "$(ls "$SPOOL/state/tlsrpt" | grep -v '^lock$')" ]
	day_run 1
	day_run 2
	[ "$(reports | wc -l)" -eq 1 ]
	[ -z "$(queue_files)" ]
}

@test "TLS-RPT: a policy domain without a _smtp._tls record gets no report; one listed in the day's .sent (a crash after its report was queued) gets none again" {
	policy_file sts.test enforce 86400 mx1.sts.test
	web_start
	zone sts.test 1
	tlsrpt_setup
	server mx
	configure sts.test
	tlsrpt_conf
	post sts.test
	day_run 0
	grep -q 'status=sent (.*), tls=verified$' "$T/run.log"
	day=$(date -u +%F)
	[ "$(cut -f1,2,4 "$SPOOL/state/tlsrpt/$day")" = "$(printf 'sts.test\tsts\tsuccess')" ]
	day_run 1
	grep -q '_smtp._tls.sts.test TXT' "$T/dns/log"
	[ -z "$(reports)" ]
	[ ! -e "$SPOOL/state/tlsrpt/$day" ]
	# now with a record, but the domain's report of the day noted as
	# queued already
	ZONE_EXTRA='_smtp._tls.sts.test TXT v=TLSRPTv1; rua=mailto:reports@rua.test'
	zone sts.test 1
	post sts.test
	day_run 0
	[ -s "$SPOOL/state/tlsrpt/$day" ]
	echo sts.test >"$SPOOL/state/tlsrpt/$day.sent"
	day_run 1
	[ -z "$(reports)" ]
	[ ! -e "$SPOOL/state/tlsrpt/$day" ]
	[ ! -e "$SPOOL/state/tlsrpt/$day.sent" ]
}

@test "TLS-RPT: off by default, no record is kept; STARTTLS stripped under enforce is reported as starttls-not-supported" {
	policy_file sts.test enforce 86400 mx1.sts.test
	web_start
	ZONE_EXTRA='_smtp._tls.sts.test TXT v=TLSRPTv1; rua=mailto:reports@rua.test'
	zone sts.test 1
	tlsrpt_setup
	server none
	configure sts.test
	printf 'rua.test = smtp:[127.0.0.1]:%s\n' "$RPORT" >>"$CONF"
	post sts.test
	day_run 0
	grep -q 'dsn=4.7.4, status=deferred' "$T/run.log"
	[ ! -e "$SPOOL/state/tlsrpt" ]
	printf '[tlsrpt]\nenable = yes\nfrom = tlsrpt@ex.org\n' >>"$CONF"
	make_due
	day_run 0
	day_run 1
	[ "$(reports | wc -l)" -eq 1 ]
	run "$TOP/t/tools/mj_tlsrptcheck.py" "$(reports)"
	[ "${lines[7]}" = "policy sts sts.test ok=0 failed=1 mx=mx1.sts.test string=version: STSv1|mode: enforce|mx: mx1.sts.test|max_age: 86400" ]
	[ "${lines[8]}" = "failure starttls-not-supported mx=mx1.sts.test ip=127.0.0.1 from=127.0.0.1 count=1" ]
}

@test "TLS-RPT: the rua of the TXT record: mailto: addresses only, exactly one v=TLSRPTv1 record" {
	run "$MJ_MTASTS" tlsrpt 'v=TLSRPTv1; rua=mailto:a@x.test,https://r.test/x, mailto:b@y.test?subject=x'
	[ "$status" -eq 0 ]
	[ "$output" = $'a@x.test\nb@y.test' ]
	run "$MJ_MTASTS" tlsrpt $'v=spf1 -all\nv=TLSRPTv1;rua=mailto:c@z.test;'
	[ "$output" = c@z.test ]
	run -0 "$MJ_MTASTS" tlsrpt 'v=TLSRPTv1; rua=https://r.test/'
	[ "$output" = "" ]
	run -65 "$MJ_MTASTS" tlsrpt $'v=TLSRPTv1;rua=mailto:a@x\nv=TLSRPTv1;rua=mailto:b@x'
	run -65 "$MJ_MTASTS" tlsrpt 'v=TLSRPTv10; rua=mailto:a@x'
	run -65 "$MJ_MTASTS" tlsrpt 'v=TLSRPTv1'
	run -65 "$MJ_MTASTS" tlsrpt 'rua=mailto:a@x; v=TLSRPTv1'
}

@test "TLS-RPT: a DANE session is recorded under its TLSA records; enable without a from address is refused, logged" {
	printf '[tlsrpt]\nenable = yes\nfrom = tlsrpt@ex.org\n' >>"$CONF"
	dane_run tlsa
	grep -q 'status=sent (.*), tls=verified$' "$T/run.log"
	day=$(date -u +%F)
	[ "$(cat "$SPOOL/state/tlsrpt/$day")" = "$(printf 'sts.test\ttlsa\t3 1 1 %s\tsuccess\tmx1.sts.test\t127.0.0.1\t127.0.0.1\t' "$(tlsa mx)")" ]
	printf '[tlsrpt]\nfrom = nobody\n' >>"$CONF"
	post sts.test
	runq
	grep -q 'TLS-RPT off: \[tlsrpt\] from: "nobody" is not an address to send reports from$' "$T/run.log"
	[ "$(wc -l <"$SPOOL/state/tlsrpt/$day")" -eq 1 ]
}

# rpt_day0 DOMAIN CERT [INI...] - DOMAIN's MX showing CERT, its _mta-sts
# and _smtp._tls records (reports to reports@rua.test), [tlsrpt] on; one
# post on day 0; DAY_RECORDS: the records of that day
rpt_day0() {
	local dom=$1 c=$2
	shift 2
	ZONE_EXTRA="_smtp._tls.$dom TXT v=TLSRPTv1; rua=mailto:reports@rua.test"
	zone "$dom" 1
	tlsrpt_setup
	server "$c"
	configure "$dom" "$@"
	tlsrpt_conf
	post "$dom"
	day_run 0
	DAY_RECORDS=$(cat "$SPOOL/state/tlsrpt/$(date -u +%F)")
}

# rpt_day1 - day 1: the one report, read by mj_tlsrptcheck.py (lines[7]
# on: its policies)
rpt_day1() {
	day_run 1
	[ "$(reports | wc -l)" -eq 1 ]
	run "$TOP/t/tools/mj_tlsrptcheck.py" "$(reports)"
	[ "$status" -eq 0 ]
}

# policy_fail_report DOMAIN [INI...] - after the policy server's set-up:
# rpt_day0 with the "other" certificate, delivered as without MTA-STS;
# the report has the session and the fetch's failure (lines[9])
policy_fail_report() {
	local dom=$1
	shift
	rpt_day0 "$dom" other "$@"
	grep -q "cannot fetch the MTA-STS policy of $dom: .*; delivering without MTA-STS\$" "$T/run.log"
	grep -q 'status=sent (.*), tls=trusted$' "$T/run.log"
	rpt_day1
	[ "${lines[7]}" = "policy no-policy-found $dom ok=1 failed=0 mx=mx1.sts.test string=" ]
	[ "${lines[8]}" = "policy sts $dom ok=0 failed=1 mx= string=" ]
	[ "${#lines[@]}" -eq 10 ]
}

@test "TLS-RPT: a malformed policy is reported as sts-policy-invalid, with the reason, no policy string, MX host or address" {
	mkdir -p "$T/www/mta-sts.sts.test/.well-known"
	printf 'version: STSv1\nmode: enforce\nmx: mx1.sts.test\n' \
		>"$T/www/mta-sts.sts.test/.well-known/mta-sts.txt"
	web_start
	policy_fail_report sts.test
	[ "${lines[9]}" = "failure sts-policy-invalid mx=- ip=- from=- count=1 reason=max_age missing" ]
	# the day's record: eight fields, the unknown ones empty
	[ "$(grep -c $'^sts.test\tsts\t\tsts-policy-invalid\t\t\t\tmax_age missing$' <<<"$DAY_RECORDS")" -eq 1 ]
	[ "$(wc -l <<<"$DAY_RECORDS")" -eq 2 ]
}

@test "TLS-RPT: a policy server whose certificate is for another name is reported as sts-webpki-invalid (mj_stsfetch exit 2)" {
	policy_file nocert.test enforce 86400 mx1.sts.test
	web_start
	run -2 "$TOP/stsfetch/mj_stsfetch" -A "$C/ca.crt" \
		-c "127.0.0.1:$WEB_PORT" nocert.test
	[[ "$output" == "https://mta-sts.nocert.test/.well-known/mta-sts.txt: "* ]]
	policy_fail_report nocert.test
	[[ "${lines[9]}" == "failure sts-webpki-invalid mx=- ip=- from=- count=1 reason=https://mta-sts.nocert.test/.well-known/mta-sts.txt: "* ]]
}

@test "TLS-RPT: a policy server that never answers is reported as sts-policy-fetch-error, reason \"policy fetch timed out\"" {
	hang_start
	policy_fail_report sts.test 'smtp_mta_sts_timeout = 1s'
	# one reason for every timeout (curl's text has the milliseconds),
	# so that a day's timeouts count in one failure-details entry
	[ "${lines[9]}" = "failure sts-policy-fetch-error mx=- ip=- from=- count=1 reason=policy fetch timed out" ]
}

@test "TLS-RPT: a policy served as text/html is sts-policy-invalid (mj_stsfetch exit 3), a 404 sts-policy-fetch-error (exit 1)" {
	policy_file ctype.test enforce 86400 mx1.sts.test
	web_start
	run -3 "$TOP/stsfetch/mj_stsfetch" -A "$C/ca.crt" \
		-c "127.0.0.1:$WEB_PORT" ctype.test
	[ "$output" = "media type text/html, not text/plain" ]
	run -1 "$TOP/stsfetch/mj_stsfetch" -A "$C/ca.crt" \
		-c "127.0.0.1:$WEB_PORT" sts.test
	[ "$output" = "HTTP status 404" ]
	policy_fail_report ctype.test
	[ "${lines[9]}" = "failure sts-policy-invalid mx=- ip=- from=- count=1 reason=media type text/html, not text/plain" ]
}

@test "TLS-RPT: an MX host an enforce policy does not list, never tried, is a validation-failure with its reason and no address" {
	policy_file sts.test enforce 86400 mx.elsewhere.test
	web_start
	rpt_day0 sts.test mx
	grep -q 'dsn=4.7.5, status=deferred' "$T/run.log"
	[ "$(delivered)" -eq 0 ]
	rpt_day1
	[ "${lines[7]}" = "policy sts sts.test ok=0 failed=1 mx=mx.elsewhere.test string=version: STSv1|mode: enforce|mx: mx.elsewhere.test|max_age: 86400" ]
	[ "${lines[8]}" = "failure validation-failure mx=mx1.sts.test ip=- from=- count=1 reason=mx-host-not-in-sts-policy" ]
	[ "${#lines[@]}" -eq 9 ]
}

@test "TLS-RPT: a testing policy's unlisted MX is a validation-failure of its session" {
	policy_file sts.test testing 86400 mx.elsewhere.test
	web_start
	zone sts.test 1
	printf '[tlsrpt]\nenable = yes\nfrom = tlsrpt@ex.org\n' >>"$CONF"
	server mx
	configure sts.test
	post sts.test
	runq
	grep -q 'would have failed: MX host not in the policy' "$T/run.log"
	grep -q 'status=sent (.*), tls=[a-z]*$' "$T/run.log"
	[ "$(cut -f2,4,5,6,8 "$SPOOL/state/tlsrpt/$(date -u +%F)")" = "$(printf 'sts\tvalidation-failure\tmx1.sts.test\t127.0.0.1\tmx-host-not-in-sts-policy')" ]
}

@test "TLS-RPT: DANE with TLSA records none of which is usable (PKIX-EE) is tlsa-invalid" {
	printf '[tlsrpt]\nenable = yes\nfrom = tlsrpt@ex.org\n' >>"$CONF"
	TLSA_USAGE=1 dane_run tlsa
	grep -q 'status=sent (.*), tls=' "$T/run.log"
	[ "$(cut -f2,3,4 "$SPOOL/state/tlsrpt/$(date -u +%F)")" = "$(printf 'tlsa\t1 1 1 %s\ttlsa-invalid' "$(tlsa mx)")" ]
}
