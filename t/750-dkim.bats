#!/usr/bin/env bats
# DKIM signatures and DMARC mitigation end to end: mail delivered by
# mj_queuerun over real SMTP to mj_testsmtpd, every signature checked by
# python3-dkim (t/tools/mj_dkimverify.py), not by mjq; keys made by
# mjq-dkimkey; DMARC policies served by mj_testdns.

load helpers
load smtp_helpers

# Posting policy is t/760's: the list configs here say posting = open.

bats_require_minimum_version 1.5.0

VERIFY=$TOP/t/tools/mj_dkimverify.py
DKIMKEY=$TOP/scripts/mjq-dkimkey

setup() {
	cat >"$BATS_TEST_TMPDIR/zone" <<-'ZONE'
	_dmarc.strict.test	TXT	v=DMARC1; p=reject; rua=mailto:d@strict.test
	_dmarc.quarantine.test	TXT	v=DMARC1; p=quarantine
	_dmarc.relaxed.test	TXT	v=DMARC1; p=none
	_dmarc.broken.test	SERVFAIL
	ZONE
	dnsd_start "$BATS_TEST_TMPDIR/zone"
	smtpd_start s --rcpt 'gone@*=550 5.1.1 no such user'
	mjq_setup <<-EOF
	[dkim]
	sign = yes
	selectors = s1
	ed25519_selector = e1
	[delivery]
	dns_server = 127.0.0.1:$DNS_PORT
	minimal_backoff_time = 1s
	[transport_map]
	* = smtp:[127.0.0.1]:$PORT
	EOF
	KEYS=$LISTS/example.org/.dkim
	mjq_list example.org mylist a@users.test b@users.test
	printf '[list]\nposting = open\nowners = boss@owner.test\n' >"$LISTS/example.org/mylist/config"
	"$DKIMKEY" -C "$CONF" example.org s1 >"$BATS_TEST_TMPDIR/s1.out"
	"$DKIMKEY" -C "$CONF" -t ed25519 example.org e1 >/dev/null
}

teardown() {
	queueserv_stop
	servers_stop
}

# post FROM [FILE] - a post to mylist from FROM, the text from FILE or a
# small default
post() {
	if [ -n "${2:-}" ]; then
		cat "$2"
	else
		printf 'From: Alice Example <%s>\nTo: mylist@example.org\nSubject: hello\nDate: Wed, 25 Nov 2026 02:00:00 +0000\nMessage-ID: <%s@users.test>\n\nhello list\n' \
			"$1" "$RANDOM"
	fi | "$MJ_ENQUEUE" -C "$CONF" -d example.org -l mylist -r -f "$1"
}

# received - the messages the server saved, oldest first
received() {
	ls -tr "$BATS_TEST_TMPDIR"/s/save/new/* 2>/dev/null
}

# verify_all [COUNT] - every saved message passes mj_dkimverify.py with
# COUNT signatures (default 2: rsa-sha256 and ed25519-sha256)
verify_all() {
	local f n=0
	for f in $(received); do
		"$VERIFY" -n "${1:-2}" "$f" "$KEYS" || { echo "FAILED: $f" >&2; return 1; }
		n=$((n + 1))
	done
	[ "$n" -gt 0 ]
}

# crlf FILE - the text with every line end CRLF, as the SMTP client sends it
crlf() {
	perl -pe 's/\r\n|\r|\n/\r\n/g' "$1"
}

# header NAME FILE - the unfolded value of the first header field NAME
header() {
	tr -d '\r' <"$2" | awk -v n="$1" 'BEGIN { IGNORECASE = 1 }
		/^$/ { exit } /^[ \t]/ { if (on) v = v $0; next }
		{ if (on) exit; on = tolower(substr($0, 1, length(n) + 1)) == tolower(n ":") ; if (on) v = $0 }
		END { print v }'
}

@test "mjq-dkimkey makes a 0600 key and the TXT record of its public half" {
	[ "$(stat -c %a "$KEYS/s1.key")" = 600 ]
	[ "$(stat -c %a "$KEYS")" = 700 ]
	grep -q '^s1._domainkey.example.org. IN TXT ( "v=DKIM1; k=rsa; p=MIIB' "$BATS_TEST_TMPDIR/s1.out"
	# the record is the key's: openssl agrees
	p=$(sed 's/" "//g; s/.*p=\([^"]*\)".*/\1/' "$KEYS/s1.dns")
	[ "$p" = "$(openssl pkey -in "$KEYS/s1.key" -pubout -outform DER | base64 -w0)" ]
	[ "$(openssl pkey -in "$KEYS/s1.key" -text -noout | head -1)" = "Private-Key: (2048 bit, 2 primes)" ]
	# a second key of the same selector is refused
	run -1 "$DKIMKEY" -C "$CONF" example.org s1
	[[ "$output" == *"exists: a new key takes a new selector"* ]]
	run -64 "$DKIMKEY" -C "$CONF" example.org 'bad.sel'
}

@test "a post is signed rsa-sha256 and ed25519-sha256, relaxed/relaxed, From oversigned, and verifies" {
	post alice@users.test
	runq
	[ "$(received | wc -l)" -eq 1 ]
	f=$(received)
	run "$VERIFY" -n 2 "$f" "$KEYS"
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = "pass a=rsa-sha256 s=s1 d=example.org" ]
	[ "${lines[1]}" = "pass a=ed25519-sha256 s=e1 d=example.org" ]
	sig=$(header DKIM-Signature "$f" | tr -d ' \t')
	[[ "$sig" == *"c=relaxed/relaxed;"* ]]
	h=$(echo "$sig" | tr ';' '\n' | sed -n 's/^h=//p' | tr 'A-Z' 'a-z')
	for want in from to subject date message-id list-id list-post \
		list-unsubscribe list-subscribe list-help list-owner; do
		[[ ":$h:" == *":$want:"* ]] || { echo "h= lacks $want: $h"; false; }
	done
	# From is listed once more than it occurs: no From can be added
	[ "$(echo "$h" | tr ':' '\n' | grep -c '^from$')" -eq 2 ]
	# signed once per text: both recipients got it in one transaction
	[ "$(grep -c 'to=<' "$BATS_TEST_TMPDIR/s/log")" -eq 2 ]
	# a changed byte fails the verifier (the check can fail)
	sed 's/hello list/hello lisp/' "$f" >"$BATS_TEST_TMPDIR/tampered"
	run -1 "$VERIFY" "$BATS_TEST_TMPDIR/tampered" "$KEYS"
	[[ "$output" == *"fail a=rsa-sha256"*"body hash mismatch"* ]]
}

@test "CRLF and LF bodies, long folded header lines, 8-bit and base64 bodies all verify" {
	long=$(for i in $(seq 1 40); do printf 'someone%02d@users.test, ' "$i"; done)
	printf 'From: <crlf@users.test>\r\nTo: mylist@example.org\r\nSubject: crlf\r\n\r\nline one\r\nline two\r\n\r\n\r\n' >"$BATS_TEST_TMPDIR/m1"
	printf 'From: <lf@users.test>\nTo: mylist@example.org\nCc: %s\n  last@users.test\nSubject: a subject that goes on and on %s\n\tand is folded\n\nline  with   spaces  \t\n\n\n' \
		"$long" "$long" >"$BATS_TEST_TMPDIR/m2"
	printf 'From: <eight@users.test>\nTo: mylist@example.org\nSubject: =?utf-8?q?caf=C3=A9?=\nMIME-Version: 1.0\nContent-Type: text/plain; charset=utf-8\nContent-Transfer-Encoding: 8bit\n\nCaf\xc3\xa9, na\xc3\xafve, \xe2\x82\xac 100\n' >"$BATS_TEST_TMPDIR/m3"
	{
		printf 'From: <b64@users.test>\nTo: mylist@example.org\nSubject: base64\nMIME-Version: 1.0\nContent-Type: application/octet-stream\nContent-Transfer-Encoding: base64\n\n'
		head -c 3000 /dev/urandom | base64
	} >"$BATS_TEST_TMPDIR/m4"
	printf 'From: <nobody@users.test>\nSubject: no final newline\n\nno newline at the end' >"$BATS_TEST_TMPDIR/m5"
	for i in 1 2 3 4 5; do
		post x@users.test "$BATS_TEST_TMPDIR/m$i"
	done
	runq
	[ "$(received | wc -l)" -eq 5 ]
	verify_all 2
	# the long lines went out as they came (folded, not cut)
	f=$(grep -l '^Cc: someone01' $(received))
	tr -d '\r' <"$f" | grep -qx "Cc: $long"
	tr -d '\r' <"$f" | grep -qx '  last@users.test'
}

@test "a reply and a bounce (DSN) are signed with the list domain's key and verify" {
	# a help request: the reply goes back to the requester
	printf 'From: <asker@users.test>\nSubject: commands\n\nhelp\n' |
		"$MJ_ENQUEUE" -C "$CONF" -d example.org -l mylist -q -f asker@users.test
	runq
	runq
	grep -q 'to=<asker@users.test>' "$BATS_TEST_TMPDIR/s/log"
	# a post to a subscriber the server refuses: a DSN to the owner
	echo gone@users.test >>"$LISTS/example.org/mylist/subscribers"
	# the runner makes the post's DSN rather than judging it itself
	printf 'bounce_judge = no\n' >>"$LISTS/example.org/mylist/config"
	post alice@users.test
	runq
	runq
	grep -q 'from=<> to=<mylist-owner@example.org>' "$BATS_TEST_TMPDIR/s/log"
	dsn=$(grep -l 'multipart/report' $(received))
	reply=$(grep -l 'asker@users.test' $(received) | head -1)
	[ -n "$dsn" ] && [ -n "$reply" ]
	"$VERIFY" -n 2 "$dsn" "$KEYS"
	"$VERIFY" -n 2 "$reply" "$KEYS"
	verify_all 2
}

@test "a key rotated between two posts: each post verifies with its own selector, two selectors at once sign twice" {
	post alice@users.test
	runq
	"$DKIMKEY" -C "$CONF" example.org s2 >/dev/null
	# the rotation: both selectors for a while, then only the new one
	printf '[dkim]\nselectors = s1 s2\ned25519_selector =\n' >"$KEYS/config"
	post alice@users.test
	runq
	printf '[dkim]\nselectors = s2\ned25519_selector =\n' >"$KEYS/config"
	mv "$KEYS/s1.dns" "$BATS_TEST_TMPDIR/s1.dns.retired"
	post alice@users.test
	runq
	set -- $(received)
	[ $# -eq 3 ]
	run "$VERIFY" -n 2 "$2" "$KEYS" "$BATS_TEST_TMPDIR"
	[ "$status" -eq 1 ] # s1's record is retired from $KEYS...
	cp "$BATS_TEST_TMPDIR/s1.dns.retired" "$BATS_TEST_TMPDIR/s1.dns"
	"$VERIFY" -n 2 "$1" "$KEYS" "$BATS_TEST_TMPDIR" # ...and served from here
	run "$VERIFY" -n 2 "$2" "$KEYS" "$BATS_TEST_TMPDIR"
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = "pass a=rsa-sha256 s=s1 d=example.org" ]
	[ "${lines[1]}" = "pass a=rsa-sha256 s=s2 d=example.org" ]
	rm "$BATS_TEST_TMPDIR/s1.dns"
	run "$VERIFY" -n 1 "$3" "$KEYS"
	[ "$status" -eq 0 ]
	[ "$output" = "pass a=rsa-sha256 s=s2 d=example.org" ]
}

@test "a missing or unsafe key defers the mail with a clear log line; sign = no sends it unsigned" {
	mv "$KEYS/e1.key" "$BATS_TEST_TMPDIR/e1.key"
	post alice@users.test
	runq
	[ -z "$(received)" ]
	grep -q "not signed: cannot read DKIM key $KEYS/e1.key: No such file or directory: deferred" "$BATS_TEST_TMPDIR/run.log"
	[ -n "$(queue_files)" ]
	# mj_queuerun -l shows why
	"$MJ_QUEUERUN" -C "$CONF" -l | grep -q 'error=not signed: cannot read DKIM key'
	# a key others can read is refused too
	mv "$BATS_TEST_TMPDIR/e1.key" "$KEYS/e1.key"
	chmod 0644 "$KEYS/e1.key"
	make_due
	runq
	[ -z "$(received)" ]
	grep -q "DKIM key $KEYS/e1.key must be a regular file of mode 0600" "$BATS_TEST_TMPDIR/run.log"
	# the domain says no: out it goes, unsigned
	printf '[dkim]\nsign = no\n' >"$KEYS/config"
	make_due
	runq
	[ "$(received | wc -l)" -eq 1 ]
	run -1 "$VERIFY" "$(received)" "$KEYS"
	[ -z "$(queue_files)" ]
}

@test "one-click lists: each copy is signed over its own List-Unsubscribe and List-Unsubscribe-Post" {
	SECRET=$BATS_TEST_TMPDIR/unsubscribe.secret
	printf '[unsubscribe]\nsecret_file = %s\n' "$SECRET" >>"$CONF"
	"$TOP/scripts/mjq-unsubsecret" "$SECRET"
	printf '[list]\nposting = open\nunsubscribe_url = https://lists.example.org/u\ndmarc_mitigation = none\n' \
		>"$LISTS/example.org/mylist/config"
	post alice@users.test
	runq
	# one transaction per recipient, each copy its own link, each signed
	[ "$(received | wc -l)" -eq 2 ]
	for f in $(received); do
		run "$VERIFY" -n 2 "$f" "$KEYS"
		[ "$status" -eq 0 ]
		sig=$(header DKIM-Signature "$f" | tr -d ' \t')
		h=$(echo "$sig" | tr ';' '\n' | sed -n 's/^h=//p' | tr 'A-Z' 'a-z')
		[[ ":$h:" == *":list-unsubscribe:list-unsubscribe-post:"* ]]
		tr -d '\r' <"$f" | grep -q '^List-Unsubscribe: <https://lists.example.org/u?l=mylist%40example.org&a='
	done
	[ "$(header List-Unsubscribe "$(received | head -1)")" != "$(header List-Unsubscribe "$(received | tail -1)")" ]
	# another link in a copy breaks its signature
	f=$(received | head -1)
	sed 's/&s=[0-9a-f]*/\&s=00/' "$f" >"$BATS_TEST_TMPDIR/forged"
	run -1 cmp -s "$f" "$BATS_TEST_TMPDIR/forged"
	run -1 "$VERIFY" "$BATS_TEST_TMPDIR/forged" "$KEYS"
}

@test "mj_queueserv status names a domain whose key is missing, until it is back" {
	printf '[queueserv]\nrunner_program = %s\nqueue_run_delay = 1h\n' "$MJ_QUEUERUN" >>"$CONF"
	mv "$KEYS/e1.key" "$BATS_TEST_TMPDIR/e1.key"
	post alice@users.test
	queueserv_start
	run -0 "$MJ_QUEUESERV" -C "$CONF" status
	[[ "$output" == *"dkim: example.org: cannot read DKIM key $KEYS/e1.key: No such file or directory (its mail waits)"* ]]
	run -0 "$MJ_QUEUESERV" -C "$CONF" status json
	echo "$output" | /usr/bin/python3 -c '
import json, sys
e = json.load(sys.stdin)["dkim_errors"]
assert len(e) == 1 and e[0]["domain"] == "example.org", e
assert e[0]["error"].startswith("cannot read DKIM key "), e'
	mv "$BATS_TEST_TMPDIR/e1.key" "$KEYS/e1.key"
	run -0 "$MJ_QUEUESERV" -C "$CONF" status
	[[ "$output" != *"dkim:"* ]]
	run -0 "$MJ_QUEUESERV" -C "$CONF" status json
	[[ "$output" == *'"dkim_errors":[],"incidents":[],"lists":['* ]]
}

@test "DMARC: a post from a p=reject domain is munged, p=none is not, a DNS failure munges, once logged" {
	post alice@strict.test
	runq
	f=$(received)
	[ "$(header From "$f")" = 'From: "Alice Example via mylist" <mylist@example.org>' ]
	[ "$(header Reply-To "$f")" = 'Reply-To: <alice@strict.test>' ]
	"$VERIFY" -n 2 "$f" "$KEYS"
	rm "$f"
	# a subdomain without a record of its own: the organizational domain's
	post bob@mail.quarantine.test
	runq
	[ "$(header From "$(received)")" = 'From: "Alice Example via mylist" <mylist@example.org>' ]
	rm "$(received)"
	post carol@relaxed.test
	runq
	[ "$(header From "$(received)")" = 'From: Alice Example <carol@relaxed.test>' ]
	[ -z "$(header Reply-To "$(received)")" ]
	rm "$(received)"
	post dan@broken.test
	post erin@broken.test
	runq
	[ "$(received | wc -l)" -eq 2 ]
	for f in $(received); do
		[[ "$(header From "$f")" == *'via mylist" <mylist@example.org>' ]]
		"$VERIFY" -n 2 "$f" "$KEYS"
	done
	[ "$(grep -c 'DMARC policy of broken.test: look-up of _dmarc.broken.test failed' "$BATS_TEST_TMPDIR/run.log")" -eq 1 ]
	# the look-ups went to mj_testdns, and were cached
	[ "$(grep -c '^_dmarc.strict.test TXT' "$BATS_TEST_TMPDIR/dns/log")" -eq 1 ]
	grep -q '^_dmarc.quarantine.test TXT' "$BATS_TEST_TMPDIR/dns/log"
}

@test "DMARC: munge with reply_to = list puts the poster in Cc; wrap sends the post as message/rfc822" {
	printf '[list]\nposting = open\nowners = boss@owner.test\ndmarc_mitigation = munge\nreply_to = list\n' >"$LISTS/example.org/mylist/config"
	post carol@relaxed.test
	runq
	f=$(received)
	[ "$(header From "$f")" = 'From: "Alice Example via mylist" <mylist@example.org>' ]
	[ "$(header Reply-To "$f")" = 'Reply-To: <mylist@example.org>' ]
	[ "$(header Cc "$f")" = 'Cc: <carol@relaxed.test>' ]
	"$VERIFY" -n 2 "$f" "$KEYS"
	rm "$f"
	printf '[list]\nposting = open\nowners = boss@owner.test\ndmarc_mitigation = wrap\n' >"$LISTS/example.org/mylist/config"
	post carol@relaxed.test
	runq
	f=$(received)
	[ "$(header From "$f")" = 'From: "Alice Example via mylist" <mylist@example.org>' ]
	[[ "$(header Content-Type "$f")" == 'Content-Type: multipart/mixed; boundary="mjq-wrap-'* ]]
	tr -d '\r' <"$f" | grep -qx 'Content-Type: message/rfc822'
	tr -d '\r' <"$f" | grep -qx 'From: Alice Example <carol@relaxed.test>'
	"$VERIFY" -n 2 "$f" "$KEYS"
	# a bad value is an error naming the key
	printf '[list]\ndmarc_mitigation = sometimes\n' >"$LISTS/example.org/mylist/config"
	post carol@relaxed.test
	runq
	grep -q 'dmarc_mitigation.*want none, munge_if_strict, munge or wrap' "$BATS_TEST_TMPDIR/run.log"
}

@test "every spool file and memfd the runner maps is unmapped with the length it was mapped with (signed, wrapped, 100 KB line)" {
	# The signatures lengthen the text after it is mapped: an munmap of
	# the new length takes the next pages (once the DKIM key cache's),
	# which no sanitizer sees.  strace shows each call's length.
	command -v strace >/dev/null || skip "no strace"
	printf '[list]\nposting = open\nowners = boss@owner.test\ndmarc_mitigation = wrap\n' >"$LISTS/example.org/mylist/config"
	t=$BATS_TEST_TMPDIR
	{
		printf 'From: Carol <carol@strict.test>\nTo: mylist@example.org\nSubject: long\nMessage-ID: <long@strict.test>\n\n'
		head -c 100000 /dev/zero | tr '\0' x
		printf '\n'
		seq 1 800 | sed 's/^/line /'
	} >"$t/long"
	post carol@strict.test "$t/long"
	post alice@users.test
	ASAN_OPTIONS=detect_leaks=0 strace -f -qq -y -o "$t/trace" \
		-e trace=mmap,munmap "$MJ_QUEUERUN" -C "$CONF" -1 2>>"$t/run.log"
	run awk -v prefix="$SPOOL" -f "$TOP/t/data/map-lengths.awk" "$t/trace"
	echo "$output"
	[ "$status" -eq 0 ]
	# both texts were signed into a memfd, and each mapping was checked
	[[ "$output" =~ ^maps=[0-9]+\ memfd=([0-9]+)\ unmaps=[0-9]+\ bad=0$ ]]
	[ "${BASH_REMATCH[1]}" -ge 2 ]
	[ "$(received | wc -l)" -eq 2 ]
	verify_all
}

@test "canonicalization edge cases, signed by mj_dkimsign and checked as SMTP would carry them" {
	printf '[dkim]\nselectors = s1\ned25519_selector = e1\n' >"$KEYS/config"
	d=$BATS_TEST_TMPDIR
	# repeated fields (a verifier takes them bottom up), blanks after the
	# colon and in values, a bare CR, trailing blanks and empty lines
	printf 'To: first@users.test\nFrom:   Alice   <a@users.test>  \nSubject:spaced\t out \nTo: second@users.test\nCc:\n  folded@users.test,\n\tother@users.test\n\nline  one \t \nbare\rcr\n\n \n\t\n' >"$d/e1"
	printf 'From: a@users.test\nSubject: empty body\n\n' >"$d/e2"
	printf 'From: a@users.test\nSubject: no body at all' >"$d/e3"
	printf 'From: a@users.test\nFrom: b@users.test\nSubject: two froms\n\nx\n' >"$d/e4"
	for i in 1 2 3 4; do
		"$TOP/t/tools/mj_dkimsign" -C "$CONF" example.org "$d/e$i" >"$d/s$i"
		crlf "$d/s$i" >"$d/c$i"
		"$VERIFY" -n 2 "$d/c$i" "$KEYS"
	done
	# both To fields are signed, and From once more than present
	h=$(tr -d '\n\t ' <"$d/s1" | sed 's/.*;h=\([^;]*\);.*/\1/' | head -1)
	[ "$h" = "To:From:Subject:To:Cc:from" ]
	h=$(tr -d '\n\t ' <"$d/s4" | sed 's/.*;h=\([^;]*\);.*/\1/' | head -1)
	[ "$h" = "From:From:Subject:from" ]
	# a field added after signing breaks it: a third From
	{ printf 'From: evil@users.test\r\n'; cat "$d/c4"; } >"$d/added"
	run -1 "$VERIFY" "$d/added" "$KEYS"
}

@test "one-click copies made by mj_copysign over odd texts verify, and their links carry openssl's HMAC" {
	SECRET=$BATS_TEST_TMPDIR/unsubscribe.secret
	printf '[unsubscribe]\nsecret_file = %s\n' "$SECRET" >>"$CONF"
	"$TOP/scripts/mjq-unsubsecret" "$SECRET"
	d=$BATS_TEST_TMPDIR
	# a text with a List-Unsubscribe of its own, and a first line that
	# folds into the copy's last field; a plain one
	printf ' folded: into the copy\nList-Unsubscribe: <mailto:old@example.org>\nFrom: a@users.test\nSubject: own fields\n\nbody\n' >"$d/t1"
	printf 'From: a@users.test\nTo: mylist@example.org\nSubject: plain\n\nbody\n' >"$d/t2"
	for i in 1 2; do
		"$TOP/t/tools/mj_copysign" -C "$CONF" -u https://lists.example.org/u \
			example.org mylist "$d/t$i" 'ann+x@users.test' >"$d/s$i"
		crlf "$d/s$i" >"$d/c$i"
		"$VERIFY" -n 2 "$d/c$i" "$KEYS"
	done
	# the copy's fields first, then the text's, each instance signed
	h=$(tr -d '\n\t ' <"$d/s1" | sed 's/.*;h=\([^;]*\);.*/\1/' | head -1)
	[ "$h" = "List-Unsubscribe:List-Unsubscribe-Post:List-Unsubscribe:From:Subject:from" ]
	# the token is the HMAC the openssl command makes of the same text
	t=$(grep -o '&t=[0-9]*' "$d/s2" | cut -d= -f2)
	s=$(grep -o '&s=[0-9a-f]*' "$d/s2" | cut -d= -f2)
	want=$(printf 'mjq-unsub-1\nmylist\nexample.org\nann+x@users.test\n%s\n' "$t" |
		openssl dgst -sha256 -mac HMAC -macopt "hexkey:$(head -1 "$SECRET")" -r | cut -c1-32)
	[ "$s" = "$want" ]
	# another link breaks the copy's signatures
	sed 's/&s=[0-9a-f]*/\&s=00/' "$d/c2" >"$d/forged"
	run -1 "$VERIFY" "$d/forged" "$KEYS"
}

@test "a key file replaced under a running runner: the delivery threads sign the next post's copies with the new key" {
	SECRET=$BATS_TEST_TMPDIR/unsubscribe.secret
	printf '[unsubscribe]\nsecret_file = %s\n' "$SECRET" >>"$CONF"
	"$TOP/scripts/mjq-unsubsecret" "$SECRET"
	# one recipient a batch: the copies are signed by several threads
	printf '[delivery]\ndestination_recipient_limit = 1\n' >>"$CONF"
	printf '[queueserv]\nrunner_program = %s\nmin_runners = 1\nmax_runners = 1\nqueue_run_delay = 1h\nrunner_idle_timeout = 1h\n' \
		"$MJ_QUEUERUN" >>"$CONF"
	printf '[list]\nposting = open\nunsubscribe_url = https://lists.example.org/u\ndmarc_mitigation = none\n' \
		>"$LISTS/example.org/mylist/config"
	for i in 1 2 3 4 5 6; do echo "u$i@users.test"; done >>"$LISTS/example.org/mylist/subscribers"
	queueserv_start
	post alice@users.test
	wait_for 20 eval '[ "$(received | wc -l)" -eq 8 ]'
	pid=$(runner_pids)
	# a new key for s1: made under another selector, moved over s1's
	"$DKIMKEY" -C "$CONF" example.org next >/dev/null
	mv "$KEYS/next.key" "$KEYS/s1.key"
	sed 's/^next\._domainkey/s1._domainkey/' "$KEYS/next.dns" >"$KEYS/s1.dns"
	rm "$KEYS/next.dns"
	post alice@users.test
	wait_for 20 eval '[ "$(received | wc -l)" -eq 16 ]'
	[ "$(runner_pids)" = "$pid" ] # the same runner signed both posts
	received >"$BATS_TEST_TMPDIR/all"
	# the second post's copies verify with the new record, the first's
	# no longer do
	for f in $(tail -8 "$BATS_TEST_TMPDIR/all"); do
		run -0 "$VERIFY" -n 2 "$f" "$KEYS"
	done
	for f in $(head -8 "$BATS_TEST_TMPDIR/all"); do
		run -1 "$VERIFY" -n 2 "$f" "$KEYS"
	done
}

@test "archive links: List-Archive and Archived-At (the Message-ID's archive name: a plain id as it is, percent-encoded; another hashed) on a post, signed, also per copy; a poster's own go" {
	printf '[list]\nposting = open\ndmarc_mitigation = none\narchive_url = https://arch.example.org/$LIST/\narchived_at_url = https://arch.example.org/$DOMAIN/$LIST/m/$MSGID\n' \
		>"$LISTS/example.org/mylist/config"
	printf 'From: <alice@users.test>\nSubject: hi\nMessage-ID: <a/b+c@users.test>\nArchived-At: <https://evil.test/x>\nList-Archive: <https://evil.test/>\n\nhello\n' |
		"$MJ_ENQUEUE" -C "$CONF" -d example.org -l mylist -r -f alice@users.test
	runq
	f=$(received)
	[ "$(header List-Archive "$f")" = "List-Archive: <https://arch.example.org/mylist/>" ]
	# a/b+c@users.test holds a '/': not a file name, so "_" and its
	# FNV-1a 64 (lists/archive_url.c, the name mj_archive writes)
	[ "$(header Archived-At "$f")" = "Archived-At: <https://arch.example.org/example.org/mylist/m/_04bd9757bd7d6313>" ]
	run -1 grep -q evil.test "$f"
	verify_all
	h=$(header DKIM-Signature "$f" | tr -d ' \t' | tr ';' '\n' | sed -n 's/^h=//p' | tr 'A-Z' 'a-z')
	[[ ":$h:" == *":list-archive:"* && ":$h:" == *":archived-at:"* ]]
	# another Archived-At breaks the signature
	sed 's|/m/_04bd|/m/_14bd|' "$f" >"$BATS_TEST_TMPDIR/forged"
	run -1 "$VERIFY" "$BATS_TEST_TMPDIR/forged" "$KEYS"
	# one-click copies: signed each with the archive links
	SECRET=$BATS_TEST_TMPDIR/unsubscribe.secret
	printf '[unsubscribe]\nsecret_file = %s\n' "$SECRET" >>"$CONF"
	"$TOP/scripts/mjq-unsubsecret" "$SECRET"
	printf 'unsubscribe_url = https://lists.example.org/u\n' >>"$LISTS/example.org/mylist/config"
	rm -f "$BATS_TEST_TMPDIR"/s/save/new/*
	post alice@users.test
	runq
	[ "$(received | wc -l)" -eq 2 ]
	for f in $(received); do
		[ "$(header List-Archive "$f")" = "List-Archive: <https://arch.example.org/mylist/>" ]
		header Archived-At "$f" | grep -q '^Archived-At: <https://arch.example.org/example.org/mylist/m/[0-9]*@users.test>$'
	done
	verify_all
}
