#!/usr/bin/env bats
# A list owner's rules for posts (issue 39): the list's header and footer
# texts, header fields removed and added, emergency moderation, the
# recipient limit, notmetoo, welcome and goodbye texts.  Every post goes
# through mj_enqueue, mj_queuerun and SMTP on loopback to mj_testsmtpd;
# every copy is checked by software that is not mjq's: python3-dkim
# (t/tools/mj_dkimverify.py) for the signatures, Python's email package
# (t/tools/mj_mimeshow.py) for the MIME structure and the decoded text.
#
# The sample posts in t/data/posts/ copy the shapes real clients send:
# latin1-qp.eml (Thunderbird, format=flowed, quoted-printable Latin-1),
# utf8-base64.eml (mobile clients that base64 a short UTF-8 text),
# html-only.eml (Outlook's "HTML format" with no plain twin, its
# MsoNormal markup), alternative-attach.eml (Thunderbird's
# multipart/mixed { multipart/alternative { plain, html }, pdf }),
# pgp-signed.eml (Thunderbird's OpenPGP/MIME, RFC 3156).

load helpers
load smtp_helpers
load web_helpers

bats_require_minimum_version 1.5.0

VERIFY=$TOP/t/tools/mj_dkimverify.py
MIMESHOW=$TOP/t/tools/mj_mimeshow.py
DKIMKEY=$TOP/scripts/mjq-dkimkey
POSTS=$TOP/t/data/posts

setup() {
	# every copy's SIZE= checked against what is sent (RFC 1870)
	smtpd_start s --check-size
	mjq_setup <<-EOF
	[dkim]
	sign = yes
	selectors = s1
	ed25519_selector = e1
	[delivery]
	minimal_backoff_time = 1s
	[transport_map]
	* = smtp:[127.0.0.1]:$PORT
	EOF
	KEYS=$LISTS/example.org/.dkim
	L=$LISTS/example.org/mylist
	mjq_list example.org mylist a@users.test b@users.test
	printf '[list]\nposting = open\nowners = boss@owner.test\narchive_url = https://lists.example.org/$LIST/\n' >"$L/config"
	"$DKIMKEY" -C "$CONF" example.org s1 >/dev/null
	"$DKIMKEY" -C "$CONF" -t ed25519 example.org e1 >/dev/null
	printf '%s\n' '-- ' '$LIST@$DOMAIN - archive $ARCHIVE_URL' 'leave: $UNSUBSCRIBE' >"$BATS_TEST_TMPDIR/footer.ascii"
}

teardown() {
	[ -z "${WEB_PID:-}" ] || stop_pid "$WEB_PID"
	queueserv_stop
	servers_stop
}

# post FILE - enqueue FILE as a post to mylist
post() {
	"$MJ_ENQUEUE" -C "$CONF" -d example.org -l mylist -r -f sender@users.test <"$1"
}

# received - the messages the server saved, oldest first
received() {
	ls -tr "$BATS_TEST_TMPDIR"/s/save/new/* 2>/dev/null
}

# verify_all - every saved message (at least one) carries two DKIM
# signatures, both verified by python3-dkim
verify_all() {
	local f n=0
	for f in $(received); do
		"$VERIFY" -n 2 "$f" "$KEYS" || { echo "FAILED: $f" >&2; return 1; }
		n=$((n + 1))
	done
	[ "$n" -gt 0 ]
}

# one_copy - the first saved copy (all copies of a post are one text)
one_copy() {
	received | head -1
}

# body FILE - the body of a saved message, line ends LF
body() {
	tr -d '\r' <"$1" | sed '1,/^$/d'
}

FOOTER_TEXT='-- 
mylist@example.org - archive https://lists.example.org/mylist/
leave: mailto:majordomo@example.org?body=unsubscribe%20mylist'

@test "footer: a plain text post gets it at the end, variables replaced, and every copy verifies" {
	cp "$BATS_TEST_TMPDIR/footer.ascii" "$L/footer"
	printf 'From: <alice@users.test>\nTo: mylist@example.org\nSubject: hi\nMessage-ID: <t1@users.test>\n\nhello list\n' >"$BATS_TEST_TMPDIR/m"
	post "$BATS_TEST_TMPDIR/m"
	runq
	# one text for both: one transaction
	[ "$(received | wc -l)" -eq 1 ]
	verify_all
	f=$(one_copy)
	[ "$(body "$f")" = "hello list
$FOOTER_TEXT" ]
	# without the file, the post goes as it came
	rm "$L/footer"
	rm -f "$BATS_TEST_TMPDIR"/s/save/new/*
	post "$BATS_TEST_TMPDIR/m"
	runq
	verify_all
	[ "$(body "$(one_copy)")" = "hello list" ]
}

@test "footer and header: a quoted-printable Latin-1 post keeps its charset and encoding, the text converted" {
	printf 'Le pied de page de $LIST : \xc3\xa9t\xc3\xa9\n' >"$L/footer"
	printf 'En-t\xc3\xaate\n' >"$L/header"
	post "$POSTS/latin1-qp.eml"
	runq
	verify_all
	f=$(one_copy)
	run "$MIMESHOW" -t "$f"
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = "text/plain charset=iso-8859-1 cte=quoted-printable" ]
	[ "${lines[2]}" = "En-tête" ]
	[ "${lines[3]}" = "Bonjour à tous," ]
	[[ "$output" == *"coupée par l'encodage quoted-printable"* ]]
	[ "${lines[-2]}" = "Le pied de page de mylist : été" ]
	# the footer is in Latin-1 on the wire: é is =E9, never UTF-8's =C3=A9
	grep -q 'pied de page de mylist : =E9t=E9' "$f"
	# every encoded line fits in 76 characters
	[ "$(body "$f" | awk 'length > 76' | wc -l)" -eq 0 ]
}

@test "footer: a base64 UTF-8 post is decoded, extended and encoded again" {
	printf 'Gr\xc3\xbc\xc3\x9fe von $LIST\n' >"$L/footer"
	post "$POSTS/utf8-base64.eml"
	runq
	verify_all
	run "$MIMESHOW" -t "$(one_copy)"
	[ "${lines[0]}" = "text/plain charset=utf-8 cte=base64" ]
	[ "${lines[2]}" = "Grüße aus München," ]
	[ "${lines[3]}" = "Jürgen" ]
	[ "${lines[4]}" = "Grüße von mylist" ]
}

@test "footer: a charset that cannot carry the footer gets it as a part of its own" {
	printf '\xe2\x82\xac 5 a month keeps $LIST going\n' >"$L/footer"
	post "$POSTS/latin1-qp.eml"
	runq
	verify_all
	run "$MIMESHOW" -t "$(one_copy)"
	[ "${lines[0]}" = "multipart/mixed charset= cte=8bit" ]
	[ "${lines[1]}" = "  text/plain charset=iso-8859-1 cte=quoted-printable" ]
	[ "${lines[3]}" = "Bonjour à tous," ]
	[[ "$output" == *"  text/plain charset=utf-8 cte=8bit"*"€ 5 a month keeps mylist going"* ]]
}

@test "footer: an HTML-only post is wrapped: the HTML as it came, the footer as text/plain" {
	cp "$BATS_TEST_TMPDIR/footer.ascii" "$L/footer"
	post "$POSTS/html-only.eml"
	runq
	verify_all
	f=$(one_copy)
	run "$MIMESHOW" -t "$f"
	[ "${lines[0]}" = "multipart/mixed charset= cte=" ]
	[ "${lines[1]}" = "  text/html charset=us-ascii cte=quoted-printable" ]
	[[ "$output" == *"the meeting is at 10&nbsp;am."* ]]
	[[ "$output" == *"  text/plain charset=utf-8 cte=7bit"*"$FOOTER_TEXT"* ]]
	# the post's own content fields went inside, none is left outside
	[ "$(tr -d '\r' <"$f" | sed '/^$/q' | grep -ci '^content-type:')" -eq 1 ]
	[ "$(tr -d '\r' <"$f" | sed '/^$/q' | grep -ci '^mime-version:')" -eq 1 ]
}

@test "footer: a multipart/alternative with an attachment keeps its parts, the footer after them" {
	cp "$BATS_TEST_TMPDIR/footer.ascii" "$L/footer"
	printf 'Welcome text on top\n' >"$L/header"
	post "$POSTS/alternative-attach.eml"
	runq
	verify_all
	run "$MIMESHOW" "$(one_copy)"
	[ "$output" = "multipart/mixed charset= cte=
  text/plain charset=utf-8 cte=7bit
  multipart/mixed charset= cte=
    multipart/alternative charset= cte=
      text/plain charset=utf-8 cte=7bit
      text/html charset=utf-8 cte=7bit
    application/pdf charset= cte=base64
  text/plain charset=utf-8 cte=7bit" ]
	# the attachment arrives byte for byte
	python3 - "$(one_copy)" <<-'PY'
	import email, sys
	m = email.message_from_binary_file(open(sys.argv[1], "rb"))
	pdf = [p for p in m.walk() if p.get_content_type() == "application/pdf"][0]
	assert pdf.get_payload(decode=True).startswith(b"%PDF-1.4"), pdf.get_payload(decode=True)
	assert pdf.get_filename() == "minutes.pdf"
	PY
}

@test "footer: a PGP/MIME signed post is never altered, and still verifies" {
	cp "$BATS_TEST_TMPDIR/footer.ascii" "$L/footer"
	printf 'a header text\n' >"$L/header"
	post "$POSTS/pgp-signed.eml"
	runq
	verify_all
	f=$(one_copy)
	# the body is the post's, byte for byte
	diff <(sed '1,/^$/d' "$POSTS/pgp-signed.eml") <(body "$f")
	run "$MIMESHOW" "$f"
	[ "${lines[0]}" = "multipart/signed charset= cte=" ]
}

@test "footer: an S/MIME post (application/pkcs7-mime) is never altered" {
	cp "$BATS_TEST_TMPDIR/footer.ascii" "$L/footer"
	{
		printf 'From: <s@users.test>\nTo: mylist@example.org\nSubject: smime\nMIME-Version: 1.0\n'
		printf 'Content-Type: application/pkcs7-mime; smime-type=enveloped-data; name="smime.p7m"\n'
		printf 'Content-Transfer-Encoding: base64\nContent-Disposition: attachment; filename="smime.p7m"\n\n'
		head -c 600 /dev/urandom | base64
	} >"$BATS_TEST_TMPDIR/m"
	post "$BATS_TEST_TMPDIR/m"
	runq
	verify_all
	diff <(sed '1,/^$/d' "$BATS_TEST_TMPDIR/m") <(body "$(one_copy)")
}

@test "footer: a footer that cannot be read holds the post back, nothing goes out without it" {
	# a directory where the file should be: unreadable even to root
	mkdir "$L/footer"
	printf 'From: <alice@users.test>\nTo: mylist@example.org\nSubject: hi\n\nhello\n' >"$BATS_TEST_TMPDIR/m"
	post "$BATS_TEST_TMPDIR/m"
	runq
	[ "$(received | wc -l)" -eq 0 ]
	[ "$(queue_files | wc -l)" -ge 1 ]
	grep -q 'footer: Is a directory: deferred' "$BATS_TEST_TMPDIR/run.log"
	rmdir "$L/footer"
	cp "$BATS_TEST_TMPDIR/footer.ascii" "$L/footer"
	make_due
	runq
	[ "$(received | wc -l)" -eq 1 ]
	verify_all
	[ "$(body "$(one_copy)")" = "hello
$FOOTER_TEXT" ]
}

@test "footer: on a list with one-click links each copy is signed over its own link and the shared body with the footer" {
	SECRET=$BATS_TEST_TMPDIR/unsubscribe.secret
	printf '[unsubscribe]\nsecret_file = %s\n' "$SECRET" >>"$CONF"
	"$TOP/scripts/mjq-unsubsecret" "$SECRET"
	printf 'unsubscribe_url = https://lists.example.org/cgi-bin/mj_unsubscribe\n' >>"$L/config"
	cp "$BATS_TEST_TMPDIR/footer.ascii" "$L/footer"
	post "$POSTS/alternative-attach.eml"
	runq
	# a copy each, each with its own link, each verified
	[ "$(received | wc -l)" -eq 2 ]
	verify_all
	for f in $(received); do
		grep -q '^List-Unsubscribe-Post: List-Unsubscribe=One-Click' "$f"
		run "$MIMESHOW" -t "$f"
		[[ "$output" == *"$FOOTER_TEXT"* ]]
	done
}

# linked_list - mylist with one-click links served by mj_unsubscribe
# under a real lighttpd, and a footer asking for each copy's own link
linked_list() {
	command -v lighttpd >/dev/null || skip "needs lighttpd (make test installs it)"
	web_secret
	web_start "$TOP/unsubscribe/mj_unsubscribe"
	printf 'unsubscribe_url = %s/cgi-bin/mj_unsubscribe\n' "$WEB_ROOT" >>"$L/config"
	printf '%s\n' '-- ' 'leave $LIST: $UNSUBSCRIBE_URL' 'or write to $UNSUBSCRIBE' >"$L/footer"
}

# own_links - every copy (two) verifies (DKIM and ARC), its footer (decoded) carries the
# one-click link of its own List-Unsubscribe, once, and each link's MAC
# (made by the openssl command) is right for its own address; prints
# each copy's link, one a line
own_links() {
	local f
	[ "$(received | wc -l)" -eq 2 ]
	verify_all >&2
	for f in $(received); do
		# the list seals ([arc] seal = yes): each copy over its own body
		grep -q '^ARC-Seal: ' "$f"
		"$TOP/t/tools/mj_arcverify.py" "$f" "$KEYS" >&2
		python3 - "$f" "$KEY" <<-'PY'
		import email, hashlib, hmac, re, sys, urllib.parse
		m = email.message_from_binary_file(open(sys.argv[1], "rb"))
		lu = re.search(r"<(https?://[^>]+)>", m["List-Unsubscribe"]).group(1)
		texts = [p.get_payload(decode=True).decode(p.get_content_charset() or "ascii")
		         for p in m.walk() if p.get_content_type() == "text/plain"]
		foot = texts[-1]
		assert "\x1f" not in "".join(texts), "the place of the link went out"
		assert foot.count(lu) == 1, (lu, foot)
		assert "leave mylist: " + lu + "\n" in foot, foot
		assert "or write to mailto:majordomo@example.org?body=unsubscribe%20mylist" in foot
		q = urllib.parse.parse_qs(urllib.parse.urlsplit(lu).query)
		msg = "mjq-unsub-1\n%s\n%s\n%s\n%s\n" % (
		    "mylist", "example.org", q["a"][0], q["t"][0])
		mac = hmac.new(bytes.fromhex(sys.argv[2]), msg.encode(), hashlib.sha256).hexdigest()[:32]
		assert q["s"][0] == mac, (q, mac)
		print(lu)
		PY
	done
}

# click_first LINKS - a provider's one-click POST of the link of a@'s
# copy: a@ leaves the list at the next run, b@ stays
click_first() {
	local url
	url=$(printf '%s\n' "$1" | grep 'a=a%40users.test')
	[ "$(printf '%s\n' "$1" | grep -c 'a=b%40users.test')" -eq 1 ]
	[ "$(curl -s -o /dev/null -w '%{http_code}' -d 'List-Unsubscribe=One-Click' "$url")" = 200 ]
	runq
	[ "$(cat "$L/subscribers")" = "b@users.test" ]
}

@test "footer: \$UNSUBSCRIBE_URL gives each copy of a plain text post its own one-click link, signed, and the link unsubscribes its reader" {
	linked_list
	printf 'From: <alice@users.test>\nTo: mylist@example.org\nSubject: hi\nMessage-ID: <t9@users.test>\n\nhello list\n' >"$BATS_TEST_TMPDIR/m"
	post "$BATS_TEST_TMPDIR/m"
	runq
	links=$(own_links)
	[ "$(printf '%s\n' "$links" | sort -u | wc -l)" -eq 2 ]
	click_first "$links"
}

@test "footer: \$UNSUBSCRIBE_URL in a quoted-printable Latin-1 post: each copy's own link, encoded in the body's own encoding, lines within 76" {
	linked_list
	post "$POSTS/latin1-qp.eml"
	runq
	links=$(own_links)
	for f in $(received); do
		grep -q '^Content-Transfer-Encoding: quoted-printable' "$f"
		grep -q 'charset=iso-8859-1' "$f"
		# '=' of the link's query written =3D; no line over 76
		grep -q '=3D' "$f"
		[ "$(body "$f" | awk 'length > 76' | wc -l)" -eq 0 ]
	done
	click_first "$links"
}

@test "footer: \$UNSUBSCRIBE_URL in a multipart/alternative post with an attachment: each copy's own link in the footer part, signed" {
	linked_list
	post "$POSTS/alternative-attach.eml"
	runq
	links=$(own_links)
	click_first "$links"
}

@test "footer: \$UNSUBSCRIBE_URL in a post over 1 MB (a large attachment): one text for all, the list's mailto in its footer part, every copy verifies" {
	linked_list
	python3 - "$BATS_TEST_TMPDIR/big" <<-'PY'
	import base64, os, sys
	data = base64.encodebytes(os.urandom(900 * 1024)).decode()
	open(sys.argv[1], "w").write(
	    "From: <alice@users.test>\nTo: mylist@example.org\nSubject: big\n"
	    "Message-ID: <big@users.test>\nMIME-Version: 1.0\n"
	    "Content-Type: multipart/mixed; boundary=\"b1\"\n\n"
	    "--b1\nContent-Type: text/plain\n\nthe pictures\n"
	    "--b1\nContent-Type: image/jpeg\nContent-Transfer-Encoding: base64\n\n"
	    + data + "--b1--\n")
	PY
	post "$BATS_TEST_TMPDIR/big"
	runq
	[ "$(received | wc -l)" -eq 2 ]
	verify_all
	for f in $(received); do
		run "$MIMESHOW" -t "$f"
		[[ "$output" == *"leave mylist: mailto:majordomo@example.org?body=unsubscribe%20mylist"* ]]
		run ! grep -q $'\037' "$f"
	done
}

@test "footer: \$UNSUBSCRIBE_URL in a base64 post, and in a quoted-printable one over 1 MB: the list's mailto, encoded, one text for all" {
	linked_list
	post "$POSTS/utf8-base64.eml"
	python3 - "$BATS_TEST_TMPDIR/bigqp" <<-'PY'
	import sys
	line = "caf=E9 " * 10 + "=\n"
	open(sys.argv[1], "w").write(
	    "From: <alice@users.test>\nTo: mylist@example.org\nSubject: long\n"
	    "Message-ID: <bigqp@users.test>\nMIME-Version: 1.0\n"
	    "Content-Type: text/plain; charset=iso-8859-1\n"
	    "Content-Transfer-Encoding: quoted-printable\n\n"
	    + line * 16000 + "end\n")
	PY
	post "$BATS_TEST_TMPDIR/bigqp"
	runq
	[ "$(received | wc -l)" -eq 4 ]
	verify_all
	for f in $(received); do
		run "$MIMESHOW" -t "$f"
		[[ "$output" == *"leave mylist: mailto:majordomo@example.org?body=unsubscribe%20mylist
or write to"* ]]
		run ! grep -q $'\037' "$f"
		[ "$(body "$f" | awk 'length > 76' | wc -l)" -eq 0 ]
	done
}

@test "footer: a post that writes mjq's own link mark gets no reader's link there, with or without \$UNSUBSCRIBE_URL in the footer: the mark is defused" {
	linked_list
	printf '%s\n' '-- ' 'leave $LIST: $UNSUBSCRIBE' >"$L/footer"
	printf 'From: <alice@users.test>\nTo: mylist@example.org\nSubject: prize\nMessage-ID: <mark1@users.test>\n\nclaim it: \037mjq-unsubscribe-url\037 now\n' >"$BATS_TEST_TMPDIR/m"
	post "$BATS_TEST_TMPDIR/m"
	runq
	[ "$(received | wc -l)" -eq 2 ]
	verify_all
	for f in $(received); do
		body "$f" | grep -q 'claim it: ?mjq-unsubscribe-url'
		run ! grep -q 'mj_unsubscribe?' <(body "$f")
	done
	grep -q "carries mjq's own link mark: defused" "${RUNLOG:-$BATS_TEST_TMPDIR/run.log}"
	# the footer asks for each copy's link: it is there, once, and only there
	printf '%s\n' '-- ' 'leave $LIST: $UNSUBSCRIBE_URL' >"$L/footer"
	rm -f $(received)
	sed -i 's/mark1@/mark2@/' "$BATS_TEST_TMPDIR/m"
	post "$BATS_TEST_TMPDIR/m"
	runq
	[ "$(received | wc -l)" -eq 2 ]
	verify_all
	for f in $(received); do
		body "$f" | grep -q 'claim it: ?mjq-unsubscribe-url'
		[ "$(body "$f" | grep -c 'mj_unsubscribe?')" -eq 1 ]
		body "$f" | grep -q '^leave mylist: http.*mj_unsubscribe?'
	done
}

@test "footer: \$UNSUBSCRIBE_URL on a signed post: no footer, the post as it came" {
	linked_list
	post "$POSTS/pgp-signed.eml"
	runq
	verify_all
	for f in $(received); do
		diff <(sed '1,/^$/d' "$POSTS/pgp-signed.eml") <(body "$f")
	done
}

@test "header rules: remove_headers takes the poster's Received and X-Originating-IP, custom_headers adds fields, before signing" {
	printf 'remove_headers = Received, x-originating-ip\n' >>"$L/config"
	printf '# our fields\nX-Team: infra\nX-Policy: be kind,\n  be brief\n' >"$L/custom_headers"
	printf 'Received: from [192.0.2.7] (helo=laptop)\n\tby mx.users.test; Thu, 26 Nov 2026 09:00:00 +0000\nReceived: from laptop by [192.0.2.7]\nX-Originating-IP: [192.0.2.7]\nFrom: <alice@users.test>\nTo: mylist@example.org\nSubject: private\nX-Mailer: Thunderbird\n\nmy network is mine\n' >"$BATS_TEST_TMPDIR/m"
	post "$BATS_TEST_TMPDIR/m"
	runq
	verify_all
	f=$(one_copy)
	h=$(tr -d '\r' <"$f" | sed '/^$/q')
	[[ "$h" != *"192.0.2.7"* ]]
	[[ "$h" != *"Received:"* ]]
	[[ "$h" == *"X-Mailer: Thunderbird"* ]]
	[[ "$h" == *$'X-Team: infra\nX-Policy: be kind,\n  be brief'* ]]
	[[ "$h" == *"List-Id: <mylist.example.org>"* ]]
	[ "$(body "$f")" = "my network is mine" ]
}

@test "header rules: a field mjq writes or needs cannot be removed or added; the post waits with the reason" {
	printf 'From: <alice@users.test>\nTo: mylist@example.org\nSubject: hi\n\nhello\n' >"$BATS_TEST_TMPDIR/m"
	printf 'remove_headers = Received List-Id\n' >>"$L/config"
	post "$BATS_TEST_TMPDIR/m"
	runq
	[ "$(received | wc -l)" -eq 0 ]
	[ "$(queue_files | wc -l)" -eq 1 ]
	grep -q "remove_headers.*List-Id is written or needed by mjq: it cannot be removed" "$BATS_TEST_TMPDIR/run.log"
	for name in DKIM-Signature ARC-Seal From Content-Type list-unsubscribe X-Loop; do
		sed -i "s/^remove_headers = .*/remove_headers = $name/" "$L/config"
		make_due
		runq
		grep -q "remove_headers.*$name is written or needed by mjq" "$BATS_TEST_TMPDIR/run.log"
	done
	sed -i '/^remove_headers/d' "$L/config"
	printf 'X-Team: infra\nSubject: another\n' >"$L/custom_headers"
	make_due
	runq
	[ "$(received | wc -l)" -eq 0 ]
	grep -q "custom_headers, line 2: Subject is the post's own (one at most): it cannot be added: deferred" "$BATS_TEST_TMPDIR/run.log"
	printf 'X-Team: infra\nnot a field\n' >"$L/custom_headers"
	make_due
	runq
	grep -q "custom_headers, line 2: not 'Name: value'" "$BATS_TEST_TMPDIR/run.log"
	printf 'X-Team: infra\n' >"$L/custom_headers"
	make_due
	runq
	[ "$(received | wc -l)" -eq 1 ]
	verify_all
	grep -q '^X-Team: infra' "$(one_copy)"
}

# held - the held posts (messages under HOLD/)
held() {
	find "$SPOOL/HOLD" -type f ! -name '.*' 2>/dev/null | wc -l
}

# held_why - the reason of the held post
held_why() {
	cat "$(find "$SPOOL/HOLD" -name '.*.why')"
}

@test "emergency = yes holds every post, an owner's too, for a moderator; released, it goes to everyone" {
	printf 'emergency = yes\n' >>"$L/config"
	printf 'From: <boss@owner.test>\nTo: mylist@example.org\nSubject: calm down\n\nfrom the owner\n' >"$BATS_TEST_TMPDIR/m"
	post "$BATS_TEST_TMPDIR/m"
	runq
	[ "$(held)" -eq 1 ]
	[[ "$(held_why)" == *"the list is under emergency moderation (emergency = yes)"* ]]
	# the moderator's notice is the only mail out
	[ "$(received | wc -l)" -eq 1 ]
	grep -q '^To: <\?boss@owner.test' "$(one_copy)"
	# released by the operator: judged by a person, it goes out
	h=$(basename "$(find "$SPOOL/HOLD" -type f ! -name '.*')")
	"$MJ_QUEUERUN" -C "$CONF" -H "$h"
	runq
	[ "$(held)" -eq 0 ]
	[ "$(grep -c 'to=<a@users.test>' "$BATS_TEST_TMPDIR/s/log")" -eq 1 ]
	[ "$(grep -c 'to=<b@users.test>' "$BATS_TEST_TMPDIR/s/log")" -eq 1 ]
	# off again: the next post goes straight out
	sed -i '/^emergency/d' "$L/config"
	post "$BATS_TEST_TMPDIR/m"
	runq
	[ "$(held)" -eq 0 ]
	[ "$(grep -c 'to=<a@users.test>' "$BATS_TEST_TMPDIR/s/log")" -eq 2 ]
}

@test "max_recipients: a post naming more addresses in To and Cc than the limit is held, one at the limit goes out" {
	printf 'max_recipients = 3\n' >>"$L/config"
	# three: the list, a quoted name with a comma, a group's member
	printf 'From: <alice@users.test>\nTo: mylist@example.org, "Doe, John" <john@users.test>\nCc: friends: carol@users.test;\nSubject: three\n\nthree\n' >"$BATS_TEST_TMPDIR/m3"
	# four: one more in a second Cc field, folded
	printf 'From: <alice@users.test>\nTo: mylist@example.org, "Doe, John" <john@users.test>\nCc: friends: carol@users.test;\nCc: (a comment, with a comma)\n dave@users.test\nSubject: four\n\nfour\n' >"$BATS_TEST_TMPDIR/m4"
	post "$BATS_TEST_TMPDIR/m3"
	runq
	[ "$(held)" -eq 0 ]
	[ "$(received | wc -l)" -eq 1 ]
	post "$BATS_TEST_TMPDIR/m4"
	runq
	[ "$(held)" -eq 1 ]
	[[ "$(held_why)" == *"4 explicit recipients in To and Cc, over the list's max_recipients of 3"* ]]
	# the notice to the moderator, not the post, went out
	[ "$(grep -c 'to=<a@users.test>' "$BATS_TEST_TMPDIR/s/log")" -eq 1 ]
	[ "$(grep -c 'to=<boss@owner.test>' "$BATS_TEST_TMPDIR/s/log")" -eq 1 ]
}

@test "notmetoo: a subscriber in that mode gets no copy of its own post, the others do, signed" {
	printf 'a@users.test notmetoo\nb@users.test\n' >"$L/subscribers"
	printf 'From: A <a@users.test>\nTo: mylist@example.org\nSubject: mine\n\nfrom a\n' >"$BATS_TEST_TMPDIR/m"
	post "$BATS_TEST_TMPDIR/m"
	runq
	verify_all
	[ "$(grep -c 'to=<a@users.test>' "$BATS_TEST_TMPDIR/s/log")" -eq 0 ]
	[ "$(grep -c 'to=<b@users.test>' "$BATS_TEST_TMPDIR/s/log")" -eq 1 ]
	# b's post reaches a
	printf 'From: B <b@users.test>\nTo: mylist@example.org\nSubject: hers\n\nfrom b\n' >"$BATS_TEST_TMPDIR/m"
	post "$BATS_TEST_TMPDIR/m"
	runq
	[ "$(grep -c 'to=<a@users.test>' "$BATS_TEST_TMPDIR/s/log")" -eq 1 ]
}

@test "content filter: Outlook's TNEF winmail.dat is removed with a note, the text kept, signed; a signed post is left alone" {
	printf 'content_filter = yes\nfilter_types = application/ms-tnef\n' >>"$L/config"
	post "$POSTS/outlook-tnef.eml"
	runq
	verify_all
	run "$MIMESHOW" -t "$(one_copy)"
	[ "${lines[0]}" = "multipart/mixed charset= cte=" ]
	[ "${lines[1]}" = "  text/plain charset=us-ascii cte=quoted-printable" ]
	[[ "$output" == *"Hi all, the agenda is attached."* ]]
	[[ "$output" == *"  text/plain charset=utf-8 cte=8bit"*"[The list's content filter removed a part of type application/ms-tnef (winmail.dat).]"* ]]
	run -1 grep -q 'eJ8+IhIAAQaQ' "$(one_copy)"
	rm -f "$BATS_TEST_TMPDIR"/s/save/new/*
	printf 'pass_types = text/plain\n' >>"$L/config"
	post "$POSTS/pgp-signed.eml"
	runq
	verify_all
	diff <(sed '1,/^$/d' "$POSTS/pgp-signed.eml") <(body "$(one_copy)")
}

@test "content filter: Apple Mail's inline image is refused by pass_types; filter_action = hold holds the post, reject returns it" {
	printf 'content_filter = yes\npass_types = text/plain\n' >>"$L/config"
	post "$POSTS/apple-inline.eml"
	runq
	verify_all
	run "$MIMESHOW" -t "$(one_copy)"
	[[ "$output" == *"Here it is:"*"removed a part of type image/png (offsite.png)"*"Anna"* ]]
	[ "$(grep -c '^  text/plain' <<<"$output")" -eq 3 ]
	printf 'filter_action = hold\n' >>"$L/config"
	post "$POSTS/apple-inline.eml"
	runq
	[ "$(held)" -eq 1 ]
	[[ "$(held_why)" == *"1 part(s) of a type the list refuses (the first image/png; content_filter)"* ]]
	sed -i 's/^filter_action = hold/filter_action = reject/' "$L/config"
	post "$POSTS/apple-inline.eml"
	runq
	[ "$(held)" -eq 1 ]
	grep -q 'post rejected: 1 part(s) of a type the list refuses' "$BATS_TEST_TMPDIR/run.log"
	grep -q 'to=<sender@users.test>' "$BATS_TEST_TMPDIR/s/log"
}

@test "content filter: convert_html makes an Outlook HTML-only post plain text with libxml2; collapse_alternatives keeps a calendar invitation's plain text and its attachment" {
	printf 'content_filter = yes\nconvert_html = yes\ncollapse_alternatives = yes\n' >>"$L/config"
	cp "$BATS_TEST_TMPDIR/footer.ascii" "$L/footer"
	post "$POSTS/html-only.eml"
	runq
	verify_all
	run "$MIMESHOW" -t "$(one_copy)"
	[ "${lines[0]}" = "text/plain charset=utf-8 cte=quoted-printable" ]
	[ "${lines[2]}" = "Hello list," ]
	[ "${lines[3]}" = "the meeting is at 10"$'\xc2\xa0'"am." ]
	[[ "$output" != *"MsoNormal"* ]]
	[[ "$output" == *"$FOOTER_TEXT"* ]]
	rm -f "$BATS_TEST_TMPDIR"/s/save/new/*
	post "$POSTS/calendar-invite.eml"
	runq
	verify_all
	run "$MIMESHOW" -t "$(one_copy)"
	[ "${lines[0]}" = "multipart/mixed charset= cte=" ]
	[ "${lines[1]}" = "  multipart/mixed charset= cte=" ]
	[ "${lines[2]}" = "    text/plain charset=utf-8 cte=base64" ]
	[ "${lines[4]}" = "Team call" ]
	[[ "$output" == *"    application/ics charset= cte=base64"* ]]
	[[ "$output" != *"text/html"* ]]
	[[ "$output" != *"text/calendar"* ]]
}
