#!/usr/bin/env bats
# t/810-postfix.bats - mjq behind a real MTA: a private Postfix instance on
# loopback whose alias_maps hold the lines mjq-newlist printed, and a
# local user's .forward.  Mail goes in over SMTP; Postfix's local(8) runs
# mj_enqueue as the spool owner; the runner delivers to mj_testsmtpd.
#
# Everything the pipes touch lives under $W, a world-searchable directory
# (bats' own temporary directories are private to root): the user's home,
# mj_enqueue, mjq.conf, the lists and the spool, a small tmpfs that a test
# remounts read-only.  main.cf has the settings of the README's postconf
# step, read from the README, with this instance's paths; among them
# owner_request_special = no: with Postfix's default, the owner-LIST alias
# makes owner-LIST@myorigin the sender of every post (seen in the
# Return-Path).
# The README's own install and Postfix steps, word for word on a private
# copy of the host, are t/820-readme.bats; this file checks the mail path
# in detail.
# slow: a private Postfix instance

load helpers
load smtp_helpers

setup_file() {
	[ "$(id -u)" -eq 0 ] || skip "needs root (Postfix, useradd, tmpfs)"
	command -v postfix >/dev/null || skip "postfix is not installed"
	. "$BATS_TEST_DIRNAME/postfix-instance.sh"
	W=$(mktemp -d /tmp/mjq81.XXXXXX)
	chmod 0755 "$W"
	# the mjq user: spool owner, runs the pipes, has the .forward
	U=mjq81_$$
	useradd -M -d "$W/home" -s /usr/sbin/nologin -U "$U"
	export W U PF=$W/pf PF_PORT
	mkdir -p "$W/home" "$W/sbin" "$W/spool" "$W/lists" "$W/aliases"
	install -m 0755 "$TOP/enqueue/mj_enqueue" "$W/sbin/mj_enqueue"
	mount -t tmpfs -o size=4m,mode=0750 mjq81 "$W/spool"
	mkdir "$W/spool/tmp" "$W/spool/QUEUE"
	chown -R "$U:$U" "$W/home" "$W/spool" "$W/lists" "$W/aliases"
	printf '[spool]\ndir = %s\n[lists]\ndir = %s\n[enqueue]\nstart_server = no\n' \
		"$W/spool" "$W/lists" >"$W/mjq.conf"
	# the lists and their alias lines, as an administrator makes them;
	# "gone" was removed later, its aliases left behind
	{
		"$TOP/scripts/mjq-newlist" -C "$W/mjq.conf" -e "$W/sbin/mj_enqueue" \
			-P 20 -p 30 lists.test mylist owner@sink.test
		"$TOP/scripts/mjq-newlist" -C "$W/mjq.conf" -e "$W/sbin/mj_enqueue" \
			lists.test gone owner@sink.test | grep -v '^majordomo:'
		# a broken alias (no list: 64) and a list with a tiny size limit
		printf 'broken: "|%s -C %s -r -d lists.test"\n' \
			"$W/sbin/mj_enqueue" "$W/mjq.conf"
		printf 'small: "|%s -C %s -r -d lists.test -l mylist"\n' \
			"$W/sbin/mj_enqueue" "$W/small.conf"
	} >"$W/aliases/aliases"
	{ cat "$W/mjq.conf"; printf 'max_message_size = 100\n'; } >"$W/small.conf"
	"$TOP/scripts/mjq-newlist" -C "$W/mjq.conf" -e "$W/sbin/mj_enqueue" \
		lists.test fwdlist owner@sink.test >/dev/null
	rm -r "$W/lists/lists.test/gone"
	# the domain's DKIM key, as an administrator makes it; the posts keep
	# their From (poster@example.net's DMARC policy is not this test's)
	"$TOP/scripts/mjq-dkimkey" -C "$W/mjq.conf" lists.test mjq >/dev/null
	for l in mylist fwdlist; do
		echo 'dmarc_mitigation = none' >>"$W/lists/lists.test/$l/config"
	done
	printf 'a@sink.test\nb@sink.test\n' >"$W/lists/lists.test/mylist/subscribers"
	echo c@sink.test >"$W/lists/lists.test/fwdlist/subscribers"
	# posting policy is t/760's: these lists take posts from anyone
	printf 'posting = open\n' >>"$W/lists/lists.test/mylist/config"
	printf 'posting = open\n' >>"$W/lists/lists.test/fwdlist/config"
	# the .forward of the mjq user, for one list
	printf '"|%s -C %s -r -d lists.test -l fwdlist"\n' "$W/sbin/mj_enqueue" \
		"$W/mjq.conf" >"$W/home/.forward"
	chown "$U:$U" "$W/aliases/aliases" "$W/home/.forward"
	chmod 0644 "$W/home/.forward"
	PF_PORT=$(port_unused)
	# local(8) runs alias commands as the owner of the alias database:
	# the file belongs to the mjq user, so postalias (dropping to the
	# source file's owner) makes aliases.db its too.
	# main.cf as the README's postconf step sets it, with this
	# instance's alias file for /var/lib/mjq/aliases, without the host's
	# /etc/aliases, and lists.test for example.org
	readme_steps | sed -n '/^postconf -e /,/[^\\]$/p' | grep -o "'[^']*'" |
		tr -d "'" | sed -e 's|hash:/etc/aliases, ||' \
		-e "s|/var/lib/mjq/aliases|$W/aliases/aliases|" \
		-e 's/example\.org/lists.test/' >"$W/readme-main.cf"
	cat "$W/readme-main.cf"
	grep -qx "alias_maps = hash:$W/aliases/aliases" "$W/readme-main.cf"
	grep -qx 'owner_request_special = no' "$W/readme-main.cf"
	local cf
	mapfile -t cf <"$W/readme-main.cf"
	pf_create "$PF" "$PF_PORT" \
		"myhostname = pf.test" \
		"${cf[@]}" \
		"local_recipient_maps = proxy:unix:passwd.byname \$alias_maps" \
		"allow_mail_to_commands = alias, forward" \
		"default_transport = discard" \
		"biff = no" >"$W/pf-create.log" 2>&1
	# the README's newaliases, for this instance
	newaliases -C "$PF/etc"
	[ "$(stat -c %U "$W/aliases/aliases.db")" = "$U" ]
	pf_start "$PF"
}

teardown_file() {
	[ -n "${W:-}" ] || return 0
	. "$BATS_TEST_DIRNAME/postfix-instance.sh"
	pf_stop "$PF"
	mountpoint -q "$W/spool" && umount "$W/spool"
	userdel "$U" 2>/dev/null
	getent group "$U" >/dev/null && groupdel "$U"
	rm -rf "$W"
}

setup() {
	# the runner runs as the mjq user, which may not reach the checkout
	user_programs
	SPOOL=$W/spool
	CONF=$W/mjq.conf
	# this test's sink for every list delivery
	smtpd_start sink
	cp "$W/mjq.conf" "$BATS_TEST_TMPDIR/run.conf"
	printf '[transport_map]\n* = smtp:[127.0.0.1]:%s\n' "$PORT" \
		>>"$BATS_TEST_TMPDIR/run.conf"
	chmod 0644 "$BATS_TEST_TMPDIR/run.conf"
	cp "$BATS_TEST_TMPDIR/run.conf" "$W/run.conf"
	maillog_mark
}

teardown() {
	servers_stop
	# a test that relayed through this instance (transport_maps) undoes it
	if [ -n "$(postconf -c "$PF/etc" -nh transport_maps)" ]; then
		postconf -c "$PF/etc" -X transport_maps
		postfix -c "$PF/etc" reload >/dev/null 2>&1
	fi
	mountpoint -q "$W/spool" && mount -o remount,rw "$W/spool"
	# each test starts with an empty spool and a quiet Postfix queue
	find "$W/spool/QUEUE" "$W/spool/tmp" -mindepth 1 -delete
	timeout 10 postsuper -c "$PF/etc" -d ALL >/dev/null 2>&1 || true
}

# submit RCPT FILE - FILE from poster@example.net to RCPT over SMTP to
# the Postfix instance
submit() {
	"$MJ_SMTPTRY" -H 127.0.0.1 -p "$PF_PORT" -t 10000 -f poster@example.net \
		-r "$1" -m "$2" >"$BATS_TEST_TMPDIR/smtptry.out" 2>&1
}

# maillog_mark - from here on, maillog_has and maillog_new see only
# what Postfix logs after this point (the log is shared by the tests)
maillog_mark() {
	MARK=$(wc -l <"$PF/maillog")
}

# maillog_new - the lines logged since maillog_mark
maillog_new() {
	tail -n +"$((MARK + 1))" "$PF/maillog"
}

# maillog_has REGEX - Postfix logged a line matching REGEX since the mark
maillog_has() {
	maillog_new | grep -qE "$1"
}

# run_runner - one pass of mj_queuerun as the spool owner
run_runner() {
	timeout 60 runuser -u "$U" -- "$MJ_QUEUERUN" -C "$W/run.conf" -1 \
		2>>"$BATS_TEST_TMPDIR/run.log"
}

# message FILE TAG - a post that exercises the transparency of the path:
# folded header, dots, a From_ line in the body, trailing blanks, a tab,
# 8-bit text, a long line and an empty last line
message() {
	{
		printf 'From: Poster <poster@example.net>\n'
		printf 'To: mylist@lists.test\n'
		printf 'Subject: transparency %s\n' "$2"
		printf 'Date: Sat, 21 Nov 2026 10:00:00 +0000\n'
		printf 'Message-ID: <%s@example.net>\n' "$2"
		printf 'X-Folded: first part\n\tsecond part\n'
		printf 'MIME-Version: 1.0\n'
		printf 'Content-Type: text/plain; charset=utf-8\n'
		printf 'Content-Transfer-Encoding: 8bit\n'
		printf '\n'
		printf 'line one\n.\n..two dots\n.leading dot\n'
		printf 'From the body, not an envelope\n'
		printf 'trailing blanks   \n\ttab first\n'
		printf 'caf\xc3\xa9 \xe2\x82\xac\n'
		printf '%0900d\n' 0
		printf '\n'
	} >"$1"
}

@test "a post through Postfix's local(8) lands in QUEUE with function, priorities and Return-Path" {
	message "$BATS_TEST_TMPDIR/post" p1
	submit mylist@lists.test "$BATS_TEST_TMPDIR/post"
	wait_for 20 maillog_has 'to=<mylist@lists.test>.*status=sent \(delivered to command'
	run queue_files
	[ "${#lines[@]}" -eq 1 ]
	[[ "${lines[0]}" =~ ^QUEUE/20/lists.test/30/list/[A-X][A-Z][A-Z]-[0-9]+-mylist$ ]]
	f=$SPOOL/${lines[0]}
	# written by the mjq user, as the runners need
	[ "$(stat -c '%U %a' "$f")" = "$U 640" ]
	# local(8)'s own header lines on top; mj_enqueue adds no second
	# Return-Path and drops the From_ line
	[ "$(sed -n 1,3p "$f")" = "$(printf '%s\n' 'Return-Path: <poster@example.net>' \
		'X-Original-To: mylist@lists.test' 'Delivered-To: mylist@lists.test')" ]
	[ "$(grep -c '^Return-Path:' "$f")" -eq 1 ]
	# the only From_ line left is the body's own
	[ "$(grep -c '^From ' "$f")" -eq 1 ]
	grep -qx 'From the body, not an envelope' "$f"
}

@test "a post through Postfix reaches every subscriber, byte for byte apart from the headers added on the way" {
	message "$BATS_TEST_TMPDIR/post" p2
	submit mylist@lists.test "$BATS_TEST_TMPDIR/post"
	wait_for 20 maillog_has 'to=<mylist@lists.test>.*status=sent \(delivered to command'
	run_runner
	[ "$(sed 's/^[^ ]* [^ ]* //' "$BATS_TEST_TMPDIR/sink/log" | sort)" = "$(printf '%s\n' \
		'from=<mylist-owner@lists.test> to=<a@sink.test>' \
		'from=<mylist-owner@lists.test> to=<b@sink.test>')" ]
	[ -z "$(queue_files)" ]
	# one message for both (same destination): compare it with the post
	f=$(find "$BATS_TEST_TMPDIR/sink/save/new" -type f)
	[ "$(echo "$f" | wc -l)" -eq 1 ]
	# signed and ARC-sealed with the domain's key: python3-dkim checks
	# both, then the ARC set and the signature on top (each field a first
	# line and its continuation lines) go
	"$TOP/t/tools/mj_dkimverify.py" -n 1 "$f" "$W/lists/lists.test/.dkim"
	"$TOP/t/tools/mj_arcverify.py" "$f" "$W/lists/lists.test/.dkim"
	sed 's/\r$//' "$f" | awk 'NR == 1 && !/^ARC-Seal: / { exit 1 }
		!done && /^(ARC-[A-Za-z-]+|DKIM-Signature): / { next }
		!done && /^[ \t]/ { next } { done = 1; print }' \
		>"$BATS_TEST_TMPDIR/got"
	# On top, exactly: the list's headers, then local(8)'s Delivered-To
	# (its Return-Path is replaced by the list's envelope), then Postfix
	# smtpd's Received field; then the post itself, unchanged.
	cat >"$BATS_TEST_TMPDIR/top" <<-'EOF'
	List-Id: <mylist.lists.test>
	List-Post: <mailto:mylist@lists.test>
	List-Help: <mailto:majordomo@lists.test?subject=help>
	List-Unsubscribe: <mailto:majordomo@lists.test?body=unsubscribe%20mylist>
	List-Subscribe: <mailto:majordomo@lists.test?body=subscribe%20mylist>
	List-Owner: <mailto:mylist-owner@lists.test>
	Precedence: list
	X-Loop: mylist@lists.test
	X-Original-To: mylist@lists.test
	Delivered-To: mylist@lists.test
	EOF
	n=$(wc -l <"$BATS_TEST_TMPDIR/top")
	diff -u "$BATS_TEST_TMPDIR/top" <(head -n "$n" "$BATS_TEST_TMPDIR/got")
	tail -n +"$((n + 1))" "$BATS_TEST_TMPDIR/got" >"$BATS_TEST_TMPDIR/rest"
	# then one Received field (a first line and its continuation lines),
	# Postfix smtpd's own
	awk 'NR == 1 || (!body && /^[ \t]/) { print; next } { body = 1 }' \
		"$BATS_TEST_TMPDIR/rest" | tr '\n' ' ' >"$BATS_TEST_TMPDIR/received"
	re='^Received: from [^ ]+ \([^)]*\[127\.0\.0\.1\]\)[[:space:]]+by pf\.test \(Postfix\) with ESMTP id [0-9A-F]+[[:space:]]+for <mylist@lists\.test>; [^;]+ $'
	[[ "$(cat "$BATS_TEST_TMPDIR/received")" =~ $re ]]
	awk 'NR == 1 || (!body && /^[ \t]/) { next } { body = 1; print }' \
		"$BATS_TEST_TMPDIR/rest" >"$BATS_TEST_TMPDIR/rest2"
	# and the rest is the post, byte for byte
	cmp "$BATS_TEST_TMPDIR/post" "$BATS_TEST_TMPDIR/rest2"
}

@test "an alias whose list is gone: mj_enqueue answers 67 and Postfix bounces" {
	message "$BATS_TEST_TMPDIR/post" p3
	submit gone@lists.test "$BATS_TEST_TMPDIR/post"
	wait_for 20 maillog_has 'to=<gone@lists.test>.* status=bounced'
	# 67 is EX_NOUSER: local(8) says "user unknown" and bounces at once,
	# with mj_enqueue's one line of stderr
	maillog_new | grep -qF "to=<gone@lists.test>, relay=local, "
	maillog_new | grep -qE 'to=<gone@lists\.test>, .*, dsn=5\.1\.1, status=bounced \(user unknown\. Command output: mj_enqueue: no such list gone@lists\.test \)$'
	# the bounce goes to the poster (owner_request_special = no)
	wait_for 20 maillog_has 'postfix/discard\[.*to=<poster@example\.net>, .*status=sent'
	[ -z "$(queue_files)" ]
}

@test "a broken alias (64) and an oversized message (65) bounce at once" {
	message "$BATS_TEST_TMPDIR/post" p6
	submit broken@lists.test "$BATS_TEST_TMPDIR/post"
	submit small@lists.test "$BATS_TEST_TMPDIR/post"
	wait_for 20 maillog_has 'to=<broken@lists.test>.* status=bounced'
	wait_for 20 maillog_has 'to=<small@lists.test>.* status=bounced'
	maillog_new | grep -qE 'to=<broken@lists\.test>, .*, dsn=5\.3\.0, status=bounced \(command line usage error\. Command output: mj_enqueue: missing -l list usage: mj_enqueue '
	maillog_new | grep -qE 'to=<small@lists\.test>, .*, dsn=5\.6\.0, status=bounced \(data format error\. Command output: mj_enqueue: message larger than max_message_size \(100 bytes\) \)$'
	[ -z "$(queue_files)" ]
}

@test "a read-only spool makes Postfix defer (75); the mail arrives once the spool is writable" {
	mount -o remount,ro "$W/spool"
	message "$BATS_TEST_TMPDIR/post" p4
	submit mylist@lists.test "$BATS_TEST_TMPDIR/post"
	wait_for 20 maillog_has 'to=<mylist@lists.test>.* status=deferred'
	maillog_new | grep -qE 'to=<mylist@lists.test>.* dsn=4\.3\.0, status=deferred \(temporary failure\. Command output: mj_enqueue: cannot create spool file tmp/[^ ]*: Read-only file system \)$'
	[ -z "$(queue_files)" ]
	# Postfix holds it
	[ "$(postqueue -c "$PF/etc" -j | wc -l)" -eq 1 ]
	mount -o remount,rw "$W/spool"
	maillog_mark
	postqueue -c "$PF/etc" -f
	wait_for 20 maillog_has 'to=<mylist@lists.test>.*status=sent \(delivered to command'
	run queue_files
	[ "${#lines[@]}" -eq 1 ]
	[[ "${lines[0]}" =~ ^QUEUE/20/lists.test/30/list/ ]]
	grep -qx 'Message-ID: <p4@example.net>' "$SPOOL/${lines[0]}"
	run_runner
	[ "$(wc -l <"$BATS_TEST_TMPDIR/sink/log")" -eq 2 ]
}

@test "the mjq user's .forward pipe queues a post for its list" {
	message "$BATS_TEST_TMPDIR/post" p5
	submit "$U@lists.test" "$BATS_TEST_TMPDIR/post"
	wait_for 20 maillog_has "to=<$U@lists.test>.*status=sent \\(delivered to command"
	run queue_files
	[ "${#lines[@]}" -eq 1 ]
	[[ "${lines[0]}" =~ ^QUEUE/10/lists.test/10/list/[A-X][A-Z][A-Z]-[0-9]+-fwdlist$ ]]
	f=$SPOOL/${lines[0]}
	[ "$(stat -c '%U %a' "$f")" = "$U 640" ]
	[ "$(sed -n 1,3p "$f")" = "$(printf '%s\n' 'Return-Path: <poster@example.net>' \
		"X-Original-To: $U@lists.test" "Delivered-To: $U@lists.test")" ]
	run_runner
	[ "$(sed 's/^[^ ]* [^ ]* //' "$BATS_TEST_TMPDIR/sink/log")" = \
		'from=<fwdlist-owner@lists.test> to=<c@sink.test>' ]
	[ -z "$(queue_files)" ]
}

# relay_to DOMAIN PORT - the instance relays DOMAIN to 127.0.0.1:PORT
relay_to() {
	postconf -c "$PF/etc" -e "transport_maps = inline:{$1=smtp:[127.0.0.1]:$2}"
	postfix -c "$PF/etc" reload >/dev/null 2>&1
	wait_for 20 maillog_has 'reload -- version'
}

@test "Postfix's own bounces to <list>-owner: a 5.7.1 policy rejection counts nothing against the subscriber, a 5.1.1 counts" {
	# the subscribers' server refuses a@ for a blocklisting, b@ as unknown
	smtpd_start remote \
		--rcpt 'a@sink.test=554 5.7.1 Service unavailable; Client host [127.0.0.1] blocked using zen.spamhaus.org' \
		--rcpt 'b@sink.test=550 5.1.1 <b@sink.test>: Recipient address rejected: User unknown in local recipient table'
	relay_to sink.test "$PORT"
	# mail from the list's owner address (as a relay that took a post
	# and failed later would have it), to each subscriber: Postfix's
	# smtp(8) hears the refusal and its bounce(8) sends the DSN to
	# mylist-owner, whose alias hands it to mj_enqueue
	printf 'From: mylist-owner@lists.test\nSubject: a post\n\nhello\n' \
		>"$BATS_TEST_TMPDIR/m"
	for r in a@sink.test b@sink.test; do
		"$MJ_SMTPTRY" -H 127.0.0.1 -p "$PF_PORT" -t 10000 \
			-f mylist-owner@lists.test -r "$r" -m "$BATS_TEST_TMPDIR/m" \
			>>"$BATS_TEST_TMPDIR/smtptry.out" 2>&1
	done
	wait_for 20 maillog_has 'to=<a@sink\.test>, relay=127\.0\.0\.1.*dsn=5\.7\.1, status=bounced'
	wait_for 20 maillog_has 'to=<b@sink\.test>, relay=127\.0\.0\.1.*dsn=5\.1\.1, status=bounced'
	wait_for 20 eval '[ "$(maillog_new | grep -c "to=<mylist-owner@lists.test>.*status=sent (delivered to command")" -eq 2 ]'
	run queue_files
	[ "${#lines[@]}" -eq 2 ]
	[[ "${lines[0]}" =~ ^QUEUE/[0-9]+/lists.test/[0-9]+/owner/[A-X][A-Z][A-Z]-[0-9]+-mylist$ ]]
	run_runner
	[ -z "$(queue_files)" ]
	cat "$BATS_TEST_TMPDIR/run.log"
	grep -q 'bounce for <a@sink.test> on mylist@lists.test: policy, not counted' "$BATS_TEST_TMPDIR/run.log"
	grep -q 'bounce for <b@sink.test> on mylist@lists.test: recipient, counted, score 1.00 of 5.00' "$BATS_TEST_TMPDIR/run.log"
	bounces=$W/lists/lists.test/mylist/bounces
	[ "$(awk '{print $1}' "$bounces")" = b@sink.test ]
	# both judged, for the operator; nothing forwarded to the owners
	[ "$(cat "$SPOOL/state/bounce-counts")" = "mylist@lists.test 1 0 1 0 0 0" ]
	[ ! -s "$BATS_TEST_TMPDIR/sink/log" ]
	rm -f "$bounces" "$SPOOL/state/bounce-counts"
}
