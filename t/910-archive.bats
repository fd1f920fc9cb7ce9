#!/usr/bin/env bats
# The list's web archive end to end (archive/, listfn/archive_post.c,
# spool-layout/spool_archive.c): a post through mj_enqueue and the runner
# is in the archive's index and on its pages within seconds, at the
# address its delivered copy's Archived-At names; hostile posts render
# as text and write nothing outside the archive; a crash between the
# numbered states (archive/README, A1-A4) neither loses nor doubles one.
# slow: 10,000 replies to one post, and a browser

load helpers
load smtp_helpers
bats_require_minimum_version 1.5.0

MJ_ARCHIVE=$TOP/archive/mj_archive

setup() {
	MAIL=$BATS_TEST_TMPDIR/mail
	RUNLOG=$BATS_TEST_TMPDIR/runner.log
	ARCH=$BATS_TEST_TMPDIR/archive
	WEB=$BATS_TEST_TMPDIR/www
	mjq_setup <<-EOF
	[transport_map]
	* = maildir:$MAIL/\${recipient}
	[archive]
	dir = $ARCH
	public_dir = $WEB
	EOF
	mjq_list example.org mylist each@users.test
	printf '[list]\nposting = open\ndmarc_mitigation = none\narchive_web = yes\narchive_url = https://arch.example.org/$LIST/\narchived_at_url = https://arch.example.org/$LIST/msg/$MSGID/\n' \
		>"$LISTS/example.org/mylist/config"
	W=$WEB/example.org/mylist
	INBOX=$SPOOL/state/archive/example.org/mylist/posts
	DB=$ARCH/example.org/mylist/archive.sqlite
}

teardown() {
	[ -z "${WEB_PID:-}" ] || stop_pid "$WEB_PID"
	servers_stop
}

# post FILE-OR-STDIN - a post from alice through mj_enqueue
post() {
	"$MJ_ENQUEUE" -C "$CONF" -d example.org -l mylist -r -f alice@users.test
}

# simple N [REFS] - a plain post number N (Message-ID <pN@users.test>)
simple() {
	printf 'From: Alice Example <alice@users.test>\nTo: mylist@example.org\nSubject: %s\nDate: Wed, 25 Nov 2026 10:%02d:00 +0000\nMessage-ID: <p%s@users.test>\n%s\nhello number %s\n' \
		"${3:-post $1}" "$(($1 % 60))" "$1" "${2:+References: $2
In-Reply-To: ${2##* }
}" "$1" | post
}

# archived - the posts in the index (read once mj_archive is done: a
# reader polling a database being made would only slow it down)
archived() {
	sqlite3 "$DB" 'SELECT count(*) FROM msg'
}

# drained - the inbox is empty and the pages written (no dirty rows
# left, no mj_archive holding the lock)
drained() {
	[ -z "$(ls -A "$INBOX" 2>/dev/null)" ] && [ -e "$DB" ] &&
		flock -n "$INBOX/../lock" true
}

# page_of FILE - the page the Archived-At of a delivered copy names
page_of() {
	local url
	url=$(sed -n 's/^Archived-At: <\(.*\)>$/\1/p' "$1")
	[ -n "$url" ] || return 1
	url=${url#https://arch.example.org/mylist/}
	printf '%s/%sindex.html\n' "$W" "$(printf '%b' "${url//%/\\x}")"
}

@test "a post through mj_enqueue and the runner: on its page within 5 s, where the delivered copy's Archived-At points; the index, month, thread, feed and mbox have it" {
	simple 1
	runq
	f=$(ls "$MAIL/each@users.test/new/"*)
	p=$(page_of "$f")
	wait_for 5 test -s "$p"
	grep -q '<h1>post 1</h1>' "$p"
	grep -q 'hello number 1' "$p"
	grep -q 'alice <span class="at">at</span> users.test' "$p"
	run -1 grep -q 'alice@users.test' "$p"
	wait_for 10 drained
	[ "$(archived)" -eq 1 ]
	[ -z "$(ls -A "$INBOX")" ]
	grep -q 'href="../msg/p1@users.test/index.html">post 1</a>' "$W/2026-11/index.html"
	grep -q 'href="../msg/p1@users.test/index.html">post 1</a>' "$W/2026-11/date.html"
	grep -q '<title>post 1</title>' "$W/feed.atom"
	grep -q '^From alice@users.test ' "$W/2026-11/2026-11.mbox"
	grep -q '2026-11</a> <span class="n">1 post</span>' "$W/index.html"
	grep -q 'href="msg/p1@users.test/index.html"' "$W/index.html"
	t=$(sqlite3 "$DB" 'SELECT thread FROM msg')
	grep -q 'post 1' "$W/t/$t.html"
	test -s "$W/style.css"
}

# outside - the files of this test's tree outside the spool, the lists,
# the archive's directories and the delivered mail
outside() {
	find "$BATS_TEST_TMPDIR" -path "$SPOOL" -prune -o -path "$LISTS" -prune \
		-o -path "$ARCH" -prune -o -path "$WEB" -prune -o -path "$MAIL" -prune \
		-o -type f -newer "$CONF" -print | grep -v '\.log$' || true
}

@test "hostile posts: <script> in the Subject, From name, body, an attachment's name and an HTML-only post run nowhere; a Message-ID with / .. quotes and 1,000 characters makes no path" {
	long=$(printf 'x%.0s' $(seq 1 1000))
	printf 'From: "<script>alert(1)</script>" <alice@users.test>\nSubject: <script>alert(2)</script> & "quotes"\nDate: Wed, 25 Nov 2026 10:00:00 +0000\nMessage-ID: <../../../../x/"a'"'"'b"/%s@users.test>\nMIME-Version: 1.0\nContent-Type: multipart/mixed; boundary="b"\n\n--b\nContent-Type: text/plain; charset=iso-8859-1\nContent-Transfer-Encoding: quoted-printable\n\n<script>alert(3)</script> caf=E9 <img src=x onerror=alert(4)>\n> quoted <b>line</b>\nsee https://example.net/a?b=1&c=2"onmouseover=alert(5) and bob@users.test\n--b\nContent-Type: text/html; name="<script>alert(6)</script>.html"\nContent-Disposition: attachment; filename="<script>alert(6)</script>.html"\n\n<script>alert(7)</script>\n--b--\n' "$long" | post
	printf 'From: Bob <bob@users.test>\nSubject: html only\nDate: Wed, 25 Nov 2026 11:00:00 +0000\nMessage-ID: <h1@users.test>\nMIME-Version: 1.0\nContent-Type: text/html; charset=utf-8\n\n<html><head><title>T</title><script>alert(8)</script><style>p{}</style></head><body><p onclick="alert(9)">Hello <b>bold</b> <a href="https://example.org/x">link</a></p><iframe src="https://evil.test/"></iframe><img src="https://evil.test/t.gif"></body></html>\n' | post
	runq
	wait_for 10 drained
	[ "$(archived)" -eq 2 ]
	# nothing from a post is markup on any page or in the feed
	run grep -rIiP '<(script|img|iframe|style|b>)|<[^>]*\son[a-z]+\s*=|(alice|bob)@users' --exclude='*.bin' --exclude='*.mbox' "$W"
	echo "$output"
	[ "$status" -eq 1 ]
	for f in $(ls "$MAIL/each@users.test/new/"*); do
		p=$(page_of "$f")
		[ -s "$p" ]
	done
	# the long, hostile id is a hashed name under msg/, nothing above it
	[ "$(ls "$W/msg" | grep -c '^_[0-9a-f]\{16\}$')" -eq 1 ]
	h=$W/msg/$(ls "$W/msg" | grep '^_')
	grep -q '&lt;script&gt;alert(2)&lt;/script&gt; &amp; &quot;quotes&quot;' "$h/index.html"
	grep -q '&lt;script&gt;alert(1)&lt;/script&gt;' "$h/index.html"
	grep -q '&lt;script&gt;alert(3)&lt;/script&gt; café' "$h/index.html"
	grep -q '<blockquote class="q1">&gt; quoted &lt;b&gt;line&lt;/b&gt;' "$h/index.html"
	grep -q '<a rel="nofollow noopener" href="https://example.net/a?b=1&amp;c=2">' "$h/index.html"
	grep -q 'bob <span class="at">at</span> users.test' "$h/index.html"
	grep -q 'download="&lt;script&gt;alert(6)&lt;/script&gt;.html"' "$h/index.html"
	[ "$(cat "$h/att-1.bin")" = "<script>alert(7)</script>" ]
	grep -q "Content-Security-Policy\" content=\"default-src 'none'" "$h/index.html"
	# the HTML-only post is shown by its text
	grep -q 'Hello bold link &lt;<a rel="nofollow noopener" href="https://example.org/x">https://example.org/x</a>&gt;' "$W/msg/h1@users.test/index.html"
	run -1 grep -q 'alert\|evil.test\|p{}' "$W/msg/h1@users.test/index.html"
	# no file was made anywhere else
	[ -z "$(outside)" ]
	[ ! -e "$BATS_TEST_TMPDIR/x" ] && [ ! -e "$WEB/x" ] && [ ! -e "$W/x" ]
}

# inbox NAME - stdin into the list's archive inbox as the runner would
# have collected it (A1), named NAME (a queue name)
inbox() {
	mkdir -p "$INBOX"
	cat >"$INBOX/10-10-$(printf '%016x' $((RANDOM * 32768 + RANDOM)))-$1"
}

# msg ID SUBJECT [REFS] - a post from alice, Message-ID <ID@users.test>
msg() {
	printf 'From: Alice <alice@users.test>\nSubject: %s\nDate: Wed, 25 Nov 2026 12:00:00 +0000\nMessage-ID: <%s@users.test>\n%s\nbody of %s\n' \
		"$2" "$1" "${3:+References: $3
}" "$1"
}

# archive_run - mj_archive run on the list, as the runner starts it
archive_run() {
	timeout "${ARCHIVE_TIMEOUT:-60}" "$MJ_ARCHIVE" -C "$CONF" run example.org mylist
}

# q SQL - one answer from the index
q() {
	sqlite3 "$DB" "$1"
}

@test "threads: a reply that comes before its parent joins it when it comes; Subject alone joins a reply to its thread; a loop of references is cut" {
	msg b 'Re: topic' '<a@users.test>' | inbox AAA-1-mylist
	archive_run
	tb=$(q "SELECT thread FROM msg WHERE msgid = 'b@users.test'")
	[ "$(q "SELECT parent IS NULL FROM msg WHERE msgid = 'b@users.test'")" = 1 ]
	grep -q 'Re: topic' "$W/t/$tb.html"
	msg a 'topic' | inbox AAB-1-mylist
	archive_run
	ta=$(q "SELECT thread FROM msg WHERE msgid = 'a@users.test'")
	[ "$(q "SELECT p.msgid FROM msg m JOIN msg p ON p.id = m.parent WHERE m.msgid = 'b@users.test'")" = a@users.test ]
	[ "$(q "SELECT thread FROM msg WHERE msgid = 'b@users.test'")" = "$ta" ]
	# b's old thread page sends readers to a's; a's page lists b
	grep -q "href=\"$ta.html\"" "$W/t/$tb.html"
	grep -q '<h2>Replies</h2>' "$W/msg/a@users.test/index.html"
	grep -q 'href="../../msg/b@users.test/index.html">Re: topic</a>' "$W/msg/a@users.test/index.html"
	grep -q 'In reply to' "$W/msg/b@users.test/index.html"
	# nested on the thread page
	grep -q '<ul><li><a href="../msg/b@users.test/index.html">' "$W/t/$ta.html"
	# Subject alone: "Re: Topic" without references joins a's thread
	msg c 'RE: [mylist] Topic' | inbox AAC-1-mylist
	archive_run
	[ "$(q "SELECT thread FROM msg WHERE msgid = 'c@users.test'")" = "$ta" ]
	# a loop: x references y, y references x
	msg x 'loop' '<y@users.test>' | inbox AAD-1-mylist
	msg y 'Re: loop' '<x@users.test>' | inbox AAE-1-mylist
	archive_run
	[ "$(q "SELECT count(*) FROM msg WHERE msgid IN ('x@users.test', 'y@users.test')")" -eq 2 ]
	[ "$(q "SELECT count(DISTINCT thread) FROM msg WHERE msgid IN ('x@users.test', 'y@users.test')")" -eq 1 ]
	# no post is its own ancestor: one of the two has no parent
	[ "$(q "SELECT count(*) FROM msg WHERE msgid IN ('x@users.test', 'y@users.test') AND parent IS NULL")" -eq 1 ]
	[ "$(q "SELECT count(*) FROM dirty")" -eq 0 ]
	[ -z "$(ls -A "$INBOX")" ]
}

@test "10,000 replies to one post, all before it: one thread when it comes, its page lists max_replies of them, the thread in pages of 100 and the month in pages of 500 with prev/next links; a post's page links to its thread page; one more reply writes only the last pages" {
	ARCHIVE_TIMEOUT=600
	mkdir -p "$INBOX"
	awk -v d="$INBOX" 'BEGIN { for (i = 1; i <= 10000; i++) {
		f = sprintf("%s/10-10-%016x-r%d", d, i, i)
		printf "From: R%d <r%d@users.test>\nSubject: Re: root\nDate: Wed, 25 Nov 2026 12:00:00 +0000\nMessage-ID: <r%d@users.test>\nIn-Reply-To: <root@users.test>\nReferences: <root@users.test>\n\nreply %d\n", i, i, i, i >f
		close(f) } }'
	archive_run
	[ "$(q 'SELECT count(*) FROM msg')" -eq 10000 ]
	msg root 'root' | inbox AAA-2-mylist
	archive_run
	t=$(q "SELECT thread FROM msg WHERE msgid = 'root@users.test'")
	[ "$(q "SELECT count(*) FROM msg WHERE thread = $t")" -eq 10001 ]
	[ "$(q "SELECT count(*) FROM msg m JOIN msg p ON p.id = m.parent WHERE p.msgid = 'root@users.test'")" -eq 10000 ]
	# 10,001 posts: 101 pages of at most 100, in arrival order
	[ "$(ls "$W/t" | grep -c "^$t\(-[0-9]*\)\?\.html\$")" -eq 101 ]
	[ "$(cat "$W/t/$t.html" "$W"/t/"$t"-*.html | grep -o '<li><a href="../msg/r\?[0-9a-z]*@users.test/index.html">' | sort -u | wc -l)" -eq 10001 ]
	for f in "$W/t/$t.html" "$W/t/$t-2.html" "$W/t/$t-101.html"; do
		[ "$(grep -o '<li><a href="../msg/' "$f" | wc -l)" -le 100 ]
	done
	grep -q '<h1>root</h1>' "$W/t/$t-2.html"
	grep -q "<a rel=\"next\" href=\"$t-2.html\">" "$W/t/$t.html"
	run -1 grep -q 'rel="prev"' "$W/t/$t.html"
	grep -q "<a rel=\"prev\" href=\"$t-100.html\">" "$W/t/$t-101.html"
	run -1 grep -q 'rel="next"' "$W/t/$t-101.html"
	[ ! -e "$W/t/$t-102.html" ]
	# a post's page links to the thread's page it is on
	tp=$(grep -o 'href="../../t/[0-9-]*.html"' "$W/msg/r5000@users.test/index.html" | sed 's/^href="..\/..\///; s/"$//')
	[ "$tp" = "t/$t-50.html" ]
	grep -q 'href="../msg/r5000@users.test/index.html"' "$W/$tp"
	# the month: 500 posts a page by date (21 pages); by thread, the
	# thread's first 20 posts and a link to the rest
	M=$W/2026-11
	[ "$(ls "$M" | grep -c '^date\(-[0-9]*\)\?\.html$')" -eq 21 ]
	[ "$(cat "$M"/date*.html | grep -o 'href="../msg/[^"]*"' | sort -u | wc -l)" -eq 10001 ]
	[ "$(grep -o 'href="../msg/' "$M/date-2.html" | wc -l)" -eq 500 ]
	grep -q '<a rel="next" href="date-2.html">' "$M/date.html"
	grep -q '<a rel="prev" href="date-20.html">' "$M/date-21.html"
	[ "$(grep -o 'href="../msg/' "$M/index.html" | wc -l)" -eq 20 ]
	grep -q "href=\"../t/$t.html\">9981 more posts this month in the thread" "$M/index.html"
	# one more reply: on the last page; the pages before it stay
	first=$(stat -c '%i %y' "$W/t/$t.html")
	mid=$(stat -c '%i %y' "$W/t/$t-100.html")
	dfirst=$(stat -c '%i %y' "$M/date.html")
	msg r10001 'Re: root' '<root@users.test>' | inbox AAA-3-mylist
	archive_run
	grep -q 'href="../msg/r10001@users.test/index.html"' "$W/t/$t-101.html"
	[ "$(stat -c '%i %y' "$W/t/$t.html")" = "$first" ]
	[ "$(stat -c '%i %y' "$W/t/$t-100.html")" = "$mid" ]
	[ "$(stat -c '%i %y' "$M/date.html")" = "$dfirst" ]
	grep -q 'href="../msg/r10001@users.test/index.html"' "$M/date-21.html"
	grep -q "9982 more posts this month" "$M/index.html"
	grep -q "href=\"../../t/$t-101.html\"" "$W/msg/r10001@users.test/index.html"
	[ "$(grep -c 'href="../../msg/r[0-9]*@users.test/index.html"' "$W/msg/root@users.test/index.html")" -eq 100 ]
	grep -q 'All replies in the thread' "$W/msg/root@users.test/index.html"
	[ "$(ls "$W/msg" | wc -l)" -eq 10002 ]
}

# mbox_valid FILE - FILE is an mbox of whole posts: each From_ line
# begins a post with a Message-ID and the "body of" line msg writes;
# prints the Message-IDs in order
mbox_valid() {
	python3 - "$1" <<-'PY'
	import mailbox, sys
	for m in mailbox.mbox(sys.argv[1], create=False):
	    if m["Message-ID"] is None or "body of " not in m.as_string():
	        sys.exit("torn post: %r" % m.as_string()[-80:])
	    print(m["Message-ID"])
	PY
}

@test "an archive made with the index of earlier versions (by month and date) gets the month's indexes by id and by thread on its next run, and its month pages stay what a rebuild makes" {
	for i in 1 2 3 4 5; do
		msg "m$i" "post $i" | inbox "AAA-$i-mylist"
	done
	archive_run
	# the index as earlier versions made it, and no other on month
	q 'DROP INDEX msg_month_id; DROP INDEX msg_month_thread; CREATE INDEX msg_month ON msg(month, date, id)'
	msg m6 'post 6' '<m2@users.test>' | inbox AAA-6-mylist
	archive_run
	[ "$(q "SELECT group_concat(name, ' ') FROM (SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'msg' AND name LIKE 'msg_month%' ORDER BY name)")" = "msg_month_id msg_month_thread" ]
	# the planner takes them: a month's posts in order without a sort
	q "EXPLAIN QUERY PLAN SELECT id FROM msg WHERE month = '2026-11' ORDER BY id" | grep -q 'msg_month_id'
	run -1 grep -q 'TEMP B-TREE' <<<"$(q "EXPLAIN QUERY PLAN SELECT thread, min(id) FROM msg WHERE month = '2026-11' GROUP BY thread")"
	grep -q 'href="../msg/m6@users.test/index.html">post 6</a>' "$W/2026-11/date.html"
	cp "$W/2026-11/date.html" "$W/2026-11/index.html" "$BATS_TEST_TMPDIR/"
	"$MJ_ARCHIVE" -C "$CONF" rebuild example.org mylist
	cmp "$W/2026-11/date.html" "$BATS_TEST_TMPDIR/date.html"
	cmp "$W/2026-11/index.html" "$BATS_TEST_TMPDIR/index.html"
}

@test "incremental: one more post appends to the month's mbox (same inode, the old bytes a prefix); a reply leaves the parent's attachment file alone; remove and rebuild rewrite the mbox whole" {
	printf 'From: Alice <alice@users.test>\nSubject: with file\nDate: Wed, 25 Nov 2026 12:00:00 +0000\nMessage-ID: <f1@users.test>\nMIME-Version: 1.0\nContent-Type: multipart/mixed; boundary="b"\n\n--b\nContent-Type: text/plain\n\nbody of f1\n--b\nContent-Type: application/pdf; name="x.pdf"\n\nPDFDATA\n--b--\n' | inbox AAA-1-mylist
	msg a 'topic' | inbox AAB-1-mylist
	archive_run
	mb=$W/2026-11/2026-11.mbox
	cp "$mb" "$BATS_TEST_TMPDIR/mbox.before"
	ino=$(stat -c %i "$mb")
	att=$(stat -c '%i %y' "$W/msg/f1@users.test/att-1.bin")
	msg r 'Re: with file' '<f1@users.test>' | inbox AAC-1-mylist
	archive_run
	grep -q 'msg/r@users.test/index.html' "$W/msg/f1@users.test/index.html"
	[ "$(stat -c %i "$mb")" = "$ino" ]
	cmp -n "$(stat -c %s "$BATS_TEST_TMPDIR/mbox.before")" "$BATS_TEST_TMPDIR/mbox.before" "$mb"
	[ "$(stat -c %s "$mb")" -gt "$(stat -c %s "$BATS_TEST_TMPDIR/mbox.before")" ]
	[ "$(stat -c '%i %y' "$W/msg/f1@users.test/att-1.bin")" = "$att" ]
	[ "$(cat "$W/msg/f1@users.test/att-1.bin")" = PDFDATA ]
	[ "$(mbox_valid "$mb" | tr '\n' ' ')" = '<f1@users.test> <a@users.test> <r@users.test> ' ]
	# remove rewrites the mbox without the post
	"$MJ_ARCHIVE" -C "$CONF" remove example.org mylist '<a@users.test>'
	[ "$(mbox_valid "$mb" | tr '\n' ' ')" = '<f1@users.test> <r@users.test> ' ]
	msg s 'Re: topic' '<a@users.test>' | inbox AAD-1-mylist
	archive_run
	[ "$(mbox_valid "$mb" | tr '\n' ' ')" = '<f1@users.test> <r@users.test> <s@users.test> ' ]
	# rebuild writes it whole, the same
	cp "$mb" "$BATS_TEST_TMPDIR/mbox.before"
	"$MJ_ARCHIVE" -C "$CONF" rebuild example.org mylist
	cmp "$BATS_TEST_TMPDIR/mbox.before" "$mb"
	[ -e "$W/msg/f1@users.test/att-1.bin" ]
}

@test "incremental: kill -9 at the mbox's second append leaves the old mbox and one whole post; a torn tail is cut; the next run has every post once" {
	command -v strace >/dev/null || skip "no strace"
	msg a 'topic' | inbox AAA-1-mylist
	archive_run
	mb=$W/2026-11/2026-11.mbox
	cp "$mb" "$BATS_TEST_TMPDIR/mbox.before"
	ino=$(stat -c %i "$mb")
	# each post its own write: killed at the second, after b
	msg b 'Re: topic' '<a@users.test>' | inbox AAB-1-mylist
	msg c 'Re: topic' '<b@users.test>' | inbox AAC-1-mylist
	archive_crash -P "$mb" -e trace=write,pwrite64 -e inject=write,pwrite64:signal=SIGKILL:when=2
	[ "$(mbox_valid "$mb" | tr '\n' ' ')" = '<a@users.test> <b@users.test> ' ]
	cmp -n "$(stat -c %s "$BATS_TEST_TMPDIR/mbox.before")" "$BATS_TEST_TMPDIR/mbox.before" "$mb"
	# a torn tail, as a power loss in a write would leave
	printf 'From alice@users.test Wed Nov 25 12:00:00 2026\nSubject: torn\n\nhalf of' >>"$mb"
	archive_run
	[ "$(stat -c %i "$mb")" = "$ino" ]
	[ "$(mbox_valid "$mb" | tr '\n' ' ')" = '<a@users.test> <b@users.test> <c@users.test> ' ]
	run -1 grep -q 'half of' "$mb"
	once
}

# archive_crash STRACE-OPTION... - mj_archive run killed by SIGKILL where
# the options say; fails unless it was killed there
archive_crash() {
	ASAN_OPTIONS=detect_leaks=0 run strace -f -qq -o "$BATS_TEST_TMPDIR/crash.trace" \
		"$@" "$MJ_ARCHIVE" -C "$CONF" run example.org mylist
	[ "$status" -eq 137 ]
	grep -q 'killed by SIGKILL' "$BATS_TEST_TMPDIR/crash.trace"
}

# once - every post of the index once, each page there, nothing left to
# do: no inbox entry, no dirty page
once() {
	[ -z "$(ls -A "$INBOX")" ] &&
		[ "$(q 'SELECT count(*) FROM dirty')" -eq 0 ] &&
		[ "$(q 'SELECT count(*) FROM msg')" -eq "$(q 'SELECT count(DISTINCT msgid) FROM msg')" ] &&
		for n in $(q 'SELECT name FROM msg'); do
			grep -q '</html>' "$W/msg/$n/index.html" || return 1
		done
}

@test "crash at A1 (the post's link into the archive inbox) and at P2 after it: the post is archived once and delivered once" {
	command -v strace >/dev/null || skip "no strace"
	# a runner that cannot start mj_archive (none beside it): the test
	# runs it, so nothing runs behind its back
	make -s -C "$TOP" fault-runner FAULT_DIR="$BATS_TEST_TMPDIR" >/dev/null
	MJ_QUEUERUN=$BATS_TEST_TMPDIR/mj_queuerun
	simple 1
	f=$(queue_files)
	name=$(basename "$f")
	crash_at link "$INBOX/10-10-$(fnv "$SPOOL/$f")-$name"
	[ -z "$(ls -A "$INBOX")" ]
	crash_at link "$SPOOL/QUEUE/10/example.org/10/list/.$name"
	[ "$(ls "$INBOX" | wc -l)" -eq 1 ]
	runq
	[ "$(ls "$MAIL/each@users.test/new" | wc -l)" -eq 1 ]
	[ "$(ls "$INBOX" | wc -l)" -eq 1 ]
	archive_run
	[ "$(archived)" -eq 1 ]
	once
}

@test "crash at A2 (the commit), A3 (the entry's unlink) and A4 (a page's rename, the syncfs): no post lost, none twice, every page written by the next run" {
	command -v strace >/dev/null || skip "no strace"
	msg a 'topic' | inbox AAA-1-mylist
	archive_run
	# A2: killed as the transaction goes into the WAL: nothing of it
	msg b 'Re: topic' '<a@users.test>' | inbox AAB-1-mylist
	archive_crash -P "$DB-wal" -e trace=pwrite64 -e inject=pwrite64:signal=SIGKILL
	[ "$(ls "$INBOX" | wc -l)" -eq 1 ]
	[ "$(archived)" -eq 1 ]
	# A3: killed at the entry's unlink, after the commit
	e=$(ls "$INBOX")
	archive_crash -P "$INBOX/$e" -e trace=unlink,unlinkat -e inject=unlink,unlinkat:signal=SIGKILL
	[ "$(archived)" -eq 2 ]
	[ "$(ls "$INBOX" | wc -l)" -eq 1 ]
	[ "$(q 'SELECT count(*) FROM dirty')" -gt 0 ]
	archive_run
	[ "$(archived)" -eq 2 ]
	once
	# A4: killed at the rename of the list's index page (the old one
	# stays, without the new post), then at the syncfs
	msg c 'Re: topic' '<a@users.test> <b@users.test>' | inbox AAC-1-mylist
	archive_crash -P "$W/index.html.tmp" -e trace=rename,renameat,renameat2 -e inject=rename,renameat,renameat2:signal=SIGKILL
	run -1 grep -q 'c@users.test' "$W/index.html"
	grep -q 'b@users.test' "$W/index.html"
	[ "$(archived)" -eq 3 ]
	[ -z "$(ls -A "$INBOX")" ]
	msg d 'Re: topic' '<a@users.test> <c@users.test>' | inbox AAD-1-mylist
	archive_crash -e trace=syncfs -e inject=syncfs:signal=SIGKILL
	[ "$(q 'SELECT count(*) FROM dirty')" -gt 0 ]
	archive_run
	[ "$(archived)" -eq 4 ]
	once
	grep -q 'href="../../msg/d@users.test/index.html"' "$W/msg/c@users.test/index.html"
	grep -q 'href="../../msg/c@users.test/index.html"' "$W/msg/b@users.test/index.html"
	[ "$(grep -o '<li>' "$W/t/$(q "SELECT thread FROM msg WHERE msgid = 'a@users.test'").html" | wc -l)" -eq 4 ]
}

@test "import: an mbox (a >From line unquoted) and a maildir, each post once however often imported; their pages written" {
	{
		printf 'From alice@users.test Wed Nov 25 10:00:00 2026\n'
		msg i1 'imported one'
		printf '>From the start, a quoted line\n\n'
		printf 'From bob@users.test Wed Nov 25 11:00:00 2026\n'
		msg i2 'Re: imported one' '<i1@users.test>'
	} >"$BATS_TEST_TMPDIR/old.mbox"
	run "$MJ_ARCHIVE" -C "$CONF" import example.org mylist "$BATS_TEST_TMPDIR/old.mbox"
	[ "$status" -eq 0 ]
	[ "$output" = "mylist@example.org: 2 posts imported" ]
	[ "$(archived)" -eq 2 ]
	grep -q '^From the start, a quoted line' <(q "SELECT raw FROM msg JOIN raw USING(id) WHERE msgid = 'i1@users.test'")
	run -1 grep -q '^From alice' <(q "SELECT raw FROM msg JOIN raw USING(id) WHERE msgid = 'i1@users.test'")
	grep -q 'In reply to' "$W/msg/i2@users.test/index.html"
	grep -q '^&gt;From the start\|^From the start' "$W/msg/i1@users.test/index.html"
	run "$MJ_ARCHIVE" -C "$CONF" import example.org mylist "$BATS_TEST_TMPDIR/old.mbox"
	[ "$output" = "mylist@example.org: 0 posts imported" ]
	[ "$(archived)" -eq 2 ]
	md=$BATS_TEST_TMPDIR/md
	mkdir -p "$md/cur" "$md/new" "$md/tmp"
	msg i3 'maildir post' >"$md/cur/1.host:2,S"
	msg i4 'Re: maildir post' '<i3@users.test>' >"$md/new/2.host"
	run "$MJ_ARCHIVE" -C "$CONF" import example.org mylist "$md"
	[ "$output" = "mylist@example.org: 2 posts imported" ]
	[ "$(archived)" -eq 4 ]
	[ "$(q 'SELECT count(*) FROM dirty')" -eq 0 ]
	[ -s "$W/msg/i4@users.test/index.html" ]
	run "$MJ_ARCHIVE" -C "$CONF" import example.org mylist "$BATS_TEST_TMPDIR/none"
	[ "$status" -eq 75 ]
}

# mbox N WORD - N posts from one sender, a minute apart from 2026-11-01,
# each with WORD in its body and its number in its Message-ID <mN@...>
mbox() {
	local i
	for ((i = 1; i <= $1; i++)); do
		TZ=UTC printf 'From alice@users.test Sun Nov  1 00:00:00 2026\nFrom: Alice <alice@users.test>\nSubject: post %d\nDate: %(%a, %d %b %Y %H:%M:%S +0000)T\nMessage-ID: <m%d@users.test>\n\n%s number %d\n\n' \
			"$i" "$((1793491200 + i * 60))" "$i" "$2" "$i"
	done
}

@test "import -n: the posts in the index, found by the search, no page yet and every page marked; the next run writes them" {
	mbox 3 indexonly >"$BATS_TEST_TMPDIR/old.mbox"
	run "$MJ_ARCHIVE" -C "$CONF" -n import example.org mylist "$BATS_TEST_TMPDIR/old.mbox"
	[ "$status" -eq 0 ]
	[ "$output" = "mylist@example.org: 3 posts imported" ]
	[ "$(archived)" -eq 3 ]
	[ ! -e "$W/msg/m1@users.test/index.html" ]
	[ "$(q "SELECT count(*) FROM dirty WHERE page LIKE 'msg:%'")" -eq 3 ]
	run search 'l=mylist@example.org&q=indexonly'
	[[ "$output" == *m1@users.test* && "$output" == *m3@users.test* ]]
	archive_run
	[ "$(q 'SELECT count(*) FROM dirty')" -eq 0 ]
	grep -q 'indexonly number 2' "$W/msg/m2@users.test/index.html"
	grep -q 'm3@users.test' "$W/index.html"
}

@test "a killed import (kill -9 after its first batches) run again stores every post once and writes every page" {
	mbox 6000 killed >"$BATS_TEST_TMPDIR/big.mbox"
	"$MJ_ARCHIVE" -C "$CONF" import example.org mylist "$BATS_TEST_TMPDIR/big.mbox" >/dev/null &
	pid=$!
	# the first batch committed (512 posts): the index has rows
	wait_for 60 eval '[ "$(sqlite3 "$DB" "SELECT count(*) FROM msg" 2>/dev/null || echo 0)" -gt 0 ]'
	kill -9 "$pid"
	wait "$pid" || true
	had=$(archived)
	echo "stored before the kill: $had"
	[ "$had" -gt 0 ] && [ "$had" -lt 6000 ]
	run "$MJ_ARCHIVE" -C "$CONF" import example.org mylist "$BATS_TEST_TMPDIR/big.mbox"
	[ "$status" -eq 0 ]
	[ "$output" = "mylist@example.org: $((6000 - had)) posts imported" ]
	[ "$(archived)" -eq 6000 ]
	[ "$(q 'SELECT count(DISTINCT msgid) FROM msg')" -eq 6000 ]
	[ "$(q 'SELECT count(*) FROM dirty')" -eq 0 ]
	[ "$(find "$W/msg" -name index.html | wc -l)" -eq 6000 ]
	grep -q 'killed number 1$' "$W/msg/m1@users.test/index.html"
	grep -q 'killed number 6000$' "$W/msg/m6000@users.test/index.html"
}

@test "an import into an archive with posts, killed at a new page written in place: the earlier pages whole; run again, every page the one a rebuild makes" {
	command -v strace >/dev/null || skip "no strace"
	mbox 300 first >"$BATS_TEST_TMPDIR/old.mbox"
	mbox 300 second | sed 's/^Message-ID: <m/Message-ID: <n/' >"$BATS_TEST_TMPDIR/new.mbox"
	run "$MJ_ARCHIVE" -C "$CONF" import example.org mylist "$BATS_TEST_TMPDIR/old.mbox"
	[ "$output" = "mylist@example.org: 300 posts imported" ]
	# killed at the write of a new post's page, made in place
	page=$W/msg/n150@users.test/index.html
	ASAN_OPTIONS=detect_leaks=0 run strace -f -qq -o "$BATS_TEST_TMPDIR/crash.trace" \
		-P "$page" -e trace=write -e inject=write:signal=SIGKILL \
		"$MJ_ARCHIVE" -C "$CONF" import example.org mylist "$BATS_TEST_TMPDIR/new.mbox"
	[ "$status" -eq 137 ]
	grep -q 'killed by SIGKILL' "$BATS_TEST_TMPDIR/crash.trace"
	[ -e "$page" ]
	run -1 grep -q '</html>' "$page"
	[ "$(archived)" -eq 600 ]
	[ "$(q 'SELECT count(*) FROM dirty')" -gt 0 ]
	for ((i = 1; i <= 300; i++)); do
		grep -q "first number $i\$" "$W/msg/m$i@users.test/index.html"
		grep -q '</html>' "$W/msg/m$i@users.test/index.html"
	done
	run "$MJ_ARCHIVE" -C "$CONF" import example.org mylist "$BATS_TEST_TMPDIR/new.mbox"
	[ "$output" = "mylist@example.org: 0 posts imported" ]
	[ "$(q 'SELECT count(*) FROM dirty')" -eq 0 ]
	grep -q 'second number 150$' "$page"
	# the import's pages are the ones every page rewritten makes
	cp -a "$W" "$BATS_TEST_TMPDIR/imported"
	run "$MJ_ARCHIVE" -C "$CONF" rebuild example.org mylist
	[ "$status" -eq 0 ]
	diff -r "$BATS_TEST_TMPDIR/imported" "$W"
	[ "$(find "$W/msg" -name index.html | wc -l)" -eq 600 ]
}

@test "search: a word in more than 2,000 posts answers with the latest archived first and says so, in a date range too; rarer words are ranked" {
	mbox 3000 everywhere >"$BATS_TEST_TMPDIR/old.mbox"
	printf 'From: Bob <bob@users.test>\nSubject: rare\nDate: Mon, 02 Nov 2026 09:00:00 +0000\nMessage-ID: <r1@users.test>\n\nseldom seldom seldom\n' | inbox AAA-1-mylist
	run "$MJ_ARCHIVE" -C "$CONF" -n import example.org mylist "$BATS_TEST_TMPDIR/old.mbox"
	[ "$status" -eq 0 ]
	archive_run
	run search 'l=mylist@example.org&q=everywhere'
	[[ "$output" == *'The latest first (a word is in more than 2000 posts).'* ]]
	[ "$(grep -c '^<li><a href=' <<<"$output")" -eq 50 ]
	# the first results are the latest, m3000, then m2999
	[[ "$(grep -m2 -o 'msg/m[0-9]*@' <<<"$output" | tr '\n' ' ')" == 'msg/m3000@ msg/m2999@ ' ]]
	# the next page goes on from m2950
	run search 'l=mylist@example.org&q=everywhere&o=50'
	[[ "$(grep -m1 -o 'msg/m[0-9]*@' <<<"$output")" == 'msg/m2950@' ]]
	# a date range: the latest in it first (m2880 is at 2026-11-03 00:00)
	run search 'l=mylist@example.org&q=everywhere+before%3A2026-11-03'
	[[ "$output" == *'The latest first'* ]]
	[[ "$(grep -m1 -o 'msg/m[0-9]*@' <<<"$output")" == 'msg/m2879@' ]]
	run search 'l=mylist@example.org&q=everywhere+before%3A2026-11-01'
	[[ "$output" == *'No post matches.'* ]]
	# 1,440 in a range: the latest in it first, none outside it
	run search 'l=mylist@example.org&q=everywhere+after%3A2026-11-02+before%3A2026-11-03'
	[[ "$(grep -m1 -o 'msg/m[0-9]*@' <<<"$output")" == 'msg/m2879@' ]]
	[ "$(grep -c '^<li><a href=' <<<"$output")" -eq 50 ]
	for n in $(grep -o 'msg/m[0-9]*@' <<<"$output" | tr -dc '0-9\n'); do
		[ "$n" -ge 1440 ] && [ "$n" -lt 2880 ]
	done
	# a rare word: ranked
	run search 'l=mylist@example.org&q=seldom'
	[[ "$output" != *'The latest first'* && "$output" == *r1@users.test* ]]
}

@test "remove: a post out of its page, the mbox, the feed and the search index, its attachment gone, a removed page at its address; its reply keeps its place" {
	printf 'From: Spam <spam@users.test>\nSubject: buy now\nDate: Wed, 25 Nov 2026 12:00:00 +0000\nMessage-ID: <s1@users.test>\nMIME-Version: 1.0\nContent-Type: multipart/mixed; boundary="b"\n\n--b\nContent-Type: text/plain\n\nsecretword inside\n--b\nContent-Type: application/pdf; name="x.pdf"\n\nPDFDATA\n--b--\n' | inbox AAA-1-mylist
	msg r 'a reply' '<s1@users.test>' | inbox AAB-1-mylist
	archive_run
	[ -e "$W/msg/s1@users.test/att-1.bin" ]
	[ "$(q "SELECT count(*) FROM fts WHERE fts MATCH 'secretword'")" -eq 1 ]
	run "$MJ_ARCHIVE" -C "$CONF" remove example.org mylist '<s1@users.test>'
	[ "$status" -eq 0 ]
	[[ "$output" == *"mylist@example.org: <s1@users.test> removed" ]]
	grep -q 'This post was removed' "$W/msg/s1@users.test/index.html"
	run -1 grep -rq 'secretword\|buy now\|spam' "$W"
	[ ! -e "$W/msg/s1@users.test/att-1.bin" ]
	[ "$(q "SELECT count(*) FROM fts WHERE fts MATCH 'secretword'")" -eq 0 ]
	[ "$(q "SELECT count(*) FROM raw JOIN msg USING(id) WHERE msgid = 's1@users.test'")" -eq 0 ]
	grep -q 'In reply to' "$W/msg/r@users.test/index.html"
	grep -q 'body of r' "$W/2026-11/2026-11.mbox"
	run -1 grep -q 'Message-ID: <s1@users.test>' "$W/2026-11/2026-11.mbox"
	run "$MJ_ARCHIVE" -C "$CONF" remove example.org mylist '<none@users.test>'
	[ "$status" -eq 67 ]
}

@test "a private archive (archive_public = no) writes nothing under public_dir: its pages are in dir/<domain>/<list>/www" {
	printf 'archive_public = no\n' >>"$LISTS/example.org/mylist/config"
	msg p 'private post' | inbox AAA-1-mylist
	archive_run
	[ -z "$(find "$WEB" -type f 2>/dev/null)" ]
	grep -q 'private post' "$ARCH/example.org/mylist/www/msg/p@users.test/index.html"
	[ "$(stat -c %a "$ARCH/example.org/mylist/www/msg/p@users.test/index.html")" = 640 ]
	[ "$(stat -c %a "$ARCH/example.org/mylist/www/msg/p@users.test")" = 750 ]
}

# search QUERY-STRING - mj_archsearch as the web server runs it
search() {
	REQUEST_METHOD=${METHOD:-GET} QUERY_STRING=$1 MJQ_CONF=$CONF \
		"$TOP/archsearch/mj_archsearch"
}

@test "search: words, phrases, from:, subject:, dates; results link to the posts' pages; FTS5 syntax and markup in a query are text; private and unknown lists answer the same 404" {
	printf 'From: Carol <carol@users.test>\nSubject: scheduler question\nDate: Mon, 02 Nov 2026 09:00:00 +0000\nMessage-ID: <s1@users.test>\n\nhow does the preemptive scheduler pick a job\n' | inbox AAA-1-mylist
	printf 'From: Dave <dave@users.test>\nSubject: Re: scheduler question\nDate: Tue, 10 Nov 2026 09:00:00 +0000\nMessage-ID: <s2@users.test>\nReferences: <s1@users.test>\n\nthe scheduler looks at slot costs\n' | inbox AAB-1-mylist
	printf 'search_url = /cgi-bin/mj_archsearch\n' >>"$CONF"
	archive_run
	grep -q '<form method="get" action="/cgi-bin/mj_archsearch"><input type="hidden" name="l" value="mylist@example.org">' "$W/index.html"
	run search 'l=mylist@example.org&q=preemptive'
	[ "$status" -eq 0 ]
	[[ "$output" == *'Content-Type: text/html; charset=utf-8'* ]]
	[[ "$output" == *'href="https://arch.example.org/mylist/msg/s1@users.test/index.html">scheduler question</a>'* ]]
	[[ "$output" == *'<mark>preemptive</mark>'* ]]
	[[ "$output" != *s2@users.test* ]]
	run search 'l=mylist@example.org&q=%22slot+costs%22'
	[[ "$output" == *s2@users.test* && "$output" != *s1@users.test/index* ]]
	run search 'l=mylist@example.org&q=scheduler+from%3Adave'
	[[ "$output" == *s2@users.test* && "$output" != *s1@users.test/index* ]]
	run search 'l=mylist@example.org&q=subject%3Aquestion+after%3A2026-11-05'
	[[ "$output" == *s2@users.test* && "$output" != *s1@users.test/index* ]]
	run search 'l=mylist@example.org&q=scheduler+before%3A2026-11-05'
	[[ "$output" == *s1@users.test* && "$output" != *s2@users.test* ]]
	# FTS5 syntax is text; markup in the query is escaped where shown
	run search 'l=mylist@example.org&q=NEAR(a+b)+OR+*+%22%3Cscript%3Ealert(1)%3C%2Fscript%3E'
	[ "$status" -eq 0 ]
	[[ "$output" == *'No post matches.'* ]]
	[[ "$output" != *'<script>'* ]]
	[[ "$output" == *'&lt;script&gt;'* ]]
	run search 'l=mylist@example.org&q=after%3A2026-13-40'
	[[ "$output" == *'a date is YYYY-MM-DD'* ]]
	# no such list, a list without an archive, a private one: one 404
	run search 'l=nolist@example.org&q=x'
	[[ "$output" == 'Status: 404 Not Found'* ]]
	printf 'archive_public = no\n' >>"$LISTS/example.org/mylist/config"
	run search 'l=mylist@example.org&q=scheduler'
	[[ "$output" == 'Status: 404 Not Found'* ]]
	run search 'l=../x@example.org&q=x'
	[[ "$output" == 'Status: 400 Bad Request'* ]]
	METHOD=POST run search 'l=mylist@example.org&q=x'
	[[ "$output" == 'Status: 405 Method Not Allowed'* ]]
}

# web_start - lighttpd on a free loopback port serving the public pages
# at / and mj_archsearch at /cgi-bin/mj_archsearch, with the headers the
# README asks for; sets URL (the list's archive) and WEB_PID
web_start() {
	local d=$BATS_TEST_TMPDIR/lighttpd port
	mkdir -p "$d/cgi-bin" "$W"
	ln -s "$TOP/archsearch/mj_archsearch" "$d/cgi-bin/mj_archsearch"
	port=$(free_port)
	cat >"$d/lighttpd.conf" <<-CONF
	server.document-root = "$WEB"
	server.bind = "127.0.0.1"
	server.port = $port
	server.errorlog = "$d/error.log"
	server.modules = ("mod_alias", "mod_cgi", "mod_setenv")
	index-file.names = ("index.html")
	mimetype.assign = (".html" => "text/html; charset=utf-8",
		".css" => "text/css", ".atom" => "application/atom+xml; charset=utf-8",
		".mbox" => "application/mbox", "" => "application/octet-stream")
	alias.url = ("/cgi-bin/" => "$d/cgi-bin/")
	\$HTTP["url"] =~ "^/cgi-bin/" { cgi.assign = ("" => "") }
	\$HTTP["url"] =~ "/att-[0-9]+[.]bin\$" {
		setenv.add-response-header = ("Content-Disposition" => "attachment",
			"X-Content-Type-Options" => "nosniff")
	}
	setenv.add-environment = ("MJQ_CONF" => "$CONF")
	CONF
	lighttpd -D -f "$d/lighttpd.conf" 2>"$d/stderr" &
	WEB_PID=$!
	wait_for 10 curl -s -o /dev/null "http://127.0.0.1:$port/"
	URL=http://127.0.0.1:$port/example.org/mylist/
}

# browse NAME URL [STEP...] - one visit in headless Chromium through
# selenium (t/tools/webdrive.py: fill:ID=VALUE, press:ID, follow:CSS,
# each waiting for the page it leads to): the DOM of each page into
# $SHOTS/NAME.html (NAME-after.html, ...) and its screenshot beside it,
# copied to $MJQ_KEEP_SCREENSHOTS/archive-NAME*.png when that is set,
# for a person to look at
browse() {
	local f
	timeout 300 /usr/bin/python3 "$TOP/t/tools/webdrive.py" "$SHOTS" "$@" || return 1
	for f in "$SHOTS/$1".png "$SHOTS/$1"-after*.png; do
		[ -s "$f" ] || continue
		echo "# screenshot: $f" >&3
		if [ -n "${MJQ_KEEP_SCREENSHOTS:-}" ]; then
			mkdir -p "$MJQ_KEEP_SCREENSHOTS"
			cp "$f" "$MJQ_KEEP_SCREENSHOTS/archive-${f##*/}"
		fi
	done
}

@test "in a browser through lighttpd: the Archived-At of a copy delivered to an SMTP sink opens its post (non-ASCII text, an attachment served as one), the index, month, thread, feed, and a search typed into the index's form whose result opens the post; a post's script never runs" {
	/usr/bin/python3 -c "import selenium" 2>/dev/null || skip "needs python3-selenium (make test installs it)"
	[ -x /usr/bin/chromedriver ] || skip "needs chromium-driver (make test installs it)"
	command -v lighttpd >/dev/null || skip "needs lighttpd (make test installs it)"
	SHOTS=$BATS_TEST_TMPDIR/shots
	mkdir -p "$SHOTS"
	# after setup's [archive]: the search form; the subscriber's copy
	# to the sink
	printf 'search_url = /cgi-bin/mj_archsearch\n' >>"$CONF"
	smtpd_start sink
	printf '[transport_map]\nusers.test = smtp:[127.0.0.1]:%s\n' "$PORT" >>"$CONF"
	SAVE=$BATS_TEST_TMPDIR/sink/save/new
	web_start
	printf '[list]\nposting = open\ndmarc_mitigation = none\narchive_web = yes\narchive_url = %s\narchived_at_url = %smsg/$MSGID/\n' \
		"$URL" "$URL" >"$LISTS/example.org/mylist/config"
	printf 'From: =?utf-8?q?Ren=C3=A9e_M=C3=BCller?= <renee@users.test>\nSubject: =?utf-8?q?Gr=C3=BC=C3=9Fe_aus_K=C3=B6ln?=\nDate: Wed, 25 Nov 2026 10:00:00 +0000\nMessage-ID: <koeln@users.test>\nMIME-Version: 1.0\nContent-Type: multipart/mixed; boundary="b"\n\n--b\nContent-Type: text/plain; charset=utf-8\nContent-Transfer-Encoding: 8bit\n\nLiebe Liste, schöne Grüße – see https://example.org/\n> an earlier line\n--b\nContent-Type: application/pdf; name="plan.pdf"\nContent-Disposition: attachment; filename="plan.pdf"\nContent-Transfer-Encoding: base64\n\nJVBERi0xLjQK\n--b--\n' | post
	printf 'From: Mallory <m@users.test>\nSubject: <script>document.title="pwned"</script>\nDate: Wed, 25 Nov 2026 11:00:00 +0000\nMessage-ID: <evil@users.test>\nIn-Reply-To: <koeln@users.test>\nContent-Type: text/html\n\n<script>document.title="pwned";document.body.innerHTML="pwned"</script><img src=x onerror="document.title=\x27pwned\x27"><p>plain words</p>\n' | post
	runq
	wait_for 60 test "$(ls "$SAVE" 2>/dev/null | wc -l)" -ge 2
	wait_for 10 drained
	# the copy the sink got names the post's page; the browser opens it
	f=$(grep -l '^Message-ID: <koeln@users.test>' "$SAVE"/*)
	at=$(tr -d '\r' <"$f" | sed -n 's/^Archived-At: <\(.*\)>$/\1/p')
	[[ "$at" == "${URL}msg/koeln@users.test/" ]]
	browse post "$at"
	grep -q '<h1>Grüße aus Köln</h1>' "$SHOTS/post.html"
	grep -q 'Renée Müller' "$SHOTS/post.html"
	grep -q 'schöne Grüße' "$SHOTS/post.html"
	grep -q 'download="plan.pdf"' "$SHOTS/post.html"
	run curl -s -D - -o "$BATS_TEST_TMPDIR/att" "${at}att-1.bin"
	[[ "$output" == *"Content-Disposition: attachment"* ]]
	[[ "$output" == *"Content-Type: application/octet-stream"* ]]
	[ "$(head -c 8 "$BATS_TEST_TMPDIR/att")" = "%PDF-1.4" ]
	# after the page's scripts would have run: its title and body are
	# the archive's, no element of the post's is in the DOM
	browse evil "${URL}msg/evil@users.test/"
	grep -q '<title>&lt;script&gt;document.title="pwned"&lt;/script&gt; - mylist</title>' "$SHOTS/evil.html"
	run -1 grep -qi '<script\|<img\|onerror=' "$SHOTS/evil.html"
	grep -q '&lt;script&gt;document.title' "$SHOTS/evil.html"
	grep -q 'plain words' "$SHOTS/evil.html"
	browse month "${URL}2026-11/"
	grep -q 'Grüße aus Köln' "$SHOTS/month.html"
	t=$(q "SELECT thread FROM msg WHERE msgid = 'koeln@users.test'")
	browse thread "${URL}t/$t.html"
	grep -q 'msg/evil@users.test/index.html' "$SHOTS/thread.html"
	# the feed, shown by the browser as its text (UTF-8 as served)
	browse feed "${URL}feed.atom"
	grep -q '&lt;title&gt;Grüße aus Köln&lt;/title&gt;' "$SHOTS/feed.html"
	# the index; a search typed into its form, the button pressed, the
	# first result followed: the post's page
	browse index "$URL" fill:q=Grüße press:search "follow:a[href*='msg/koeln@users.test/']"
	grep -q 'Grüße aus Köln' "$SHOTS/index.html"
	grep -q '<mark>Grüße</mark>' "$SHOTS/index-after.html"
	grep -q '<h1>Grüße aus Köln</h1>' "$SHOTS/index-after2.html"
	grep -q 'schöne Grüße' "$SHOTS/index-after2.html"
}

@test "search ranking: a post with more hits of a rare word first; of equal hits (from:x alone) the latest first, not the shortest" {
	# erin's three posts: the oldest the shortest (what bm25's length
	# normalisation put first), the latest the longest
	printf 'From: Erin <erin@users.test>\nSubject: one\nDate: Mon, 02 Nov 2026 09:00:00 +0000\nMessage-ID: <e1@users.test>\n\nshort\n' | inbox AAA-1-mylist
	printf 'From: Erin <erin@users.test>\nSubject: two\nDate: Tue, 03 Nov 2026 09:00:00 +0000\nMessage-ID: <e2@users.test>\n\n%s\n' "$(seq -s ' ' 1 200)" | inbox AAB-1-mylist
	printf 'From: Erin <erin@users.test>\nSubject: three\nDate: Wed, 04 Nov 2026 09:00:00 +0000\nMessage-ID: <e3@users.test>\n\n%s\n' "$(seq -s ' ' 1 400)" | inbox AAC-1-mylist
	# a word thrice in an older post, once in a later one of the same length
	printf 'From: Fay <fay@users.test>\nSubject: animals\nDate: Thu, 05 Nov 2026 09:00:00 +0000\nMessage-ID: <q3@users.test>\n\nquokka quokka quokka wombat\n' | inbox AAD-1-mylist
	printf 'From: Fay <fay@users.test>\nSubject: animals\nDate: Fri, 06 Nov 2026 09:00:00 +0000\nMessage-ID: <q1@users.test>\n\nquokka wombat wombat wombat\n' | inbox AAE-1-mylist
	archive_run
	run search 'l=mylist@example.org&q=from%3Aerin'
	[[ "$output" != *'The latest first'* ]]
	[ "$(grep -o 'msg/e[0-9]@' <<<"$output" | tr '\n' ' ')" = 'msg/e3@ msg/e2@ msg/e1@ ' ]
	run search 'l=mylist@example.org&q=quokka'
	[ "$(grep -o 'msg/q[0-9]@' <<<"$output" | tr '\n' ' ')" = 'msg/q3@ msg/q1@ ' ]
	run search 'l=mylist@example.org&q=wombat'
	[ "$(grep -o 'msg/q[0-9]@' <<<"$output" | tr '\n' ' ')" = 'msg/q1@ msg/q3@ ' ]
}

@test "search bounds: past its per-address limit a client gets 429 and another still its page; past the limit in all, 503" {
	msg a 'topic' | inbox AAA-1-mylist
	archive_run
	printf 'search_address_requests_per_minute = 2\nsearch_requests_per_minute = 4\n' >>"$CONF"
	for i in 1 2; do
		run env REMOTE_ADDR=192.0.2.1 REQUEST_METHOD=GET QUERY_STRING='l=mylist@example.org&q=topic' MJQ_CONF="$CONF" "$TOP/archsearch/mj_archsearch"
		[[ "$output" == 'Content-Type: text/html'* ]]
	done
	run env REMOTE_ADDR=192.0.2.1 REQUEST_METHOD=GET QUERY_STRING='l=mylist@example.org&q=topic' MJQ_CONF="$CONF" "$TOP/archsearch/mj_archsearch"
	[[ "$output" == *'Status: 429 Too Many Requests'* ]]
	for i in 1 2; do
		run env REMOTE_ADDR=192.0.2.2 REQUEST_METHOD=GET QUERY_STRING='l=mylist@example.org&q=topic' MJQ_CONF="$CONF" "$TOP/archsearch/mj_archsearch"
		[[ "$output" == 'Content-Type: text/html'* ]]
	done
	run env REMOTE_ADDR=192.0.2.3 REQUEST_METHOD=GET QUERY_STRING='l=mylist@example.org&q=topic' MJQ_CONF="$CONF" "$TOP/archsearch/mj_archsearch"
	[[ "$output" == *'Status: 503 Service Unavailable'* ]]
	grep -q ' search 192.0.2.1$' "$SPOOL/state/search"
}

# searches N ADDR... - N searches at once from each ADDR (REMOTE_ADDR):
# each waits at a gate (a lock this shell holds) until all are started,
# then all go together; their statuses (200, 429, 503) counted in
# $BATS_TEST_TMPDIR/codes as "STATUS COUNT" lines
searches() {
	local n=$1 a i gate=$BATS_TEST_TMPDIR/gate pids=()
	shift
	mkdir -p "$BATS_TEST_TMPDIR/out"
	rm -f "$BATS_TEST_TMPDIR/out/"*
	exec 8>"$gate"
	flock -x 8
	for a in "$@"; do
		for i in $(seq "$n"); do
			flock -s "$gate" env REMOTE_ADDR="$a" REQUEST_METHOD=GET \
				QUERY_STRING='l=mylist@example.org&q=topic' MJQ_CONF="$CONF" \
				"$TOP/archsearch/mj_archsearch" >"$BATS_TEST_TMPDIR/out/$a-$i" 8>&- &
			pids+=($!)
		done
	done
	flock -u 8
	exec 8>&-
	for i in "${pids[@]}"; do
		wait "$i"
	done
	for i in "$BATS_TEST_TMPDIR/out/"*; do
		case $(head -1 "$i") in
		'Content-Type: text/html'*) echo 200 ;;
		'Retry-After: 60'*) sed -n 's/^Status: \([0-9]*\) .*/\1/p' "$i" ;;
		*) echo "?" ;;
		esac
	done | sort | uniq -c | awk '{ print $2, $1 }' >"$BATS_TEST_TMPDIR/codes"
}

@test "search bounds under concurrency: 40 searches at once from one address with room for 25 get exactly 25 pages and 15 429s; 30 more from 30 addresses with room for 15 in all get 15 pages and 15 503s; the counts in state/search are exact" {
	msg a 'topic' | inbox AAA-1-mylist
	archive_run
	printf 'search_address_requests_per_minute = 25\nsearch_requests_per_minute = 40\n' >>"$CONF"
	searches 40 192.0.2.9
	cat "$BATS_TEST_TMPDIR/codes"
	[ "$(cat "$BATS_TEST_TMPDIR/codes")" = $'200 25\n429 15' ]
	grep -Eq '^[0-9]+ 25 search 192.0.2.9$' "$SPOOL/state/search"
	grep -Eq '^[0-9]+ 25 \*$' "$SPOOL/state/search"
	searches 1 $(seq -f '192.0.2.%g' 100 129)
	cat "$BATS_TEST_TMPDIR/codes"
	[ "$(cat "$BATS_TEST_TMPDIR/codes")" = $'200 15\n503 15' ]
	grep -Eq '^[0-9]+ 40 \*$' "$SPOOL/state/search"
	# one line for all, one per address let through (1 + 1 + 15)
	[ "$(wc -l <"$SPOOL/state/search")" -eq 17 ]
	# a torn file (a crash between the write and the truncate): the
	# larger count of a key holds, a broken line is skipped
	end=$(($(date +%s) + 60))
	printf '%s 3 search 192.0.2.7\n%s 2 search 192.0.2.7\n5 search 1\n' "$end" "$end" >"$SPOOL/state/search"
	searches 1 192.0.2.7
	grep -Eq "^$end 4 search 192.0.2.7\$" "$SPOOL/state/search"
	[ "$(wc -l <"$SPOOL/state/search")" -eq 2 ]
}
