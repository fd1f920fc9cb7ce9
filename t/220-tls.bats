#!/usr/bin/env bats
# t/220-tls.bats - STARTTLS in the smtp transport, real TLS over loopback:
# each smtp_tls_security_level against each server certificate (good,
# expired, for another name, self-signed, none offered), the fallback to
# clear text at may, a stalled handshake, session resumption, DANE with
# TLSA records from mj_testdns, and the state in mj_queueserv status.
# The certificates are made by the openssl command, once per file.

load helpers
load smtp_helpers

bats_require_minimum_version 1.5.0

# cert NAME CN [ARGS...] - key and certificate NAME for CN signed by the
# private CA (ARGS go to openssl x509, e.g. -days -1 for an expired one)
cert() {
	local n=$1 cn=$2
	shift 2
	openssl req -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes \
		-subj "/CN=$cn" -keyout "$C/$n.key" -out "$C/$n.csr" 2>/dev/null
	printf 'subjectAltName=DNS:%s\n' "$cn" >"$C/$n.ext"
	[ $# -gt 0 ] || set -- -days 30
	openssl x509 -req -in "$C/$n.csr" -CA "$C/ca.crt" -CAkey "$C/ca.key" \
		-CAcreateserial -extfile "$C/$n.ext" -out "$C/$n.crt" "$@" \
		2>/dev/null
}

setup_file() {
	C=$BATS_FILE_TMPDIR/certs
	export C
	mkdir -p "$C"
	openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 \
		-nodes -subj "/CN=mjq test CA" -days 30 -keyout "$C/ca.key" \
		-out "$C/ca.crt" 2>/dev/null
	cert good mx.tls.test
	cert expired mx.tls.test -days -1
	cert wrongname other.example
	cert shared a.test
	openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 \
		-nodes -subj "/CN=mx.tls.test" -addext "subjectAltName=DNS:mx.tls.test" \
		-days 30 -keyout "$C/selfsigned.key" -out "$C/selfsigned.crt" 2>/dev/null
	for n in good expired wrongname selfsigned shared; do
		[ -s "$C/$n.crt" ] || return 1
	done
}

setup() {
	mjq_setup </dev/null
	T=$BATS_TEST_TMPDIR
	DNS_PORT=
}

teardown() {
	queueserv_stop
	servers_stop
	if [ -n "${PF:-}" ]; then
		. "$BATS_TEST_DIRNAME/postfix-instance.sh"
		pf_stop "$PF"
		rm -rf "$PF"
	fi
}

# zone [EXTRA...] - the DNS of tls.test: MX mx.tls.test at 127.0.0.1;
# extra zone lines (TLSA) and mj_testdns options after "--"
zone() {
	{
		echo "tls.test MX 10 mx.tls.test"
		echo "mx.tls.test A 127.0.0.1"
		for l in "$@"; do echo "$l"; done
	} >"$T/zone"
}

# server CERT [OPTION...] - mj_testsmtpd "s" with STARTTLS and CERT
# ("none": no STARTTLS at all); sets PORT
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

# configure LEVEL [INI...] - the runner delivers tls.test through DNS
# to the server at LEVEL, trusting the private CA; INI lines added
configure() {
	local level=$1
	shift
	[ -s "$T/zone" ] || zone
	[ -n "$DNS_PORT" ] || dnsd_start "$T/zone"
	{
		printf '[delivery]\ndns_server = 127.0.0.1:%s\n' "$DNS_PORT"
		printf 'smtp_tls_security_level = %s\n' "$level"
		printf 'smtp_tls_CAfile = %s/ca.crt\n' "$C"
		printf 'minimal_backoff_time = 1s\nmaximal_backoff_time = 2s\n'
		for l in "$@"; do echo "$l"; done
		printf '[transport_map]\ntls.test = smtp:tls.test:%s\n' "$PORT"
	} >>"$CONF"
}

# post [N] - a post to N (default 1) subscribers at tls.test
post() {
	local i
	mkdir -p "$LISTS/ex.org/l"
	for i in $(seq 1 "${1:-1}"); do echo "u$i@tls.test"; done \
		>"$LISTS/ex.org/l/subscribers"
	list_posting ex.org l
	printf 'From: p@example.net\nSubject: s\nMessage-Id: <1@x>\n\nhello\n' |
		"$MJ_ENQUEUE" -C "$CONF" -d ex.org -l l -r -f p@example.net
}

# delivered - the recipients the server accepted
delivered() {
	[ -f "$T/s/log" ] && wc -l <"$T/s/log" || echo 0
}

# outcome LEVEL CERT - one post at LEVEL to a server showing CERT; sets
# OUT to "sent DSN tls=WORD" or "deferred DSN" from the delivery line
# (not under bats' run: the servers would hold its output open)
outcome() {
	server "$2"
	configure "$1"
	post
	runq
	OUT=$(sed -nE 's/.*dsn=([0-9.]+), status=(sent|deferred) .*\), tls=([a-z]+)$/\2 \1 tls=\3/p
	         s/.*dsn=([0-9.]+), status=deferred \(.*\)$/deferred \1/p' "$T/run.log")
}

# again - a fresh spool, configuration and servers for the next case
again() {
	servers_stop
	rm -rf "$T/s" "$T/dns" "$T/run.log" "$SPOOL" "$CONF"
	mjq_setup </dev/null
	DNS_PORT=
}

@test "none: clear text even where STARTTLS is offered" {
	outcome none good
	[ "$OUT" = "sent 2.0.0 tls=none" ]
	run ! grep -q STARTTLS "$T/s/trace"
	[ ! -s "$T/s/tls" ]
}

@test "may: TLS with each certificate; Verified, Untrusted, Trusted as Postfix logs them" {
	for c in good expired wrongname selfsigned none; do
		again
		outcome may "$c"
		echo "$c: $OUT"
		case $c in
		good) [ "$OUT" = "sent 2.0.0 tls=verified" ]
			grep -q 'smtp: Verified TLS connection established to mx.tls.test\[127.0.0.1\]:[0-9]*: TLSv1.3 with cipher TLS_[A-Z0-9_]* ([0-9]*/[0-9]* bits)$' "$T/run.log" ;;
		expired | selfsigned) [ "$OUT" = "sent 2.0.0 tls=untrusted" ]
			grep -q 'smtp: Untrusted TLS connection established to mx.tls.test' "$T/run.log" ;;
		wrongname) [ "$OUT" = "sent 2.0.0 tls=trusted" ]
			grep -q 'smtp: Trusted TLS connection established to mx.tls.test' "$T/run.log" ;;
		none) [ "$OUT" = "sent 2.0.0 tls=none" ] ;;
		esac
		[ "$(delivered)" -eq 1 ]
	done
}

@test "encrypt: TLS with any certificate; no STARTTLS defers with 4.7.4" {
	for c in good expired wrongname selfsigned none; do
		again
		outcome encrypt "$c"
		echo "$c: $OUT"
		case $c in
		good) [ "$OUT" = "sent 2.0.0 tls=verified" ] ;;
		expired | selfsigned) [ "$OUT" = "sent 2.0.0 tls=untrusted" ] ;;
		wrongname) [ "$OUT" = "sent 2.0.0 tls=trusted" ] ;;
		none) [ "$OUT" = "deferred 4.7.4" ]
			grep -q 'status=deferred (TLS is required, but was not offered by host mx.tls.test\[127.0.0.1\]:[0-9]*)$' "$T/run.log"
			[ "$(delivered)" -eq 0 ] ;;
		esac
	done
}

@test "verify: only the good certificate for the MX name delivers; the others defer with 4.7.5 and say why" {
	for c in good expired wrongname selfsigned none; do
		again
		outcome verify "$c"
		echo "$c: $OUT"
		case $c in
		good) [ "$OUT" = "sent 2.0.0 tls=verified" ]
			[ "$(delivered)" -eq 1 ] ;;
		none) [ "$OUT" = "deferred 4.7.4" ] ;;
		*) [ "$OUT" = "deferred 4.7.5" ]
			[ "$(delivered)" -eq 0 ] ;;
		esac
	done
	# the reasons name the peer and OpenSSL's verdict, one line each
	again
	outcome verify expired
	grep -q 'status=deferred (TLS handshake with mx.tls.test\[127.0.0.1\]:[0-9]* failed: certificate verification failed: certificate has expired)' "$T/run.log"
}

@test "verify: the wrong name and the self-signed certificate are refused for the right reason" {
	outcome verify wrongname
	grep -q 'failed: certificate verification failed: hostname mismatch)' "$T/run.log"
	again
	outcome verify selfsigned
	grep -q 'failed: certificate verification failed: self-signed certificate)' "$T/run.log"
}

@test "secure: the nexthop's names (nexthop, dot-nexthop) match the MX's certificate; every other certificate is refused" {
	for c in good expired wrongname selfsigned none; do
		again
		outcome secure "$c"
		echo "$c: $OUT"
		case $c in
		good) [ "$OUT" = "sent 2.0.0 tls=verified" ]
			[ "$(delivered)" -eq 1 ] ;;
		none) [ "$OUT" = "deferred 4.7.4" ]
			[ "$(delivered)" -eq 0 ] ;;
		*) [ "$OUT" = "deferred 4.7.5" ]
			[ "$(delivered)" -eq 0 ] ;;
		esac
	done
}

@test "secure: a session verified for a.test is not resumed for b.test through the same MX host" {
	# One MX host serves both domains; its certificate names a.test only.
	# The runner that verified a.test holds a resumable session for that
	# host; b.test's mail to the same host and port must get a full
	# handshake (and fail it), not the cached verdict.
	server shared
	{
		echo "a.test MX 10 mx.shared.test"
		echo "b.test MX 10 mx.shared.test"
		echo "mx.shared.test A 127.0.0.1"
	} >"$T/zone"
	dnsd_start "$T/zone"
	{
		printf '[queueserv]\nmax_runners = 1\n'
		printf '[delivery]\ndns_server = 127.0.0.1:%s\n' "$DNS_PORT"
		printf 'smtp_tls_security_level = secure\n'
		printf 'smtp_tls_CAfile = %s/ca.crt\n' "$C"
		printf '[transport_map]\n'
		printf '%s = smtp:%s:%s\n' a.test a.test "$PORT" b.test b.test "$PORT"
	} >>"$CONF"
	mjq_list ex.org a u@a.test
	mjq_list ex.org b u@b.test
	queueserv_start
	printf 'From: p@example.net\nSubject: a\n\nto a\n' |
		"$MJ_ENQUEUE" -C "$CONF" -d ex.org -l a -r -f p@example.net
	wait_for 30 grep -q 'to=<u@a.test>.*status=sent (.*), tls=verified$' "$QS_LOG"
	runner=$(runner_pids)
	[ -n "$runner" ]
	printf 'From: p@example.net\nSubject: b\n\nto b\n' |
		"$MJ_ENQUEUE" -C "$CONF" -d ex.org -l b -r -f p@example.net
	wait_for 30 grep -Eq 'to=<u@b.test>.*status=(sent|deferred)' "$QS_LOG"
	# the one runner that delivered a.test's mail tried b.test's
	[ "$(runner_pids)" = "$runner" ]
	grep -q 'to=<u@b.test>.*dsn=4.7.5, status=deferred (TLS handshake with mx.shared.test\[127.0.0.1\]:[0-9]* failed: certificate verification failed: hostname mismatch)$' "$QS_LOG"
	[ "$(grep -c 'to=<u@b.test>.*status=sent' "$QS_LOG")" -eq 0 ]
	[ "$(delivered)" -eq 1 ]
	# the server finished one handshake, a.test's, a full one; b.test's
	# was a full one too, and the runner refused it before its end
	[ "$(cat "$T/s/tls")" = "1 TLSv1.3 resumed=0 sni=mx.shared.test" ]
}

@test "the server sees SNI: the MX host name" {
	outcome may good
	[ "$OUT" = "sent 2.0.0 tls=verified" ]
	grep -qx '1 TLSv1.3 resumed=0 sni=mx.tls.test' "$T/s/tls"
	# the EHLO is said again after the handshake
	[ "$(grep -c ' EHLO ' "$T/s/trace")" -eq 2 ]
}

@test "[tls_policy]: verify for one domain while the default stays may, with match= names" {
	server wrongname
	configure may
	printf '[tls_policy]\ntls.test = verify\n' >>"$CONF"
	post
	runq
	grep -q 'dsn=4.7.5, status=deferred (TLS handshake with .*hostname mismatch)$' "$T/run.log"
	[ "$(delivered)" -eq 0 ]
	# the name the certificate has, given in match=: it delivers
	sed -i 's/^tls.test = verify$/.test = verify match=other.example/' "$CONF"
	make_due
	runq
	[ "$(delivered)" -eq 1 ]
	grep -q 'status=sent (.*), tls=verified$' "$T/run.log"
	# a bad policy line names file, line and key
	printf 'x.test = sometimes\n' >>"$CONF"
	run -78 "$MJ_QUEUERUN" -C "$CONF" -1
	[[ "$output" == *"[tls_policy] x.test: want a level"* ]]
}

@test "may: a stalled handshake ends at smtp_starttls_timeout and the mail goes in clear text on a new connection" {
	server good --tls-stall
	configure may 'smtp_starttls_timeout = 1s'
	post
	SECONDS=0
	runq
	[ "$SECONDS" -lt 20 ]
	grep -q 'TLS handshake with mx.tls.test\[127.0.0.1\]:[0-9]* failed: timed out; retrying in clear text' "$T/run.log"
	grep -q 'status=sent (.*), tls=none$' "$T/run.log"
	[ "$(delivered)" -eq 1 ]
	# two connections: the stalled one and the clear one
	[ "$(cut -d' ' -f1 "$T/s/trace" | sort -u | wc -l)" -eq 2 ]
}

@test "encrypt: a stalled handshake defers with 4.7.5 within smtp_starttls_timeout" {
	server good --tls-stall
	configure encrypt 'smtp_starttls_timeout = 1s'
	post
	SECONDS=0
	runq
	[ "$SECONDS" -lt 20 ]
	grep -q 'dsn=4.7.5, status=deferred (TLS handshake with mx.tls.test\[127.0.0.1\]:[0-9]* failed: timed out)$' "$T/run.log"
	[ "$(delivered)" -eq 0 ]
}

@test "encrypt: a server that refuses STARTTLS defers; may goes on in clear text on the same session" {
	server good --reply 'starttls=454 4.7.0 TLS not available'
	configure encrypt
	post
	runq
	grep -q 'dsn=4.7.4, status=deferred (TLS is required, but host mx.tls.test\[127.0.0.1\]:[0-9]* refused to start TLS: 454 4.7.0 TLS not available)$' "$T/run.log"
	sed -i 's/^smtp_tls_security_level = encrypt$/smtp_tls_security_level = may/' "$CONF"
	make_due
	runq
	[ "$(delivered)" -eq 1 ]
	grep -q 'status=sent (.*), tls=none$' "$T/run.log"
	[ "$(cut -d' ' -f1 "$T/s/trace" | sort -u | wc -l)" -eq 2 ]
}

@test "may: a refused STARTTLS is logged in Postfix's words before the mail goes in clear text" {
	server good --reply 'starttls=454 4.7.0 TLS not available'
	configure may
	post
	runq
	[ "$(delivered)" -eq 1 ]
	grep -q 'smtp: host mx.tls.test\[127.0.0.1\]:[0-9]* refused to start TLS: 454 4.7.0 TLS not available; continuing in clear text$' "$T/run.log"
	grep -q 'status=sent (.*), tls=none$' "$T/run.log"
	# on the same session: one connection
	[ "$(cut -d' ' -f1 "$T/s/trace" | sort -u | wc -l)" -eq 1 ]
}

@test "may: data after the 220 to STARTTLS (injection) ends the session; the mail goes in clear text on a new connection" {
	server good --tls-inject '250 injected'
	configure may
	post
	runq
	[ "$(delivered)" -eq 1 ]
	grep -q 'mx.tls.test\[127.0.0.1\]:[0-9]* sent data after its STARTTLS reply; retrying in clear text$' "$T/run.log"
	grep -q 'status=sent (.*), tls=none$' "$T/run.log"
	# two connections: the one with the injection and the clear one,
	# which says no STARTTLS
	[ "$(cut -d' ' -f1 "$T/s/trace" | sort -u | wc -l)" -eq 2 ]
	[ "$(grep -c ' STARTTLS$' "$T/s/trace")" -eq 1 ]
	# no handshake followed the injection
	[ ! -s "$T/s/tls" ]
}

@test "encrypt and above: data after the 220 to STARTTLS defers with 4.7.5, never clear text" {
	for level in encrypt verify secure; do
		again
		server good --tls-inject '250 injected'
		configure "$level"
		post
		runq
		echo "$level"
		grep -q 'dsn=4.7.5, status=deferred (mx.tls.test\[127.0.0.1\]:[0-9]* sent data after its STARTTLS reply)$' "$T/run.log"
		[ "$(delivered)" -eq 0 ]
		run ! grep -q ' MAIL FROM' "$T/s/trace"
	done
}

@test "resumption: 40 sessions to one destination, one full handshake; the runner logs the counts" {
	server good
	# one session at a time, none cached: each batch a new connection,
	# each after the last one's ticket arrived (with more at once, those
	# that start together each make a full handshake)
	configure verify 'destination_recipient_limit = 5' \
		'smtp_connection_cache_time = 0' 'destination_concurrency_limit = 1'
	post 200
	runq
	[ "$(delivered)" -eq 200 ]
	sessions=$(wc -l <"$T/s/tls")
	full=$(grep -c 'resumed=0' "$T/s/tls")
	resumed=$(grep -c 'resumed=1' "$T/s/tls")
	echo "sessions=$sessions full=$full resumed=$resumed"
	[ "$sessions" -eq 40 ]
	[ "$full" -eq 1 ]
	[ "$((full + resumed))" -eq 40 ]
	grep -q "smtp: TLS handshakes: full=$full resumed=$resumed$" "$T/run.log"
	# a resumed session keeps the verdict of the full handshake
	[ "$(grep -c 'Verified TLS connection established to .* (resumed)$' "$T/run.log")" -eq "$resumed" ]
	[ "$(grep -c 'status=sent (.*), tls=verified$' "$T/run.log")" -eq 200 ]
}

@test "the connection cache keeps TLS sessions: one handshake carries many batches" {
	server good
	configure may 'destination_recipient_limit = 5' \
		'smtp_connection_cache_time = 10s' 'destination_concurrency_limit = 1'
	post 50
	runq
	[ "$(delivered)" -eq 50 ]
	[ "$(wc -l <"$T/s/tls")" -eq 1 ]
	[ "$(cut -d' ' -f1 "$T/s/log" | sort -u)" = 1 ]
}

# tlsa CERT - the DANE-EE(3) SPKI(1) SHA-256(1) data of CERT
tlsa() {
	openssl x509 -in "$C/$1.crt" -noout -pubkey |
		openssl pkey -pubin -outform DER | openssl dgst -sha256 -r |
		cut -d' ' -f1
}

# dane_run CERT TLSA-CERT [--ad] - DANE against a server showing CERT with
# a TLSA record for TLSA-CERT's key ("" for none)
dane_run() {
	server "$1"
	zone ${2:+"_$PORT._tcp.mx.tls.test TLSA 3 1 1 $(tlsa "$2")"}
	local d=$T/dns
	mkdir -p "$d"
	"$MJ_TESTDNS" -p 0 --port-file "$d/port" --log "$d/log" $3 "$T/zone" \
		2>"$d/stderr" 3>&- &
	echo $! >>"$T/server.pids"
	wait_for 5 test -s "$d/port"
	DNS_PORT=$(cat "$d/port")
	configure dane 'smtp_dns_support_level = dnssec'
	post
	runq
}

@test "dane: a matching TLSA record (DANE-EE) verifies even a self-signed certificate" {
	dane_run selfsigned selfsigned --ad
	grep -q '_[0-9]*._tcp.mx.tls.test TLSA' "$T/dns/log"
	grep -q 'smtp: Verified TLS connection established to mx.tls.test' "$T/run.log"
	grep -q 'status=sent (.*), tls=verified$' "$T/run.log"
}

@test "dane: a TLSA record that does not match defers with 4.7.5" {
	dane_run selfsigned good --ad
	grep -q 'dsn=4.7.5, status=deferred (TLS handshake with mx.tls.test\[127.0.0.1\]:[0-9]* failed: certificate verification failed: ' "$T/run.log"
	[ "$(delivered)" -eq 0 ]
}

@test "dane: no TLSA record, or an unauthenticated answer, means may" {
	dane_run selfsigned "" --ad
	grep -q 'status=sent (.*), tls=untrusted$' "$T/run.log"
	again
	# the records are there but the resolver did not validate them
	dane_run selfsigned good
	grep -q 'status=sent (.*), tls=untrusted$' "$T/run.log"
}

@test "mj_queueserv status shows per destination whether the last session was TLS and verified" {
	server good
	configure verify
	queueserv_start
	post
	wait_for 30 eval '[ "$(delivered)" -eq 1 ]'
	wait_for 10 eval '"$MJ_QUEUESERV" -C "$CONF" status | grep -q "^smtp:tls.test:$PORT .* verified "'
	run -0 "$MJ_QUEUESERV" -C "$CONF" status -j
	[[ "$output" == *'"nexthop":"tls.test:'$PORT'",'*'"tls":"verified"'* ]]
}

@test "a real Postfix smtpd with TLS: mjq verifies it, the mail arrives, Postfix logs the TLS session" {
	postfix_discard tls.test \
		"smtpd_tls_cert_file = $C/good.crt" \
		"smtpd_tls_key_file = $C/good.key" \
		"smtpd_tls_security_level = may" "smtpd_tls_loglevel = 1"
	configure verify
	post
	runq
	grep -q "smtp: Verified TLS connection established to mx.tls.test\[127.0.0.1\]:$PORT: TLSv1.3 with cipher" "$T/run.log"
	grep -q 'status=sent (250 .*), tls=verified$' "$T/run.log"
	wait_for 30 grep -q 'to=<u1@tls.test>, relay=none, .*status=sent' "$PF/maillog"
	# Postfix's side: the TLS session, and EHLO said twice around STARTTLS
	grep -q 'smtpd.*: Anonymous TLS connection established from [a-z]*\[127.0.0.1\]: TLSv1.3 with cipher' "$PF/maillog"
	grep -q 'smtpd.*: disconnect from .* ehlo=2 starttls=1 mail=1 rcpt=1 data=1 quit=1 commands=7$' "$PF/maillog"
}

@test "a CAfile that does not load: may delivers in clear text, verify defers with 4.7.5; both say why" {
	server good
	configure may "smtp_tls_CAfile = $T/no-such-ca.pem"
	# the later key wins: the CAfile above replaces the private CA
	post
	runq
	grep -q 'smtp: TLS disabled: cannot load CAfile .*/no-such-ca.pem' "$T/run.log"
	grep -q 'status=sent (.*), tls=none$' "$T/run.log"
	[ "$(delivered)" -eq 1 ]
	[ ! -s "$T/s/tls" ]
	sed -i 's/^smtp_tls_security_level = may$/smtp_tls_security_level = verify/' "$CONF"
	post
	runq
	grep -q 'dsn=4.7.5, status=deferred (TLS is required for mx.tls.test\[127.0.0.1\]:[0-9]*, but no TLS context could be made)$' "$T/run.log"
	[ "$(delivered)" -eq 1 ]
}
