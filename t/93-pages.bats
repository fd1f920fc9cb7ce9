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
MJQ_LIST_POSTING=open

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
	browse options "$PAGES?$(options_query ann@users.test mylist)" check:mode-digest press:set
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
	[ -z "${MJQ_KEEP_SCREENSHOT:-}" ] || cp "$SHOTS"/*.png "$MJQ_KEEP_SCREENSHOT"
}
