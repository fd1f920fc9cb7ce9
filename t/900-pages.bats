#!/usr/bin/env bats
# The list's pages (mj_listweb) end to end: a real lighttpd on a loopback
# port runs mj_listweb as CGI, headless Chromium (through chromium-driver
# and python3-selenium, t/tools/webdrive.py) types and presses as a
# person does, the runner mails through mj_testsmtpd, and the attacks are
# sent with curl.  Screenshots and the DOM of every page are kept in the
# test's output directory ($BATS_TEST_TMPDIR/shots).

bats_require_minimum_version 1.5.0

load helpers
load smtp_helpers
load request_helpers
load web_helpers

MJ_LISTWEB=$TOP/web/mj_listweb

setup() {
	command -v lighttpd >/dev/null || skip "needs lighttpd (make test installs it)"
	mjq_setup </dev/null
	RUNLOG=$BATS_TEST_TMPDIR/run.log
	web_secret
	smtpd_start users
	printf '[transport_map]\nusers.test = smtp:[127.0.0.1]:%s\n' "$PORT" >>"$CONF"
	SAVE=$BATS_TEST_TMPDIR/users/save/new
	web_start "$MJ_LISTWEB" "$TOP/unsubscribe/mj_unsubscribe"
	PAGES=$WEB_ROOT/cgi-bin/mj_listweb
	mjq_list example.org mylist bob@users.test
	mjq_list example.org other bob@users.test
	for l in mylist other; do
		printf 'pages_url = %s\nunsubscribe_url = %s\n' "$PAGES" \
			"$WEB_ROOT/cgi-bin/mj_unsubscribe" >>"$LISTS/example.org/$l/config"
	done
	SUBS=$LISTS/example.org/mylist/subscribers
	SHOTS=$BATS_TEST_TMPDIR/shots
	mkdir -p "$SHOTS"
}

teardown() {
	[ -z "${WEB_PID:-}" ] || stop_pid "$WEB_PID"
	servers_stop
}

# saved_to ADDR - the messages the sink saved for ADDR, newest last
saved_to() {
	[ -d "$SAVE" ] || return 0
	grep -l -i "^To:.*$1" "$SAVE"/* 2>/dev/null | xargs -r ls -tr
}

# confirm_link ADDR - the page link in ADDR's newest confirmation mail
confirm_link() {
	tr -d '\r' <"$(saved_to "$1" | tail -1)" |
		grep -o 'http://[^ ]*&c=[0-9a-f]\{32\}' | tail -1
}

# options_query ADDR LIST - the query of ADDR's one-click link, made with
# the openssl command
options_query() {
	local t
	t=$(date +%s)
	echo "l=$2%40example.org&a=${1/@/%40}&t=$t&s=$(web_mac "$2" example.org "$1" "$t")"
}

# requests - request messages queued
requests() {
	queue_files | grep -c '/request/' || true
}

# form_token - the subscribe form's token on mylist's page
form_token() {
	curl -s "$PAGES?l=mylist%40example.org" |
		sed -n 's/.*name="f" value="\([^"]*\)".*/\1/p'
}

# post_status URL BODY [CURL-ARGS...] - a form POST; prints the status
post_status() {
	local url=$1 body=$2
	shift 2
	curl -s -o "$BATS_TEST_TMPDIR/body" -w '%{http_code}' "$@" \
		--data "$body" "$url"
}

# browse NAME URL STEPS... - one visit in headless Chromium
browse() {
	/usr/bin/python3 "$TOP/t/tools/webdrive.py" "$SHOTS" "$@"
}

@test "a person subscribes, confirms from the mailed link, switches to digest and unsubscribes, in a browser" {
	slow "a browser session through six pages"
	/usr/bin/python3 -c "import selenium" 2>/dev/null || skip "needs python3-selenium (make test installs it)"
	[ -x /usr/bin/chromedriver ] || skip "needs chromium-driver (make test installs it)"
	echo 'Talk about widgets.' >"$LISTS/example.org/mylist/info"
	browse list "$PAGES?l=mylist%40example.org" fill:a=ann@users.test press:subscribe
	grep -q 'Talk about widgets.' "$SHOTS/list.html"
	grep -q 'Check your mail' "$SHOTS/list-after.html"
	[ -s "$SHOTS/list-after.png" ]
	runq
	link=$(confirm_link ann@users.test)
	[ -n "$link" ]
	# A scanner's GET of the link changes nothing.
	curl -s -o /dev/null "$link"
	[ "$(requests)" -eq 0 ]
	browse confirm "$link" press:confirm
	grep -q 'Add <strong>ann@users.test</strong> to the list' "$SHOTS/confirm.html"
	grep -q 'Thank you' "$SHOTS/confirm-after.html"
	runq
	grep -qx 'ann@users.test' "$SUBS"
	# The options page from a post: its List-Unsubscribe link's page.
	printf 'From: bob@users.test\nSubject: hello\n\nhi\n' |
		"$MJ_ENQUEUE" -C "$CONF" -d example.org -l mylist -r -f bob@users.test
	runq
	unsub=$(cat "$SAVE"/* | tr -d '\r' |
		grep -o 'http://[^>]*mj_unsubscribe?[^>]*a=ann%40users.test[^>]*' | head -1)
	[ -n "$unsub" ]
	browse unsub "$unsub"
	options=$(sed -n 's/.*<a id="options" href="\([^"]*\)".*/\1/p' "$SHOTS/unsub.html" | sed 's/&amp;/\&/g')
	[ "${options%%\?*}" = "$PAGES" ]
	browse options "$options" check:mode-digest press:set
	grep -q 'Check your mail' "$SHOTS/options-after.html"
	runq
	browse digest "$(confirm_link ann@users.test)" press:confirm
	grep -q 'as <strong>digest</strong>' "$SHOTS/digest.html"
	runq
	grep -q '^ann@users.test.*digest' "$SUBS"
	browse leave "$PAGES?$(options_query ann@users.test mylist)" press:unsubscribe
	grep -q 'will get no more mail' "$SHOTS/leave-after.html"
	runq
	run ! grep -q ann "$SUBS"
	[ -z "${MJQ_KEEP_SCREENSHOTS:-}" ] || cp "$SHOTS"/*.png "$MJQ_KEEP_SCREENSHOTS"
}

# subscribe_post ADDR [CURL-ARGS...] - the subscribe form posted with a
# fresh form token; prints the status
subscribe_post() {
	local addr=$1
	shift
	post_status "$PAGES?l=mylist%40example.org" \
		"a=${addr/@/%40}&f=$(form_token)" "$@"
}

@test "cross-site request forgery: a POST from another site, or without the form's token, does nothing" {
	run subscribe_post ann@users.test -H "Origin: http://evil.test"
	[ "$output" = 403 ]
	run subscribe_post ann@users.test -H "Sec-Fetch-Site: cross-site"
	[ "$output" = 403 ]
	run post_status "$PAGES?l=mylist%40example.org" "a=ann%40users.test"
	[ "$output" = 403 ]
	run post_status "$PAGES?l=mylist%40example.org" "a=ann%40users.test&f=1-$(printf '0%.0s' $(seq 32))"
	[ "$output" = 403 ]
	# A form token of another list is no good here either.
	other=$(curl -s "$PAGES?l=other%40example.org" | sed -n 's/.*name="f" value="\([^"]*\)".*/\1/p')
	run post_status "$PAGES?l=mylist%40example.org" "a=ann%40users.test&f=$other"
	[ "$output" = 403 ]
	q=$(options_query bob@users.test mylist)
	run post_status "$PAGES?$q" "do=unsubscribe" -H "Origin: http://evil.test"
	[ "$output" = 403 ]
	[ "$(requests)" -eq 0 ]
	runq
	[ -z "$(saved_to ann@users.test)" ]
	grep -qx bob@users.test "$SUBS"
	# The same form from this site goes through.
	run subscribe_post ann@users.test -H "Origin: $WEB_ROOT" -H "Sec-Fetch-Site: same-origin"
	[ "$output" = 200 ]
	[ "$(requests)" -eq 1 ]
}

@test "a confirmation token of one list is refused on another, and a spent one is refused when replayed" {
	run subscribe_post ann@users.test
	[ "$output" = 200 ]
	runq
	link=$(confirm_link ann@users.test)
	token=${link##*c=}
	moved="$PAGES?l=other%40example.org&c=$token"
	run curl -s -o /dev/null -w '%{http_code}' "$moved"
	[ "$output" = 403 ]
	run post_status "$PAGES?l=other%40example.org" "c=$token"
	[ "$output" = 403 ]
	[ "$(requests)" -eq 0 ]
	run post_status "$PAGES?l=mylist%40example.org" "c=$token"
	[ "$output" = 200 ]
	runq
	grep -qx ann@users.test "$SUBS"
	run ! grep -q ann "$LISTS/example.org/other/subscribers"
	run post_status "$PAGES?l=mylist%40example.org" "c=$token"
	[ "$output" = 410 ]
	run curl -s -o /dev/null -w '%{http_code}' "$link"
	[ "$output" = 410 ]
	[ "$(requests)" -eq 0 ]
	# An options link of one list is no good on another.
	q=$(options_query bob@users.test mylist)
	run post_status "$PAGES?${q/mylist%40/other%40}" "do=unsubscribe"
	[ "$output" = 403 ]
	[ "$(requests)" -eq 0 ]
}

@test "a GET or HEAD of every page and link changes nothing" {
	run subscribe_post ann@users.test
	runq
	link=$(confirm_link ann@users.test)
	n=$(saved_to ann@users.test | wc -l)
	for u in "$PAGES?l=mylist%40example.org" "$link" \
		"$PAGES?$(options_query bob@users.test mylist)" \
		"$PAGES?l=mylist%40example.org&a=ann%40users.test" \
		"$PAGES?l=mylist%40example.org&c=$(printf 'a%.0s' $(seq 32))"; do
		curl -s -o /dev/null "$u"
		curl -s -I -o /dev/null "$u"
		curl -s -o /dev/null "$u&do=unsubscribe&mode=nomail"
	done
	[ "$(requests)" -eq 0 ]
	runq
	[ "$(saved_to ann@users.test | wc -l)" -eq "$n" ]
	[ "$(cat "$SUBS")" = bob@users.test ]
}

@test "<script> in every field a page shows comes out as text" {
	printf '<script>alert(1)</script> & "quotes"\n' >"$LISTS/example.org/mylist/info"
	printf 'archive_url = https://a.test/"><script>alert(2)</script>\n' >>"$LISTS/example.org/mylist/config"
	curl -s "$PAGES?l=mylist%40example.org" >"$BATS_TEST_TMPDIR/page"
	grep -qF '&lt;script&gt;alert(1)&lt;/script&gt; &amp; &quot;quotes&quot;' "$BATS_TEST_TMPDIR/page"
	grep -qF 'href="https://a.test/&quot;' "$BATS_TEST_TMPDIR/page"
	run ! grep -qi '<script' "$BATS_TEST_TMPDIR/page"
	# An address with every character the grammar allows that HTML minds.
	addr="o'b&x{y}@users.test"
	t=$(date +%s)
	q="l=mylist%40example.org&a=o%27b%26x%7By%7D%40users.test&t=$t&s=$(web_mac mylist example.org "$addr" "$t")"
	curl -s "$PAGES?$q" >"$BATS_TEST_TMPDIR/page"
	grep -qF 'o&#39;b&amp;x{y}@users.test' "$BATS_TEST_TMPDIR/page"
	# A script as the address, the token, the list: refused, never echoed.
	for u in "$PAGES?l=mylist%40example.org&c=%3Cscript%3E" \
		"$PAGES?l=%3Cscript%3E%40example.org" \
		"$PAGES?l=mylist%40example.org&a=%3Cscript%3E%40x.test&t=1&s=0"; do
		curl -s "$u" >"$BATS_TEST_TMPDIR/page"
		run ! grep -qi '<script' "$BATS_TEST_TMPDIR/page"
	done
	run subscribe_post '<script>@users.test'
	[ "$output" = 400 ]
	run ! grep -qi '<script' "$BATS_TEST_TMPDIR/body"
	for f in "$BATS_TEST_TMPDIR"/page "$BATS_TEST_TMPDIR"/body; do
		run ! grep -q '<script' "$f"
	done
	# No page allows a script to run even if one slipped through.
	curl -s -D - -o /dev/null "$PAGES?l=mylist%40example.org" |
		grep -qi "^Content-Security-Policy: default-src 'none'"
}

@test "address enumeration: a subscriber and a stranger get the same answer" {
	run subscribe_post bob@users.test
	[ "$output" = 200 ]
	sed 's/bob@users.test/ADDR/g' "$BATS_TEST_TMPDIR/body" >"$BATS_TEST_TMPDIR/member"
	run subscribe_post zed@users.test
	[ "$output" = 200 ]
	sed 's/zed@users.test/ADDR/g' "$BATS_TEST_TMPDIR/body" >"$BATS_TEST_TMPDIR/stranger"
	cmp "$BATS_TEST_TMPDIR/member" "$BATS_TEST_TMPDIR/stranger"
	# The list's page names no subscriber.
	curl -s "$PAGES?l=mylist%40example.org" >"$BATS_TEST_TMPDIR/page"
	run ! grep -q bob "$BATS_TEST_TMPDIR/page"
}

@test "a flood of 1,000 POSTs: the rate limits answer 429 and 503 and the runner gets a bounded number of requests" {
	slow "1,000 POSTs through lighttpd and the CGI"
	printf '[unsubscribe]\naddress_requests_per_hour = 3\nrequests_per_minute = 20\n' >>"$CONF"
	f=$(form_token)
	seq 1000 | sed "s/.*/a=u&%40users.test\\&f=$f/" >"$BATS_TEST_TMPDIR/bodies"
	# Half the POSTs from one address, half from a thousand.
	awk 'NR % 2 { print "a=same%40users.test&f='"$f"'"; next } { print }' \
		"$BATS_TEST_TMPDIR/bodies" >"$BATS_TEST_TMPDIR/mixed"
	xargs -P 16 -I{} curl -s -o /dev/null -w '%{http_code}\n' --data '{}' \
		"$PAGES?l=mylist%40example.org" <"$BATS_TEST_TMPDIR/mixed" \
		>"$BATS_TEST_TMPDIR/codes"
	[ "$(wc -l <"$BATS_TEST_TMPDIR/codes")" -eq 1000 ]
	ok=$(grep -c '^200$' "$BATS_TEST_TMPDIR/codes" || true)
	limited=$(grep -c -E '^(429|503)$' "$BATS_TEST_TMPDIR/codes" || true)
	[ "$((ok + limited))" -eq 1000 ]
	[ "$ok" -le 20 ]
	[ "$ok" -ge 1 ]
	grep -q '^429$' "$BATS_TEST_TMPDIR/codes"
	grep -q '^503$' "$BATS_TEST_TMPDIR/codes"
	[ "$(requests)" -eq "$ok" ]
}

# modlist - a list whose non-members' posts are held for boss, with its
# pages; a post from zed (SUBJECT, BODY) held; sets MOD, the page link
# of the notice
modlist_held() {
	MJQ_LIST_POSTING='' mjq_list example.org modlist bob@users.test
	printf '[list]\nowners = boss@users.test\npages_url = %s\n' "$PAGES" \
		>>"$LISTS/example.org/modlist/config"
	printf 'From: Zed <zed@users.test>\nSubject: %s\nMessage-Id: <%s@users.test>\n\n%s\n' \
		"$1" "$RANDOM$RANDOM" "$2" |
		"$MJ_ENQUEUE" -C "$CONF" -d example.org -l modlist -r -f zed@users.test
	runq
	MOD=$(cat "$SAVE"/* | tr -d '\r' | grep -o 'http://[^ ]*&m=[0-9a-f-]*' | tail -1)
	[ -n "$MOD" ]
}

# got ADDR - messages the sink accepted for ADDR
got() {
	grep -c "to=<$1>\$" "$BATS_TEST_TMPDIR/users/log" || true
}

@test "a moderator opens the notice's link, sees the held post safely, and approves it in a browser" {
	slow "a browser session"
	/usr/bin/python3 -c "import selenium" 2>/dev/null || skip "needs python3-selenium (make test installs it)"
	[ -x /usr/bin/chromedriver ] || skip "needs chromium-driver (make test installs it)"
	modlist_held '<script>alert(1)</script> offer' $'Hello <img src="http://tracker.test/x.png">\n> quoted <b>bold</b>'
	[ "$(got bob@users.test)" -eq 0 ]
	# A scanner's GET changes nothing.
	curl -s -o /dev/null "$MOD"
	[ "$(requests)" -eq 0 ]
	browse held "$MOD" press:approve
	grep -qF '&lt;script&gt;alert(1)&lt;/script&gt; offer' "$SHOTS/held.html"
	grep -qF '&lt;img src=' "$SHOTS/held.html"
	run ! grep -qi '<script\|<img' "$SHOTS/held.html"
	grep -q 'is not a subscriber' "$SHOTS/held.html"
	grep -q 'sent to the list' "$SHOTS/held-after.html"
	[ -z "${MJQ_KEEP_SCREENSHOTS:-}" ] || cp "$SHOTS"/*.png "$MJQ_KEEP_SCREENSHOTS"
	runq
	[ "$(got bob@users.test)" -eq 1 ]
	# The link is spent.
	run curl -s -o /dev/null -w '%{http_code}' "$MOD"
	[ "$output" = 410 ]
}

@test "the held post's page shows it as the archive does: its Latin-1 base64 text decoded, quoted lines set apart, an attachment named and never served" {
	MJQ_LIST_POSTING='' mjq_list example.org modlist bob@users.test
	printf '[list]\nowners = boss@users.test\npages_url = %s\n' "$PAGES" \
		>>"$LISTS/example.org/modlist/config"
	printf '%s\n' 'From: Zed <zed@users.test>' 'Subject: mime' \
		"Message-Id: <$RANDOM$RANDOM@users.test>" 'MIME-Version: 1.0' \
		'Content-Type: multipart/mixed; boundary="B"' '' '--B' \
		'Content-Type: text/plain; charset=iso-8859-1' \
		'Content-Transfer-Encoding: base64' '' \
		'Y2Fm6SBhdSBsYWl0Cj4gcXVvdGVkIGxpbmUK' '--B' \
		'Content-Type: application/pdf; name="plan<x>.pdf"' \
		'Content-Disposition: attachment; filename="plan<x>.pdf"' \
		'Content-Transfer-Encoding: base64' '' 'JVBERi0xLjQK' '--B--' |
		"$MJ_ENQUEUE" -C "$CONF" -d example.org -l modlist -r -f zed@users.test
	runq
	MOD=$(cat "$SAVE"/* | tr -d '\r' | grep -o 'http://[^ ]*&m=[0-9a-f-]*' | tail -1)
	[ -n "$MOD" ]
	curl -s "$MOD" >"$BATS_TEST_TMPDIR/held.html"
	grep -q 'café au lait' "$BATS_TEST_TMPDIR/held.html"
	grep -q '<blockquote class="q1">.*quoted line' "$BATS_TEST_TMPDIR/held.html"
	grep -qF 'plan&lt;x&gt;.pdf (application/pdf, 9 bytes)' "$BATS_TEST_TMPDIR/held.html"
	run -1 grep -q 'Y2Fm6SBh\|JVBERi0\|<a ' "$BATS_TEST_TMPDIR/held.html"
	# the GET approved nothing
	[ "$(got bob@users.test)" -eq 0 ]
}

@test "reject with a reason and discard from the held post's page; its tokens work on no other list and once" {
	modlist_held 'first' 'one'
	first=$MOD
	# The notice's tokens on another list's page: refused.
	run curl -s -o /dev/null -w '%{http_code}' "${first/modlist%40/mylist%40}"
	[ "$output" = 403 ]
	run post_status "${first/modlist%40/mylist%40}" "do=approve"
	[ "$output" = 403 ]
	# The tokens shuffled (reject's where approve's is): refused.
	m=${first##*m=}
	run curl -s -o /dev/null -w '%{http_code}' "${first%%m=*}m=${m:33:32}-${m:0:32}-${m:66:32}"
	[ "$output" = 403 ]
	[ "$(requests)" -eq 0 ]
	# A reason of two lines (no browser sends one) is refused.
	run post_status "$first" "do=reject&reason=Off+topic%0D%0ABcc:+x@evil.test"
	[ "$output" = 400 ]
	[ "$(requests)" -eq 0 ]
	run post_status "$first" "do=reject&reason=Off+topic+%3Cb%3E%2C+see+the+FAQ"
	[ "$output" = 200 ]
	runq
	[ "$(got zed@users.test)" -eq 1 ]
	cat "$SAVE"/* | tr -d '\r' | grep -q 'rejected by a moderator: Off topic <b>, see the FAQ'
	[ "$(got x@evil.test)" -eq 0 ]
	run post_status "$first" "do=approve"
	[ "$output" = 410 ]
	modlist_held 'second' 'two'
	run post_status "$MOD" "do=discard"
	[ "$(got zed@users.test)" -eq 1 ]
	[ "$output" = 200 ]
	runq
	[ "$(got bob@users.test)" -eq 0 ]
	[ "$(got zed@users.test)" -eq 1 ]
	[ -z "$(find "$SPOOL/HOLD" -type f ! -name '.*')" ]
}

# valid FILE - HTML Tidy finds no error or warning in the page FILE
# (headers cut off)
valid() {
	sed '1,/^\r\{0,1\}$/d' "$1" >"$1.html"
	tidy -q -e --show-warnings yes "$1.html"
}

@test "every page is HTML5 that HTML Tidy passes without a warning, and fits a phone's width" {
	command -v tidy >/dev/null || skip "needs tidy (make test installs it)"
	echo 'About <this> list & more.' >"$LISTS/example.org/mylist/info"
	run subscribe_post ann@users.test
	runq
	link=$(confirm_link ann@users.test)
	modlist_held 'a <held> post' 'body & more'
	n=0
	for u in "$PAGES?l=mylist%40example.org" "$link" \
		"$PAGES?$(options_query bob@users.test mylist)" "$MOD" \
		"$PAGES?l=nosuch%40example.org" "$PAGES?l=mylist%40example.org&c=bad"; do
		n=$((n + 1))
		curl -s -i "$u" >"$BATS_TEST_TMPDIR/p$n"
		grep -q '<meta name="viewport" content="width=device-width' "$BATS_TEST_TMPDIR/p$n"
		valid "$BATS_TEST_TMPDIR/p$n" || { echo "page $u"; false; }
	done
	for b in "a=ann%40users.test&f=$(form_token)" "a=bad&f=$(form_token)" "c=${link##*c=}"; do
		n=$((n + 1))
		curl -s -i --data "$b" "$PAGES?l=mylist%40example.org" >"$BATS_TEST_TMPDIR/p$n"
		valid "$BATS_TEST_TMPDIR/p$n" || { echo "POST $b"; false; }
	done
}

# ask_held FROM - "held modlist" from FROM to modlist-request, run
ask_held() {
	printf 'From: <%s>\nSubject: held modlist\n\n' "$1" |
		"$MJ_ENQUEUE" -C "$CONF" -d example.org -l modlist -q -f "$1"
	runq
}

@test "the held posts' page: a moderator's link by mail lists them, each linked to its page; nobody else gets one; it expires" {
	modlist_held 'first <b>' 'one'
	modlist_held 'second' 'two'
	second=$MOD
	ask_held zed@users.test
	run ! grep -q '&q=' <(cat "$SAVE"/* | tr -d '\r')
	cat "$SAVE"/* | tr -d '\r' | grep -q 'Only the moderators of modlist@example.org'
	ask_held boss@users.test
	q=$(cat "$SAVE"/* | tr -d '\r' | grep -o 'http://[^ ]*&q=[0-9a-f]*' | tail -1)
	[ -n "$q" ]
	curl -s "$q" >"$BATS_TEST_TMPDIR/queue"
	grep -qF 'first &lt;b&gt; (Zed &lt;zed at users.test&gt;)' "$BATS_TEST_TMPDIR/queue" ||
		grep -qF 'first &lt;b&gt;' "$BATS_TEST_TMPDIR/queue"
	[ "$(grep -c '<li><a href=' "$BATS_TEST_TMPDIR/queue")" -eq 2 ]
	grep -qF "m=${second##*m=}" "$BATS_TEST_TMPDIR/queue"
	# boss is the owner: the owner's read-only view follows.
	grep -q '<h2>Subscribers</h2>' "$BATS_TEST_TMPDIR/queue"
	grep -q '<tr><td>each</td><td>1</td></tr>' "$BATS_TEST_TMPDIR/queue"
	grep -q '<h2>Delivery disabled</h2>' "$BATS_TEST_TMPDIR/queue"
	grep -q '<tr><td>recipient</td><td>0</td></tr>' "$BATS_TEST_TMPDIR/queue"
	grep -q '<h2>Incidents</h2>' "$BATS_TEST_TMPDIR/queue"
	if command -v tidy >/dev/null; then
		curl -s -i "$q" >"$BATS_TEST_TMPDIR/queue.http"
		valid "$BATS_TEST_TMPDIR/queue.http"
	fi
	if /usr/bin/python3 -c "import selenium" 2>/dev/null && [ -x /usr/bin/chromedriver ]; then
		browse queue "$q"
	fi
	# Another list's page refuses the token; a POST to it does nothing.
	run curl -s -o /dev/null -w '%{http_code}' "${q/modlist%40/mylist%40}"
	[ "$output" = 403 ]
	run post_status "$q" "do=approve"
	[ "$output" = 405 ]
	[ "$(requests)" -eq 0 ]
	# A moderator who is not an owner sees the held posts only.
	echo 'moderators = mod@users.test' >>"$LISTS/example.org/modlist/config"
	ask_held mod@users.test
	mq=$(cat "$SAVE"/* | tr -d '\r' | grep -o 'http://[^ ]*&q=[0-9a-f]*' | grep -v "${q##*q=}" | tail -1)
	[ -n "$mq" ]
	curl -s "$mq" >"$BATS_TEST_TMPDIR/mqueue"
	[ "$(grep -c '<li><a href=' "$BATS_TEST_TMPDIR/mqueue")" -eq 2 ]
	run ! grep -q 'Subscribers\|bob@' "$BATS_TEST_TMPDIR/mqueue"
	# Past its lifetime ([request] token_lifetime) the link is gone.
	touch -d '30 days ago' "$SPOOL/state/tokens/${q##*q=}"
	run curl -s -o /dev/null -w '%{http_code}' "$q"
	[ "$output" = 410 ]
}

@test "options by mail: the link to one's own options page, to the asker only, the same for a subscriber and a stranger" {
	for a in bob@users.test zed@users.test; do
		printf 'From: <%s>\nSubject: options mylist\n\n' "$a" |
			"$MJ_ENQUEUE" -C "$CONF" -d example.org -l mylist -q -f "$a"
	done
	runq
	[ "$(got bob@users.test)" -eq 1 ]
	[ "$(got zed@users.test)" -eq 1 ]
	for a in bob zed; do
		link=$(tr -d '\r' <"$(saved_to "$a@users.test" | tail -1)" | grep -o 'http://[^ ]*mj_listweb?[^ ]*')
		[ "${link%%\?*}" = "$PAGES" ]
		[[ "$link" == *"a=$a%40users.test"* ]]
		run curl -s -o "$BATS_TEST_TMPDIR/opt" -w '%{http_code}' "$link"
		[ "$output" = 200 ]
		grep -q "<strong>$a@users.test</strong>" "$BATS_TEST_TMPDIR/opt"
		tr -d '\r' <"$(saved_to "$a@users.test" | tail -1)" | sed -n '/^$/,$p' |
			sed "s/$a@users.test/ADDR/g; s/a=$a%40users.test&t=[0-9]*&s=[0-9a-f]*/LINK/" >"$BATS_TEST_TMPDIR/$a.body"
	done
	cmp "$BATS_TEST_TMPDIR/bob.body" "$BATS_TEST_TMPDIR/zed.body"
	[ "$(requests)" -eq 0 ]
}
