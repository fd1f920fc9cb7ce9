#!/usr/bin/env bats
# ARC (RFC 8617) end to end: posts delivered by mj_queuerun over real
# SMTP to mj_testsmtpd, each chain checked by python3-dkim's arc_verify
# (t/tools/mj_arcverify.py), not by mjq; keys made by mjq-dkimkey and
# served by mj_testdns, where mjq looks up the keys of the sets a post
# arrived with.

load helpers
load smtp_helpers

bats_require_minimum_version 1.5.0

ARCVERIFY=$TOP/t/tools/mj_arcverify.py
DKIMVERIFY=$TOP/t/tools/mj_dkimverify.py
DKIMKEY=$TOP/scripts/mjq-dkimkey

# zone_key KEYDIR SELECTOR - the key's .dns record as a zone line
zone_key() {
	tr -d '\n' <"$1/$2.dns" | sed 's/^\([^ ]*\)\. .*( *"/\1\tTXT\t/; s/" *"//g; s/" *).*//'
	echo
}

setup() {
	mjq_setup <<-'EOF'
	[dkim]
	sign = yes
	selectors = s1
	[arc]
	trusted_authserv_ids = mx.example.org
	EOF
	KEYS=$LISTS/example.org/.dkim
	OKEYS=$LISTS/other.org/.dkim
	AKEYS=$LISTS/authors.test/.dkim
	mjq_list example.org mylist a@users.test b@users.test
	mjq_list other.org first c@users.test
	mjq_list authors.test nolist
	printf '[list]\nposting = open\n' >"$LISTS/example.org/mylist/config"
	printf '[list]\nposting = open\nsubject_prefix = [first]\n' >"$LISTS/other.org/first/config"
	"$DKIMKEY" -C "$CONF" example.org s1 >/dev/null
	"$DKIMKEY" -C "$CONF" other.org s1 >/dev/null
	"$DKIMKEY" -C "$CONF" authors.test a1 >/dev/null
	{
		zone_key "$KEYS" s1
		zone_key "$OKEYS" s1
		zone_key "$AKEYS" a1
	} >"$BATS_TEST_TMPDIR/zone"
	dnsd_start "$BATS_TEST_TMPDIR/zone"
	smtpd_start s
	cat >>"$CONF" <<-EOF
	[delivery]
	dns_server = 127.0.0.1:$DNS_PORT
	minimal_backoff_time = 1s
	[transport_map]
	* = smtp:[127.0.0.1]:$PORT
	EOF
}

teardown() {
	queueserv_stop
	servers_stop
}

# post DOMAIN LIST [FILE] - a post from alice, the text from FILE or a
# small default with the receiving MTA's Received and results on top
post() {
	if [ -n "${3:-}" ]; then
		cat "$3"
	else
		printf 'Authentication-Results: mx.example.org; dkim=pass header.d=users.test;\n\tspf=pass smtp.mailfrom=users.test\nReceived: from out.users.test by mx.example.org (Postfix) with ESMTP\n\tfor <%s@%s>; Wed, 25 Nov 2026 02:00:01 +0000\nFrom: Alice Example <alice@users.test>\nTo: %s@%s\nSubject: hello\nDate: Wed, 25 Nov 2026 02:00:00 +0000\nMessage-ID: <%s@users.test>\n\nhello list\n' \
			"$2" "$1" "$2" "$1" "$RANDOM"
	fi | "$MJ_ENQUEUE" -C "$CONF" -d "$1" -l "$2" -r -f alice@users.test
}

# oneclick_post - mylist with one-click links (and whatever footer the
# test wrote) gets a post; its two copies each pass ARC and DKIM
oneclick_post() {
	local f
	SECRET=$BATS_TEST_TMPDIR/unsubscribe.secret
	printf '[unsubscribe]\nsecret_file = %s\n' "$SECRET" >>"$CONF"
	"$TOP/scripts/mjq-unsubsecret" "$SECRET"
	printf '[list]\nposting = open\nunsubscribe_url = https://lists.example.org/u\n' \
		>"$LISTS/example.org/mylist/config"
	post example.org mylist
	runq
	[ "$(received | wc -l)" -eq 2 ]
	for f in $(received); do
		run "$ARCVERIFY" "$f" "$KEYS"
		echo "$output"
		[ "$status" -eq 0 ]
		"$DKIMVERIFY" -n 1 "$f" "$KEYS"
	done
}

# received - the messages the server saved, oldest first
received() {
	ls -tr "$BATS_TEST_TMPDIR"/s/save/new/* 2>/dev/null
}

# forget - the saved messages moved out of the way
forget() {
	mkdir -p "$BATS_TEST_TMPDIR/old"
	mv "$BATS_TEST_TMPDIR"/s/save/new/* "$BATS_TEST_TMPDIR/old/"
}

# header NAME FILE - the unfolded value of the first header field NAME
header() {
	tr -d '\r' <"$2" | awk -v n="$1" 'BEGIN { IGNORECASE = 1 }
		/^$/ { exit } /^[ \t]/ { if (on) v = v $0; next }
		{ if (on) exit; on = tolower(substr($0, 1, length(n) + 1)) == tolower(n ":") ; if (on) v = $0 }
		END { print v }'
}

# names FILE - the header field names, in order, lowercase
names() {
	tr -d '\r' <"$1" | sed '/^$/q' | grep -v '^[ 	]' | cut -d: -f1 | tr 'A-Z' 'a-z'
}

# relay FILE - a delivered copy as the next list's MTA would pass it on:
# its own Received and results on top
relay() {
	{
		printf 'Authentication-Results: mx.example.org; dkim=pass header.d=other.org;\n\tarc=pass\n'
		printf 'Received: from mx.other.org by mx.example.org (Postfix)\n\tfor <mylist@example.org>; Wed, 25 Nov 2026 02:00:02 +0000\n'
		tr -d '\r' <"$1" | sed '1{/^Received: /{:a;n;/^[ \t]/ba}}'
	} >"$2"
}

@test "a post is sealed: i=1 cv=none, AAR from the trusted results, AS over AMS over DKIM-Signature, arc_verify passes" {
	post example.org mylist
	runq
	[ "$(received | wc -l)" -eq 1 ]
	for f in $(received); do
		run "$ARCVERIFY" "$f" "$KEYS"
		echo "$output"
		[ "$status" -eq 0 ]
		[ "${lines[0]}" = "cv=pass i=1 success" ]
		[ "${lines[1]}" = "i=1 as=ok ams=ok cv=none" ]
		run "$DKIMVERIFY" -n 1 "$f" "$KEYS"
		[ "$status" -eq 0 ]
	done
	f=$(received | head -1)
	[ "$(header ARC-Authentication-Results "$f" | tr -s ' \t' ' ')" = \
		"ARC-Authentication-Results: i=1; mx.example.org; dkim=pass header.d=users.test; spf=pass smtp.mailfrom=users.test" ]
	as=$(header ARC-Seal "$f" | tr -d ' \t')
	[[ "$as" == "ARC-Seal:i=1;a=rsa-sha256;cv=none;d=example.org;s=s1;t="* ]]
	ams=$(header ARC-Message-Signature "$f" | tr -d ' \t')
	[[ "$ams" == *";c=relaxed/relaxed;"* ]]
	h=$(echo "$ams" | tr ';' '\n' | sed -n 's/^h=//p' | tr 'A-Z' 'a-z')
	[[ ":$h:" == *":dkim-signature:"* ]]
	[[ ":$h:" != *":list-unsubscribe"* ]]
	[[ ":$h:" != *":arc-"* ]]
	# the set on top, in the order sealers add it, above the DKIM-Signature
	[ "$(names "$f" | grep -n -m4 'arc-\|dkim-signature' | cut -d: -f2 | tr '\n' ' ')" = \
		"arc-seal arc-message-signature arc-authentication-results dkim-signature " ]
	# a changed Subject breaks the AMS, and so the chain
	sed 's/^Subject: .*/Subject: changed/' "$f" >"$BATS_TEST_TMPDIR/changed"
	run -1 "$ARCVERIFY" "$BATS_TEST_TMPDIR/changed" "$KEYS"
	[[ "${lines[1]}" == "i=1 as=ok ams=bad cv=none" ]]
}

@test "Authentication-Results forged in the trusted id's name are removed; below another host's Received none is trusted" {
	cat >"$BATS_TEST_TMPDIR/two" <<-'EOF'
	Authentication-Results: mx.example.org; dkim=none; spf=softfail smtp.mailfrom=users.test
	Received: from out.users.test by mx.example.org (Postfix)
	Authentication-Results: mx.example.org; dkim=pass header.d=users.test; dmarc=pass
	Authentication-Results: other.test; spf=pass
	From: Alice Example <alice@users.test>
	To: mylist@example.org
	Subject: two results
	Message-ID: <two@users.test>

	hello
	EOF
	post example.org mylist "$BATS_TEST_TMPDIR/two"
	runq
	f=$(received | head -1)
	"$ARCVERIFY" "$f" "$KEYS"
	[ "$(tr -d '\r' <"$f" | grep -c '^Authentication-Results: mx.example.org')" -eq 1 ]
	tr -d '\r' <"$f" | grep -q '^Authentication-Results: mx.example.org; dkim=none; spf=softfail'
	tr -d '\r' <"$f" | grep -q '^Authentication-Results: other.test; spf=pass'
	[[ "$(header ARC-Authentication-Results "$f")" == *"i=1; mx.example.org; dkim=none; spf=softfail"* ]]
	forget
	# one claim, below a Received of a host that is not the MTA: removed
	cat >"$BATS_TEST_TMPDIR/below" <<-'EOF'
	Received: from evil.test by mx.example.org (Postfix)
	Received: from inside.evil.test by evil.test
	Authentication-Results: mx.example.org; dkim=pass header.d=bank.test; dmarc=pass
	From: Alice Example <alice@users.test>
	To: mylist@example.org
	Subject: forged
	Message-ID: <forged@users.test>

	hello
	EOF
	post example.org mylist "$BATS_TEST_TMPDIR/below"
	runq
	f=$(received | head -1)
	"$ARCVERIFY" "$f" "$KEYS"
	run -1 grep -q '^Authentication-Results:' "$f"
	[[ "$(header ARC-Authentication-Results "$f")" == "ARC-Authentication-Results: i=1; example.org; arc=none" ]]
}

@test "a post that came through another list: one and two prior ARC sets, validated with keys from DNS, cv=pass" {
	post other.org first
	runq
	[ "$(received | wc -l)" -eq 1 ]
	"$ARCVERIFY" "$(received)" "$OKEYS"
	relay "$(received)" "$BATS_TEST_TMPDIR/hop1"
	forget
	post example.org mylist "$BATS_TEST_TMPDIR/hop1"
	runq
	[ "$(received | wc -l)" -eq 1 ]
	for f in $(received); do
		run "$ARCVERIFY" "$f" "$KEYS" "$OKEYS"
		echo "$output"
		[ "$status" -eq 0 ]
		[ "${lines[0]}" = "cv=pass i=2 success" ]
		[ "${lines[1]}" = "i=2 as=ok ams=ok cv=pass" ]
		[ "${lines[2]}" = "i=1 as=ok ams=bad cv=none" ] # the Subject tag
	done
	# the keys of the chain were looked up in DNS
	grep -q 's1._domainkey.other.org' "$BATS_TEST_TMPDIR/dns/log"
	# and through a third list (the first would see its own X-Loop): two
	# prior sets
	relay "$(received | head -1)" "$BATS_TEST_TMPDIR/hop2"
	sed -i 's/^To: mylist@example.org/To: third@other.org/' "$BATS_TEST_TMPDIR/hop2"
	forget
	mjq_list other.org third d@users.test
	printf '[list]\nposting = open\n' >"$LISTS/other.org/third/config"
	post other.org third "$BATS_TEST_TMPDIR/hop2"
	runq
	f=$(received)
	run "$ARCVERIFY" "$f" "$KEYS" "$OKEYS"
	echo "$output"
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = "cv=pass i=3 success" ]
	[ "${lines[1]}" = "i=3 as=ok ams=ok cv=pass" ]
	[ "${lines[2]}" = "i=2 as=ok ams=bad cv=pass" ]
	# the same post, where the MTA found the chain broken: cv=fail
	sed -i '2s/^\tarc=pass$/\tarc=fail/' "$BATS_TEST_TMPDIR/hop2"
	forget
	post other.org third "$BATS_TEST_TMPDIR/hop2"
	runq
	f=$(received)
	[[ "$(header ARC-Seal "$f" | tr -d ' \t')" == "ARC-Seal:i=3;a=rsa-sha256;cv=fail;"* ]]
	grep -q "ARC chain fails: the MTA's results say arc=fail: sealed with cv=fail" "$BATS_TEST_TMPDIR/run.log"
}

@test "a broken chain (body changed, key not in DNS) is sealed cv=fail honestly, over its own set; a chain of 50 sets is not extended" {
	post other.org first
	runq
	relay "$(received)" "$BATS_TEST_TMPDIR/hop1"
	forget
	# the body changed after the first list sealed it
	sed -i 's/^hello list$/hello forged list/' "$BATS_TEST_TMPDIR/hop1"
	post example.org mylist "$BATS_TEST_TMPDIR/hop1"
	runq
	f=$(received | head -1)
	[[ "$(header ARC-Seal "$f" | tr -d ' \t')" == "ARC-Seal:i=2;a=rsa-sha256;cv=fail;"* ]]
	run -1 "$ARCVERIFY" "$f" "$KEYS" "$OKEYS"
	[[ "${lines[0]}" == "cv=terminated i=2 ARC-Seal[2] reported failure"* ]]
	run "$ARCVERIFY" -f "$f" "$KEYS"
	echo "$output"
	[ "$status" -eq 0 ]
	grep -q 'ARC chain fails: the body hash differs (i=1): sealed with cv=fail' "$BATS_TEST_TMPDIR/run.log"
	# a chain that already says cv=fail stays failed at the next list
	relay "$f" "$BATS_TEST_TMPDIR/hop2"
	sed -i 's/^To: mylist@example.org/To: third@other.org/' "$BATS_TEST_TMPDIR/hop2"
	forget
	mjq_list other.org third d@users.test
	printf '[list]\nposting = open\n' >"$LISTS/other.org/third/config"
	post other.org third "$BATS_TEST_TMPDIR/hop2"
	runq
	f=$(received)
	[[ "$(header ARC-Seal "$f" | tr -d ' \t')" == "ARC-Seal:i=3;a=rsa-sha256;cv=fail;"* ]]
	"$ARCVERIFY" -f "$f" "$OKEYS"
	grep -q 'ARC chain fails: an ARC-Seal with a wrong cv= (i=2): sealed with cv=fail' "$BATS_TEST_TMPDIR/run.log"
	forget
	# a chain sealed with a key DNS does not have
	mjq_list nokey.test l e@users.test
	printf '[list]\nposting = open\n' >"$LISTS/nokey.test/l/config"
	"$DKIMKEY" -C "$CONF" nokey.test s1 >/dev/null
	post nokey.test l
	runq
	relay "$(received)" "$BATS_TEST_TMPDIR/nokey"
	forget
	post example.org mylist "$BATS_TEST_TMPDIR/nokey"
	runq
	f=$(received | head -1)
	[[ "$(header ARC-Seal "$f" | tr -d ' \t')" == "ARC-Seal:i=2;a=rsa-sha256;cv=fail;"* ]]
	"$ARCVERIFY" -f "$f" "$KEYS"
	grep -q 'ARC chain fails: no key in DNS: sealed with cv=fail' "$BATS_TEST_TMPDIR/run.log"
	forget
	# a chain of 50 sets (their seals need not verify): no 51st
	{
		for i in $(seq 50 -1 1); do
			printf 'ARC-Seal: i=%d; a=rsa-sha256; cv=pass; d=x.test; s=x; b=AAAA\n' "$i"
			printf 'ARC-Message-Signature: i=%d; a=rsa-sha256; d=x.test; s=x; h=from; bh=AAAA; b=AAAA\n' "$i"
			printf 'ARC-Authentication-Results: i=%d; x.test; none\n' "$i"
		done
		printf 'From: alice@users.test\nTo: mylist@example.org\nSubject: long\n\nlong chain\n'
	} >"$BATS_TEST_TMPDIR/fifty"
	post example.org mylist "$BATS_TEST_TMPDIR/fifty"
	runq
	f=$(received | head -1)
	run -1 grep -q '^ARC-Seal: i=51' "$f"
	[ "$(grep -c '^ARC-Seal:' "$f")" -eq 50 ]
	grep -q 'not ARC-sealed: a chain of 50 sets' "$BATS_TEST_TMPDIR/run.log"
	"$DKIMVERIFY" -n 1 "$f" "$KEYS"
}

@test "dmarc_mitigation = none: the author's DKIM broken by the Subject tag, the ARC chain verifies and carries its pass" {
	printf '[list]\nposting = open\nsubject_prefix = [mylist]\ndmarc_mitigation = none\n' \
		>"$LISTS/example.org/mylist/config"
	printf 'From: Author <a@authors.test>\nTo: mylist@example.org\nSubject: signed\nDate: Wed, 25 Nov 2026 02:00:00 +0000\nMessage-ID: <signed@authors.test>\n\nsigned by its author\n' \
		>"$BATS_TEST_TMPDIR/msg"
	/usr/bin/python3 -c 'import dkim, sys
msg = open(sys.argv[1], "rb").read()
key = open(sys.argv[2], "rb").read()
sys.stdout.buffer.write(dkim.sign(msg, b"a1", b"authors.test", key, canonicalize=(b"relaxed", b"relaxed"), include_headers=[b"from", b"to", b"subject", b"date", b"message-id"]).replace(b"\r\n", b"\n") + msg)' \
		"$BATS_TEST_TMPDIR/msg" "$AKEYS/a1.key" >"$BATS_TEST_TMPDIR/signed"
	"$DKIMVERIFY" -n 1 "$BATS_TEST_TMPDIR/signed" "$AKEYS"
	{
		printf 'Authentication-Results: mx.example.org; dkim=pass header.d=authors.test;\n\tdmarc=pass header.from=authors.test\n'
		printf 'Received: from out.authors.test by mx.example.org (Postfix)\n'
		cat "$BATS_TEST_TMPDIR/signed"
	} >"$BATS_TEST_TMPDIR/in"
	post example.org mylist "$BATS_TEST_TMPDIR/in"
	runq
	for f in $(received); do
		tr -d '\r' <"$f" | grep -q '^From: Author <a@authors.test>'
		tr -d '\r' <"$f" | grep -q '^Subject: \[mylist\] signed'
		# the author's signature fails, the list's passes
		run -1 "$DKIMVERIFY" "$f" "$KEYS" "$AKEYS"
		[[ "$output" == *"fail a=rsa-sha256 s=a1 d=authors.test"* ]]
		[[ "$output" == *"pass a=rsa-sha256 s=s1 d=example.org"* ]]
		run "$ARCVERIFY" "$f" "$KEYS"
		[ "$status" -eq 0 ]
		[[ "$(header ARC-Authentication-Results "$f")" == *"dkim=pass header.d=authors.test;"*"dmarc=pass header.from=authors.test"* ]]
	done
}

@test "one-click copies share one seal, each verifies, and their own List-Unsubscribe stays outside it" {
	oneclick_post
	a=$(received | head -1)
	b=$(received | tail -1)
	[ "$(header List-Unsubscribe "$a")" != "$(header List-Unsubscribe "$b")" ]
	[ "$(header ARC-Seal "$a")" = "$(header ARC-Seal "$b")" ]
}

@test "a footer's \$UNSUBSCRIBE_URL on a sealed list: each copy has its own link in its body, its own seal over it, and verifies" {
	printf 'leave: $UNSUBSCRIBE_URL\n' >"$LISTS/example.org/mylist/footer"
	oneclick_post
	for f in $(received); do
		link=$(header List-Unsubscribe "$f" | sed 's/^[^<]*<\([^>]*\)>.*/\1/')
		[[ "$link" == "https://lists.example.org/u?l=mylist%40example.org&a="* ]]
		[ "$(tr -d '\r' <"$f" | sed '1,/^$/d')" = "hello list
leave: $link" ]
	done
	a=$(received | head -1)
	b=$(received | tail -1)
	[ "$(header ARC-Message-Signature "$a" | grep -o 'bh=[^;]*')" != "$(header ARC-Message-Signature "$b" | grep -o 'bh=[^;]*')" ]
}

@test "[arc] seal = no sends no ARC set; without trusted ids the AAR is the list's own" {
	sed -i 's/^trusted_authserv_ids = .*/trusted_authserv_ids =/' "$CONF"
	post example.org mylist
	runq
	f=$(received | head -1)
	[[ "$(header ARC-Authentication-Results "$f")" == "ARC-Authentication-Results: i=1; example.org; arc=none" ]]
	# the MTA's results are left as they came
	grep -q '^Authentication-Results: mx.example.org; dkim=pass' "$f"
	forget
	printf '[arc]\nseal = no\n' >>"$CONF"
	post example.org mylist
	runq
	f=$(received | head -1)
	run -1 grep -q '^ARC-' "$f"
	"$DKIMVERIFY" -n 1 "$f" "$KEYS"
}

@test "a wrapped post keeps the chain outside and verifies; a CRLF post's seal verifies" {
	post other.org first
	runq
	relay "$(received)" "$BATS_TEST_TMPDIR/hop1"
	forget
	printf '[list]\nposting = open\ndmarc_mitigation = wrap\n' >"$LISTS/example.org/mylist/config"
	post example.org mylist "$BATS_TEST_TMPDIR/hop1"
	runq
	f=$(received | head -1)
	tr -d '\r' <"$f" | grep -q '^Content-Type: message/rfc822'
	run "$ARCVERIFY" "$f" "$KEYS" "$OKEYS"
	echo "$output"
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = "cv=pass i=2 success" ]
	forget
	printf '[list]\nposting = open\n' >"$LISTS/example.org/mylist/config"
	printf 'Authentication-Results: mx.example.org;\r\n\tdkim=pass header.d=users.test\r\nReceived: from a by mx.example.org\r\nFrom: alice@users.test\r\nTo: mylist@example.org\r\nSubject: crlf\r\n\r\nline one\r\n\r\n\r\n' \
		>"$BATS_TEST_TMPDIR/crlf"
	post example.org mylist "$BATS_TEST_TMPDIR/crlf"
	runq
	f=$(received | head -1)
	"$ARCVERIFY" "$f" "$KEYS"
	[[ "$(header ARC-Authentication-Results "$f" | tr -s ' \t' ' ')" == *"i=1; mx.example.org; dkim=pass header.d=users.test" ]]
}
