#!/usr/bin/env bats
# Subscriber modes and digests end to end (listfn/digest.c,
# spool-layout/spool_digest*.c): posts collected, issued by size and by
# the hour (a runner whose clock a test can move), each kind of reader
# getting its own; every digest checked by Python's email package
# (t/tools/mj_digestcheck.py) and python3-dkim (mj_dkimverify.py).

load helpers
load request_helpers
load smtp_helpers
bats_require_minimum_version 1.5.0

CHECK=$TOP/t/tools/mj_digestcheck.py
VERIFY=$TOP/t/tools/mj_dkimverify.py

# setup_file - a runner whose clock a test can move (make fault-runner:
# MJQ_TEST_CLOCK_OFFSET, honoured by a test build only)
setup_file() {
	make -s -C "$TOP" fault-runner FAULT_DIR="$BATS_FILE_TMPDIR" >/dev/null
}

setup() {
	MAIL=$BATS_TEST_TMPDIR/mail
	RUNLOG=$BATS_TEST_TMPDIR/runner.log
	mjq_setup <<-EOF
	[dkim]
	sign = yes
	selectors = s1
	[transport_map]
	* = maildir:$MAIL/\${recipient}
	EOF
	mjq_list example.org mylist each@users.test dig@users.test plain@users.test nom@users.test
	SUBS=$LISTS/example.org/mylist/subscribers
	printf 'each@users.test\ndig@users.test digest\nplain@users.test digest-plain\nnom@users.test nomail\n' >"$SUBS"
	# the daily hour twelve hours away: due only when the clock moves
	HOUR=$(((10#$(date +%H) + 12) % 24))
	printf '[list]\nowners = boss@owner.test\nposting = open\ndmarc_mitigation = none\ndigest = yes\ndigest_size = 1m\ndigest_hour = %s\narchive_url = https://arch.example.org/$LIST/\n' \
		"$HOUR" >"$LISTS/example.org/mylist/config"
	KEYS=$LISTS/example.org/.dkim
	"$TOP/scripts/mjq-dkimkey" -C "$CONF" example.org s1 >/dev/null
	DIGEST=$SPOOL/state/digest/example.org/mylist
	MJ_QUEUERUN=$BATS_FILE_TMPDIR/mj_queuerun
	export MJQ_TEST_CLOCK_OFFSET=0
}

teardown() {
	local p
	for p in ${R1:-} ${R2:-}; do
		kill -9 "$p" 2>/dev/null || true
	done
	servers_stop
}

# post N [FROM] - post number N, about 1 KB
post() {
	local from=${2:-poster$1@users.test}
	{
		printf 'From: Poster %s <%s>\nTo: mylist@example.org\nSubject: post %s\nDate: Wed, 25 Nov 2026 10:00:00 +0000\nMessage-ID: <p%s@users.test>\n\n' \
			"$1" "$from" "$1" "$1"
		for i in $(seq 1 14); do printf 'line %02d of post %s: some words to fill the digest\n' "$i" "$1"; done
	} | "$MJ_ENQUEUE" -C "$CONF" -d example.org -l mylist -r -f "$from"
}

# digests ADDR - ADDR's messages, oldest first
digests() {
	ls -tr "$MAIL/$1/new"/* 2>/dev/null
}

# collected - the posts waiting in the collection
collected() {
	find "$DIGEST/posts" -type f 2>/dev/null | wc -l
}

@test "a subscriber in each mode across 30 posts and two digests (by size, then by the hour): MIME and plain, parsed, DKIM-verified" {
	for n in $(seq 1 19); do post "$n"; done
	runq
	[ "$(collected)" -eq 19 ]
	[ "$(mails each@users.test)" -eq 19 ]
	[ "$(mails dig@users.test)" -eq 0 ]
	# the 20th post fills it: an issue by size (one byte more than the
	# 19 hold)
	size=$(cat "$DIGEST"/posts/* | wc -c)
	sed -i "s/^digest_size = .*/digest_size = $((size + 1))/" "$LISTS/example.org/mylist/config"
	post 20
	runq
	[ "$(collected)" -eq 0 ]
	[ "$(mails each@users.test)" -eq 20 ]
	[ "$(mails dig@users.test)" -eq 1 ]
	[ "$(mails plain@users.test)" -eq 1 ]
	grep -q 'mylist@example.org: digest volume 1 issue 1 made: 20 post(s), 1 MIME and 1 plain reader(s)' "$RUNLOG"
	for n in $(seq 21 30); do post "$n"; done
	runq
	[ "$(collected)" -eq 10 ]
	[ "$(mails dig@users.test)" -eq 1 ]
	# a day later the hour has come: the rest
	MJQ_TEST_CLOCK_OFFSET=86400 runq
	[ "$(collected)" -eq 0 ]
	[ "$(mails each@users.test)" -eq 30 ]
	[ "$(mails nom@users.test)" -eq 0 ]
	[ "$(mails dig@users.test)" -eq 2 ]
	[ "$(mails plain@users.test)" -eq 2 ]
	grep -q 'digest volume 1 issue 2 made: 10 post(s)' "$RUNLOG"
	for a in dig@users.test plain@users.test; do
		i=0
		for f in $(digests "$a"); do
			i=$((i + 1))
			run "$VERIFY" -n 1 "$f" "$KEYS"
			[ "$status" -eq 0 ]
			run "$CHECK" "$f"
			[ "$status" -eq 0 ]
			[ "${lines[0]}" = "mylist Digest, Vol 1, Issue $i" ]
			printf '%s\n' "${lines[@]:1}" >>"$BATS_TEST_TMPDIR/$a.posts"
			grep -qx 'List-Id: <mylist.example.org>' "$f"
			grep -qx 'List-Archive: <https://arch.example.org/mylist/>' "$f"
			grep -qx 'From: <mylist-request@example.org>' "$f"
		done
		# every post once, each with its poster (in the order they were
		# collected: a runner takes the posts of one walk in any order)
		[ "$(sort "$BATS_TEST_TMPDIR/$a.posts")" = "$(for n in $(seq 1 30); do echo "Poster $n <poster$n@users.test> | post $n"; done | sort)" ]
		# the first issue has the first 20
		[ "$(head -20 "$BATS_TEST_TMPDIR/$a.posts" | sed 's/.*| post //' | sort -n | tail -1)" -eq 20 ]
	done
	# MIME and plain are told apart
	grep -q '^Content-Type: multipart/digest' "$(digests dig@users.test | head -1)"
	grep -q '^Content-Type: text/plain' "$(digests plain@users.test | head -1)"
	grep -qx 'End of mylist Digest V1 #2' "$(digests plain@users.test | tail -1)"
	[ -z "$(queue_files)" ]
}

# token ACTION ADDR - the moderation token for ACTION in ADDR's newest mail
token() {
	last "$2" | sed -n "s/^$1 \\([0-9a-f]\\{32\\}\\)\$/\\1/p" | head -1
}

@test "notmetoo and digests: a digest reader's own post is in its digest (one text for every reader, as Mailman 3 sends digests to every digest member whatever receive_own_postings says); notmetoo is the each-mode reader's" {
	printf 'me@users.test notmetoo\ndig@users.test digest\nplain@users.test digest-plain\n' >"$SUBS"
	post 1 dig@users.test
	post 2 plain@users.test
	post 3 me@users.test
	post 4
	runq
	MJQ_TEST_CLOCK_OFFSET=86400 runq
	[ "$(collected)" -eq 0 ]
	# notmetoo (each mode): every post but its own, one by one
	[ "$(mails me@users.test)" -eq 3 ]
	run -1 grep -lq '^Subject: .*post 3$' "$MAIL"/me@users.test/new/*
	# the digest readers: one issue each, with every post, their own too
	[ "$(mails dig@users.test)" -eq 1 ]
	[ "$(mails plain@users.test)" -eq 1 ]
	for a in dig@users.test plain@users.test; do
		run "$CHECK" "$(digests "$a")"
		[ "$status" -eq 0 ]
		[ "$(printf '%s\n' "${lines[@]:1}" | sort)" = "$(printf '%s\n' 'Poster 1 <dig@users.test> | post 1' 'Poster 2 <plain@users.test> | post 2' 'Poster 3 <me@users.test> | post 3' 'Poster 4 <poster4@users.test> | post 4' | sort)" ]
	done
}

@test "a held post enters the digest only when approved; a DMARC-munged post keeps its poster's From in the digest" {
	printf '[list]\nowners = boss@owner.test\nposting = subscribers\ndmarc_mitigation = munge\ndigest = yes\ndigest_hour = %s\n' \
		"$HOUR" >"$LISTS/example.org/mylist/config"
	post 1 each@users.test
	post 2 stranger@users.test
	runq
	[ "$(collected)" -eq 1 ]
	[ "$(find "$SPOOL/HOLD" -type f ! -name '.*' | wc -l)" -eq 1 ]
	# the copy of each reader: the list's From (munged)
	last each@users.test | grep -q '^From: .*<mylist@example.org>'
	approve=$(token approve boss@owner.test)
	[ ${#approve} -eq 32 ]
	printf 'From: <boss@owner.test>\nSubject: approve %s\n\n' "$approve" |
		"$MJ_ENQUEUE" -C "$CONF" -d example.org -l mylist -q -f boss@owner.test
	runq
	[ "$(collected)" -eq 2 ]
	[ "$(mails each@users.test)" -eq 2 ]
	MJQ_TEST_CLOCK_OFFSET=86400 runq
	[ "$(collected)" -eq 0 ]
	for a in dig@users.test plain@users.test; do
		f=$(digests "$a")
		[ "$(echo "$f" | wc -l)" -eq 1 ]
		run "$CHECK" "$f"
		[ "$status" -eq 0 ]
		[ "${lines[1]}" = "Poster 1 <each@users.test> | post 1" ]
		[ "${lines[2]}" = "Poster 2 <stranger@users.test> | post 2" ]
		run "$VERIFY" -n 1 "$f" "$KEYS"
		[ "$status" -eq 0 ]
	done
}

@test "DMARC: a post from a p=reject domain, munged for each-mode readers, keeps its poster's address in both digests' entries and tables of contents" {
	printf '_dmarc.strict.test\tTXT\tv=DMARC1; p=reject\n' >"$BATS_TEST_TMPDIR/zone"
	dnsd_start "$BATS_TEST_TMPDIR/zone"
	printf '[delivery]\ndns_server = 127.0.0.1:%s\n' "$DNS_PORT" >>"$CONF"
	# the default mitigation: munge_if_strict
	sed -i '/^dmarc_mitigation/d' "$LISTS/example.org/mylist/config"
	post 1 alice@strict.test
	post 2 bob@users.test
	runq
	grep -q '^_dmarc.strict.test TXT' "$BATS_TEST_TMPDIR/dns/log"
	[ "$(mails each@users.test)" -eq 2 ]
	[ "$(cat "$MAIL/each@users.test/new"/* | grep -c '^From: "Poster 1 via mylist" <mylist@example.org>$')" -eq 1 ]
	MJQ_TEST_CLOCK_OFFSET=86400 runq
	for a in dig@users.test plain@users.test; do
		f=$(digests "$a")
		[ "$(echo "$f" | wc -l)" -eq 1 ]
		# the checker fails a table of contents without each poster's
		# address
		run -0 "$CHECK" "$f"
		[ "$(printf '%s\n' "${lines[@]:1}" | sort)" = $'Poster 1 <alice@strict.test> | post 1\nPoster 2 <bob@users.test> | post 2' ]
		grep -q '^ *[12]\. post 1 (Poster 1 <alice@strict.test>)$' "$f"
		grep -qx 'From: Poster 1 <alice@strict.test>' "$f"
		run ! grep -q 'via mylist' "$f"
		run -0 "$VERIFY" -n 1 "$f" "$KEYS"
	done
}

# post_text FROM - a post from FROM whose header and body are on stdin
post_text() {
	"$MJ_ENQUEUE" -C "$CONF" -d example.org -l mylist -r -f "$1"
}

# issue_of N - the posts $d/1 .. $d/N posted, then issued by the hour:
# the plain and the MIME digest in $p and $m, one each, both DKIM-verified
issue_of() {
	local n
	for n in $(seq 1 "$1"); do post_text "$(sed -n 's/^From: .*<\(.*\)>$/\1/p' "$d/$n")" <"$d/$n"; done
	runq
	[ "$(collected)" -eq "$1" ]
	MJQ_TEST_CLOCK_OFFSET=86400 runq
	p=$(digests plain@users.test)
	m=$(digests dig@users.test)
	[ "$(echo "$p" | wc -l)" -eq 1 ]
	[ "$(echo "$m" | wc -l)" -eq 1 ]
	run -0 "$VERIFY" -n 1 "$p" "$KEYS"
	run -0 "$VERIFY" -n 1 "$m" "$KEYS"
}

# contains FILE PART - FILE holds the body of the post in PART as it is
contains() {
	python3 -c 'import sys
d = open(sys.argv[1], "rb").read()
b = open(sys.argv[2], "rb").read().split(b"\n\n", 1)[1]
sys.exit(0 if b in d else 1)' "$1" "$2"
}

@test "charsets: ISO-8859-1 quoted-printable, UTF-8 base64 and windows-1252 come out right in the plain digest, attachments named, an unknown charset noted; the MIME digest keeps each post as it came" {
	d=$BATS_TEST_TMPDIR/posts
	mkdir "$d"
	printf 'From: Ann <ann@users.test>\nSubject: latin1\nMIME-Version: 1.0\nContent-Type: text/plain; charset=ISO-8859-1\nContent-Transfer-Encoding: quoted-printable\n\nUn caf=E9 cr=E8me, s'"'"'il vous pla=EEt.\n' >"$d/1"
	printf 'From: Bob <bob@users.test>\nSubject: utf8\nMIME-Version: 1.0\nContent-Type: text/plain; charset="utf-8"\nContent-Transfer-Encoding: base64\n\n%s\n' \
		"$(printf 'A na\303\257ve caf\303\251 \342\200\224 \346\227\245\346\234\254\n' | base64 -w0)" >"$d/2"
	printf 'From: Cy <cy@users.test>\nSubject: cp1252\nMIME-Version: 1.0\nContent-Type: text/plain; charset=windows-1252\nContent-Transfer-Encoding: 8bit\n\nPrice: 5 \200, \223quoted\224\n' >"$d/3"
	printf 'From: Di <di@users.test>\nSubject: parts\nMIME-Version: 1.0\nContent-Type: multipart/mixed; boundary="m1"\n\n--m1\nContent-Type: multipart/alternative; boundary="a1"\n\n--a1\nContent-Type: text/plain; charset=utf-8\nContent-Transfer-Encoding: quoted-printable\n\nGr=C3=BC=C3=9Fe\n--a1\nContent-Type: text/html; charset=utf-8\n\n<p>Gr&uuml;&szlig;e</p>\n--a1--\n--m1\nContent-Type: application/pdf; name="report.pdf"\nContent-Disposition: attachment; filename="report.pdf"\nContent-Transfer-Encoding: base64\n\nJVBERi0xLjQKJcOkw7zDtsOfCg==\n--m1--\n' >"$d/4"
	printf 'From: Ed <ed@users.test>\nSubject: unknown\nMIME-Version: 1.0\nContent-Type: text/plain; charset=x-mjq-nothing\n\nok \377 end\n' >"$d/5"
	issue_of 5
	# the plain digest, decoded by Python's email package
	run -0 "$CHECK" -t "$p"
	printf '%s\n' "${lines[@]}" >"$BATS_TEST_TMPDIR/plain.txt"
	for want in "Un café crème, s'il vous plaît." "A naïve café — 日本" \
		"Price: 5 €, “quoted”" "Grüße" "[attachment: report.pdf, application/pdf]" \
		"ok � end" '[The charset "x-mjq-nothing" is unknown here: the text is read as UTF-8.]' \
		"[1 byte(s) not valid in UTF-8 replaced with U+FFFD.]"; do
		grep -qxF -- "$want" "$BATS_TEST_TMPDIR/plain.txt" || { echo "plain digest lacks: $want" >&2; cat "$BATS_TEST_TMPDIR/plain.txt" >&2; return 1; }
	done
	# neither the attachment's base64 nor the HTML twin
	run ! grep -q 'JVBERi0\|<p>\|uuml' "$p"
	# the MIME digest: each post's body as it came, which Python decodes
	# itself
	for n in 1 2 3 4 5; do contains "$m" "$d/$n" || { echo "post $n changed in the MIME digest" >&2; return 1; }; done
	run -0 "$CHECK" -t "$m"
	printf '%s\n' "${lines[@]}" >"$BATS_TEST_TMPDIR/mime.txt"
	for want in "Un café crème, s'il vous plaît." "A naïve café — 日本" "Price: 5 €, “quoted”" "Grüße"; do
		grep -qxF -- "$want" "$BATS_TEST_TMPDIR/mime.txt" || { echo "MIME digest lacks: $want" >&2; return 1; }
	done
}

@test "RFC 2047: a Subject and From in ISO-8859-1, windows-1252 and UTF-8 words (folded, mixed with ASCII, a character split between two words, an unknown charset) read right in both tables of contents and the plain entries" {
	d=$BATS_TEST_TMPDIR/posts
	mkdir "$d"
	# the display name "Zoë “Z” Müller" in windows-1252, B-encoded
	zoe=$(printf 'Zo\353 \223Z\224 M\374ller' | base64 -w0)
	printf 'From: =?windows-1252?b?%s?= <zoe@users.test>\nTo: mylist@example.org\nCc: =?iso-8859-1?q?Andr=E9?= <andre@users.test>\nSubject: =?iso-8859-1?q?Caf=E9_?=\n =?ISO-8859-1?Q?cr=E8me?= and =?utf-8?q?na=C3=AFve?= =?utf-8?b?5pc=?=\n =?utf-8?b?pQ==?=\nMIME-Version: 1.0\nContent-Type: text/plain\n\nfirst\n' \
		"$zoe" >"$d/1"
	printf 'From: =?utf-8?q?J=C3=BCrgen_=E2=80=9Cjay=E2=80=9D?= <jay@users.test>\nSubject: =?windows-1252?q?5_=80_only?= plain\n\nsecond\n' >"$d/2"
	printf 'From: Ed <ed@users.test>\nSubject: =?x-mjq-nothing?q?caf=E9_ok?=\n\nthird\n' >"$d/3"
	issue_of 3
	# Python's email package decodes each post's own fields ("From |
	# Subject") and reads the tables of contents ("subject | author"),
	# which must show the same characters
	for f in "$p" "$m"; do
		run -0 "$CHECK" -c "$f"
		printf '%s\n' "${lines[@]}" >"$BATS_TEST_TMPDIR/check.txt"
		[ "${#lines[@]}" -eq 8 ]
		[ "${lines[4]}" = "--- contents" ]
		for want in "Zoë “Z” Müller <zoe@users.test> | Café crème and naïve日" \
			"Jürgen “jay” <jay@users.test> | 5 € only plain" "Ed <ed@users.test> | caf� ok" \
			"Café crème and naïve日 | Zoë “Z” Müller <zoe@users.test>" \
			"5 € only plain | Jürgen “jay” <jay@users.test>" "caf� ok | Ed <ed@users.test>"; do
			grep -qxF -- "$want" "$BATS_TEST_TMPDIR/check.txt" || { echo "$f lacks: $want" >&2; cat "$BATS_TEST_TMPDIR/check.txt" >&2; return 1; }
		done
	done
	# the plain entries' fields as text, and both bodies say 8bit: the
	# decoded text is UTF-8 though every post came in ASCII
	grep -qxF 'Cc: André <andre@users.test>' "$p"
	grep -qxF 'Subject: Café crème and naïve日' "$p"
	[ "$(grep -c '^Content-Transfer-Encoding: 8bit$' "$p")" -eq 1 ]
	[ "$(grep -c '^Content-Transfer-Encoding: 8bit$' "$m")" -eq 2 ]
}

@test "RFC 2231: attachments named in filename*=charset''..., continued in name*0*= and name*1=, or in RFC 2047 words, are named in the plain digest" {
	d=$BATS_TEST_TMPDIR/posts
	mkdir "$d"
	printf 'From: Di <di@users.test>\nSubject: files\nMIME-Version: 1.0\nContent-Type: multipart/mixed; boundary="m2"\n\n--m2\nContent-Type: text/plain; charset=utf-8\n\nthree files\n--m2\nContent-Type: application/pdf\nContent-Disposition: attachment;\n filename*=utf-8'"''"'na%%C3%%AFve.pdf\nContent-Transfer-Encoding: base64\n\nJVBERi0xLjQK\n--m2\nContent-Type: application/pdf;\n name*0*=iso-8859-1'"''"'r%%E9sum%%E9%%20;\n name*1="2026.pdf"\nContent-Transfer-Encoding: base64\n\nJVBERi0xLjQK\n--m2\nContent-Type: text/csv; name="=?iso-8859-1?q?caf=E9.csv?="\n\na,b\n--m2--\n' >"$d/1"
	issue_of 1
	run -0 "$CHECK" -t "$p"
	[ "${lines[*]:3}" = "three files [attachment: naïve.pdf, application/pdf] [attachment: résumé 2026.pdf, application/pdf] [attachment: café.csv, text/csv]" ]
}

@test "digest = no: nothing is collected, digest and nomail readers get nothing, each readers every post" {
	sed -i 's/^digest = yes/digest = no/' "$LISTS/example.org/mylist/config"
	for n in 1 2 3; do post "$n"; done
	runq
	MJQ_TEST_CLOCK_OFFSET=86400 runq
	[ ! -e "$DIGEST" ]
	[ "$(mails each@users.test)" -eq 3 ]
	[ "$(mails dig@users.test)" -eq 0 ]
	[ "$(mails plain@users.test)" -eq 0 ]
	[ "$(mails nom@users.test)" -eq 0 ]
}

# set_mode ADDR MODE - ADDR sets its mode with the set command and
# confirms it, each step run
set_mode() {
	printf 'From: <%s>\nSubject: commands\n\nset mylist %s\n' "$1" "$2" |
	    "$MJ_ENQUEUE" -C "$CONF" -d example.org -l mylist -q -f "$1"
	runq
	tok=$(token_of "$1")
	[ -n "$tok" ]
	printf 'From: <%s>\nSubject: commands\n\nconfirm %s\n' "$1" "$tok" |
	    "$MJ_ENQUEUE" -C "$CONF" -d example.org -l mylist -q -f "$1"
	runq
	# the reply, and maybe an issue, in either order
	grep -qx "<$1> now gets mylist@example.org as: $2." "$MAIL/$1/new"/*
}

# got ADDR - how ADDR got each post: "each N" or "digest N", one a line,
# by post number
got() {
	local f
	for f in $(digests "$1"); do
		if grep -q '^Subject: mylist Digest, Vol ' "$f"; then
			"$CHECK" "$f" | sed -n '2,$s/.*| post /digest /p'
		else
			sed -n 's/^Subject: \(.*\] \)\{0,1\}post \([0-9]*\)$/each \2/p' "$f"
		fi
	done | sort -k2n
}

# mode_switch_run ADDR MODE - posts 1 and 2, ADDR sets MODE, posts 3 and
# 4, then the digest hour comes
mode_switch_run() {
	post 1
	post 2
	runq
	set_mode "$1" "$2"
	post 3
	post 4
	runq
	MJQ_TEST_CLOCK_OFFSET=86400 runq
	[ "$(collected)" -eq 0 ]
	[ -z "$(queue_files)" ]
	# the readers who stayed as they were: every post once
	[ "$(got plain@users.test)" = "$(printf 'digest %s\n' 1 2 3 4)" ]
}

@test "digest to each between two issues: the posts collected before the switch come in a digest, the rest one by one, each once" {
	mode_switch_run dig@users.test each
	[ "$(got dig@users.test)" = $'digest 1\ndigest 2\neach 3\neach 4' ]
	[ "$(got each@users.test)" = "$(printf 'each %s\n' 1 2 3 4)" ]
	grep -q 'mylist@example.org: digest volume 1 issue 1 made: 2 post(s), 1 MIME and 1 plain reader(s)' "$RUNLOG"
	grep -q 'mylist@example.org: digest volume 1 issue 2 made: 2 post(s), 0 MIME and 1 plain reader(s)' "$RUNLOG"
}

@test "each to digest between two issues: the posts already delivered are not in its digest" {
	mode_switch_run each@users.test digest
	[ "$(got each@users.test)" = $'each 1\neach 2\ndigest 3\ndigest 4' ]
	[ "$(got dig@users.test)" = "$(printf 'digest %s\n' 1 2 3 4)" ]
}

@test "digest to nomail: the digest of what was collected before, then nothing; nomail to digest: the posts after the switch" {
	mode_switch_run dig@users.test nomail
	[ "$(got dig@users.test)" = $'digest 1\ndigest 2' ]
	set_mode nom@users.test digest
	post 5
	runq
	MJQ_TEST_CLOCK_OFFSET=$((2 * 86400)) runq
	[ "$(got nom@users.test)" = 'digest 5' ]
	[ "$(got dig@users.test)" = $'digest 1\ndigest 2' ]
	[ "$(got plain@users.test)" = "$(printf 'digest %s\n' 1 2 3 4 5)" ]
}

# holds_lock PID FILE... - the process PID has one of FILEs open (holds
# its lock or waits for it)
holds_lock() {
	local pid=$1 f l w
	shift
	for f in /proc/"$pid"/fd/*; do
		l=$(readlink "$f" 2>/dev/null) || continue
		for w in "$@"; do
			[ "$l" != "$w" ] || return 0
		done
	done
	return 1
}

@test "a post between its collection and its recipients while its reader leaves the digests in another runner: the post once" {
	# a disabled subscriber, probed as the post goes out: the post's
	# runner waits there for the probes' lock (held here, fd 8), its
	# post collected and its recipients not yet read
	printf 'gone@users.test\n' >>"$SUBS"
	printf 'gone@users.test 1 0 0 - 0 bounces\n' >"$SUBS.disabled"
	printf 'From: <dig@users.test>\nSubject: commands\n\nset mylist each\n' |
	    "$MJ_ENQUEUE" -C "$CONF" -d example.org -l mylist -q -f dig@users.test
	runq
	tok=$(token_of dig@users.test)
	[ -n "$tok" ]
	exec 8>>"$SUBS.disabled.probe.lock"
	flock -n 8
	post 1
	"$MJ_QUEUERUN" -C "$CONF" -1 2>>"$RUNLOG" 3>&- 8>&- &
	R1=$!
	wait_for 60 holds_lock "$R1" "$SUBS.disabled.probe.lock"
	[ "$(collected)" -eq 1 ]
	# the reader confirms each in another runner, which waits for the
	# post to be through (or, without the modes lock, is done)
	printf 'From: <dig@users.test>\nSubject: commands\n\nconfirm %s\n' "$tok" |
	    "$MJ_ENQUEUE" -C "$CONF" -d example.org -l mylist -q -f dig@users.test
	"$MJ_QUEUERUN" -C "$CONF" -1 2>>"$RUNLOG" 3>&- 8>&- &
	R2=$!
	wait_for 60 eval '! alive "$R2" || holds_lock "$R2" "$DIGEST/modes.lock"'
	exec 8>&-
	wait "$R1"
	wait "$R2"
	R1= R2=
	runq
	MJQ_TEST_CLOCK_OFFSET=86400 runq
	grep -qx 'dig@users.test' "$SUBS"
	[ "$(got dig@users.test)" = 'digest 1' ]
	[ "$(got each@users.test)" = 'each 1' ]
	[ "$(got plain@users.test)" = 'digest 1' ]
	[ -z "$(queue_files)" ]
}

@test "a new year starts a new volume at issue 1; the counter file says where the list is" {
	post 1
	runq
	MJQ_TEST_CLOCK_OFFSET=86400 runq
	grep -qx 'issue 1' "$DIGEST/counter"
	grep -qx 'volume 1' "$DIGEST/counter"
	# the counter as a year ago
	sed -i "s/^year .*/year $(($(date +%Y) - 1))/" "$DIGEST/counter"
	post 2
	runq
	MJQ_TEST_CLOCK_OFFSET=86400 runq
	grep -qx 'volume 2' "$DIGEST/counter"
	grep -qx 'issue 1' "$DIGEST/counter"
	last dig@users.test | grep -qx 'Subject: mylist Digest, Vol 2, Issue 1'
	[ ! -e "$DIGEST/issue" ]
}

# Crash points (spool-layout/README, "Digests"): the runner killed
# (SIGKILL, strace's fault injection) as it enters the system call of a
# step, so the step is not done; the next runner must send every post in
# one issue, each kind once.

# three_posts - three posts collected, no issue yet
three_posts() {
	command -v strace >/dev/null || skip "no strace"
	for n in 1 2 3; do post "$n"; done
	runq
	[ "$(collected)" -eq 3 ]
}

# one_issue_each - after the crash, the next runner (a day later, so the
# hour has come): each digest reader got issue 1 once with the three
# posts, and nothing is left behind
one_issue_each() {
	MJQ_TEST_CLOCK_OFFSET=86400 runq
	for a in dig@users.test plain@users.test; do
		[ "$(mails "$a")" -eq 1 ] || { echo "$a: $(mails "$a") digests" >&2; return 1; }
		run "$CHECK" "$(digests "$a")"
		[ "$status" -eq 0 ]
		[ "${lines[0]}" = "mylist Digest, Vol 1, Issue 1" ]
		[ "$(printf '%s\n' "${lines[@]:1}" | sed 's/.*| //' | sort)" = $'post 1\npost 2\npost 3' ]
	done
	[ "$(collected)" -eq 0 ]
	[ ! -e "$DIGEST/issue" ] && [ ! -e "$DIGEST/issue.tmp" ]
	grep -qx 'issue 1' "$DIGEST/counter"
	[ -z "$(find "$SPOOL/QUEUE" -type f)" ] || { find "$SPOOL/QUEUE" -type f >&2; return 1; }
}

# issue_crash CALL PATH - the issuing runner killed at CALL on PATH
issue_crash() {
	MJQ_TEST_CLOCK_OFFSET=86400 crash_at "$1" "$2"
}

@test "crash at D1 (issue.tmp renamed to issue): the issue is made again, nothing was sent" {
	three_posts
	issue_crash rename "$DIGEST/issue.tmp"
	[ -d "$DIGEST/issue.tmp" ] && [ ! -e "$DIGEST/issue" ]
	[ "$(mails dig@users.test)" -eq 0 ]
	one_issue_each
}

@test "crash at D2 (a post's unlink from posts/): the issue goes on, the post in it once" {
	three_posts
	e=$(ls "$DIGEST/posts" | head -1)
	issue_crash unlink "$DIGEST/posts/$e"
	[ -d "$DIGEST/issue" ]
	# that post still there (those before it in the issue may be gone)
	[ -f "$DIGEST/posts/$e" ]
	one_issue_each
}

@test "crash at D3 (the MIME state's link into QUEUE/, then the message's rename, then the staged state's unlink): each kind sent once" {
	three_posts
	issue_crash link "$DIGEST/issue/digest.state"
	[ -f "$DIGEST/issue/digest" ]
	issue_crash rename "$DIGEST/issue/digest"
	# the state linked, its message not: an orphan the walk removes
	[ -f "$DIGEST/issue/digest" ]
	[ "$(find "$SPOOL/QUEUE" -name '.*digest' | wc -l)" -eq 1 ]
	issue_crash unlink "$DIGEST/issue/digest.state"
	# sent: the message is in QUEUE/, no longer in issue/
	[ ! -e "$DIGEST/issue/digest" ]
	[ -f "$DIGEST/issue/digest-plain" ]
	one_issue_each
}

@test "crash at D3 of the plain digest (its message's rename): the MIME one is not sent again" {
	three_posts
	issue_crash rename "$DIGEST/issue/digest-plain"
	[ ! -e "$DIGEST/issue/digest" ]
	[ -f "$DIGEST/issue/digest-plain" ]
	one_issue_each
}

@test "crash at D4 (the counter's rename, then issue/'s removal): no issue twice, the counter right" {
	three_posts
	issue_crash rename "$DIGEST/issue/counter"
	[ -f "$DIGEST/issue/counter" ]
	[ ! -e "$DIGEST/counter" ]
	MJQ_TEST_CLOCK_OFFSET=86400 crash_run -P "$DIGEST/issue" -e trace=rmdir -e inject=rmdir:signal=SIGKILL
	grep -qx 'issue 1' "$DIGEST/counter"
	[ -d "$DIGEST/issue" ]
	one_issue_each
}

@test "crash at C2 (the post's link into posts/) and at P2 (its state file's link, after the collection): the post is collected once, delivered once" {
	command -v strace >/dev/null || skip "no strace"
	post 1
	f=$(queue_files)
	name=$(basename "$f")
	crash_at link "$DIGEST/posts/10-10-$(fnv "$SPOOL/$f")-$name"
	[ "$(collected)" -eq 0 ]
	[ "$(mails each@users.test)" -eq 0 ]
	crash_at link "$SPOOL/QUEUE/10/example.org/10/list/.$name"
	[ "$(collected)" -eq 1 ]
	[ "$(mails each@users.test)" -eq 0 ]
	runq
	[ "$(mails each@users.test)" -eq 1 ]
	[ "$(collected)" -eq 1 ]
	post 2
	post 3
	runq
	one_issue_each
}

@test "footer: \$UNSUBSCRIBE_URL is each maildir copy's own link, signed; the digest's footer has the list's mailto, once" {
	SECRET=$BATS_TEST_TMPDIR/unsubscribe.secret
	printf '[unsubscribe]\nsecret_file = %s\n' "$SECRET" >>"$CONF"
	"$TOP/scripts/mjq-unsubsecret" "$SECRET"
	printf 'unsubscribe_url = https://lists.example.org/u\n' >>"$LISTS/example.org/mylist/config"
	printf 'leave: $UNSUBSCRIBE_URL\n' >"$LISTS/example.org/mylist/footer"
	printf 'each@users.test\nboth@users.test\ndig@users.test digest\n' >"$SUBS"
	for n in 1 2; do post "$n"; done
	runq
	MJQ_TEST_CLOCK_OFFSET=86400 runq
	for a in each@users.test both@users.test; do
		[ "$(mails "$a")" -eq 2 ]
		for f in $(digests "$a"); do
			"$VERIFY" -n 1 "$f" "$KEYS"
			link=$(tr -d '\r' <"$f" | sed -n 's/^List-Unsubscribe: <\([^>]*\)>.*/\1/p')
			[[ "$link" == "https://lists.example.org/u?l=mylist%40example.org&a=${a%@*}%40users.test&"* ]]
			[ "$(tail -1 "$f")" = "leave: $link" ]
		done
	done
	f=$(digests dig@users.test)
	[ "$(mails dig@users.test)" -eq 1 ]
	"$VERIFY" -n 1 "$f" "$KEYS"
	[ "$(grep -c '^leave: ' "$f")" -eq 1 ]
	grep -q '^leave: mailto:majordomo@example.org?body=unsubscribe%20mylist$' "$f"
	grep -q '^List-Unsubscribe: <https://lists.example.org/u?l=mylist%40example.org&a=dig%40users.test&' "$f"
}

@test "footer: each-mode readers get it on every post, a digest carries it once, not once a post" {
	printf 'FOOTER of $LIST: %s\n' 'https://lists.example.org/' >"$LISTS/example.org/mylist/footer"
	for n in 1 2 3; do post "$n"; done
	runq
	MJQ_TEST_CLOCK_OFFSET=86400 runq
	[ "$(mails each@users.test)" -eq 3 ]
	for f in $(digests each@users.test); do
		[ "$(tail -1 "$f")" = "FOOTER of mylist: https://lists.example.org/" ]
		"$VERIFY" -n 1 "$f" "$KEYS"
	done
	for a in dig@users.test plain@users.test; do
		[ "$(mails "$a")" -eq 1 ]
		f=$(digests "$a")
		"$VERIFY" -n 1 "$f" "$KEYS"
		run "$CHECK" -t "$f"
		[ "$status" -eq 0 ]
		[ "${lines[-2]}" = "--- footer" ]
		[ "${lines[-1]}" = "FOOTER of mylist: https://lists.example.org/" ]
		# each post's text once, the footer once
		for n in 1 2 3; do
			[ "$(grep -c "^line 01 of post $n:" "$f")" -eq 1 ]
		done
		[ "$(grep -c '^FOOTER of mylist' "$f")" -eq 1 ]
	done
	# the MIME issue has it as its last part, after the three posts
	python3 - "$(digests dig@users.test)" <<-'PY'
	import email, sys
	m = email.message_from_binary_file(open(sys.argv[1], "rb"))
	parts = m.get_payload()
	assert len(parts) == 5, len(parts)
	last = parts[-1]
	assert last.get_content_type() == "text/plain", last.get_content_type()
	assert last.get_payload(decode=True) == b"FOOTER of mylist: https://lists.example.org/\n", last.get_payload()
	PY
}
