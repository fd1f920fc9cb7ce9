#!/usr/bin/env bats
# The list's web archive end to end (archive/, listfn/archive_post.c,
# spool-layout/spool_archive.c): a post through mj_enqueue and the runner
# is in the archive's index and on its pages within seconds, at the
# address its delivered copy's Archived-At names; hostile posts render
# as text and write nothing outside the archive; a crash between the
# numbered states (archive/README, A1-A4) neither loses nor doubles one.

load helpers
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

# archived - the posts in the index
archived() {
	sqlite3 "$DB" 'SELECT count(*) FROM msg' 2>/dev/null
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
