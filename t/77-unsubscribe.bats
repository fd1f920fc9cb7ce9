#!/usr/bin/env bats
# One-click unsubscribe (RFC 8058) end to end: a real lighttpd on a
# loopback port runs mj_unsubscribe as CGI, curl sends what a mailbox
# provider sends, headless Chromium opens the page a person sees, and one
# pass of the runner does the removal.  The test's tokens are made with
# the openssl command, not with mjq's code.

bats_require_minimum_version 1.5.0

load helpers
load smtp_helpers
load request_helpers
load web_helpers

MJ_UNSUBSCRIBE=$TOP/unsubscribe/mj_unsubscribe

setup() {
	command -v lighttpd >/dev/null || skip "needs lighttpd (make test installs it)"
	request_setup
	web_secret
	mjq_list example.org mylist ann@users.test bob+x@users.test carl@users.test
	SUBS=$LISTS/example.org/mylist/subscribers
	web_start "$MJ_UNSUBSCRIBE"
	WEB=$WEB_ROOT/cgi-bin/mj_unsubscribe
}

teardown() {
	[ -z "${WEB_PID:-}" ] || stop_pid "$WEB_PID"
	servers_stop
}

# mac LIST DOMAIN ADDR ISSUED - the token, by the openssl command
mac() {
	web_mac "$@"
}

# link ADDR [ISSUED [LIST]] - the query string a list post carries
link() {
	local addr=$1 t=${2:-$(date +%s)} list=${3:-mylist} enc
	enc=$(printf '%s' "$addr" | sed 's/@/%40/; s/+/%2B/g')
	echo "l=$list%40example.org&a=$enc&t=$t&s=$(mac "$list" example.org "$addr" "$t")"
}

# one_click QUERY - the POST a mailbox provider sends; prints the status
one_click() {
	curl -s -o "$BATS_TEST_TMPDIR/body" -w '%{http_code}' \
		-d 'List-Unsubscribe=One-Click' "$WEB?$1"
}

# request_files - request messages queued, one per line
request_files() {
	queue_files | grep '/request/' || true
}

@test "a provider's one-click POST unsubscribes at once, and the next post does not reach the address" {
	run one_click "$(link bob+x@users.test)"
	[ "$output" = 200 ]
	grep -q 'will get no more mail' "$BATS_TEST_TMPDIR/body"
	[ "$(request_files | wc -l)" -eq 1 ]
	grep -q bob "$SUBS" # not yet: the runner does the edit
	runq
	run ! grep -q bob "$SUBS"
	[ "$(cat "$SUBS")" = $'ann@users.test\ncarl@users.test' ]
	grep -q 'one-click unsubscribe: <bob+x@users.test> is now off mylist@example.org' "$RUNLOG"
	[ "$(mails bob+x@users.test)" -eq 0 ] # no confirmation mail (RFC 8058)
	[ "$(queue_files)" = "" ]
	printf 'From: ann@users.test\nSubject: hello\n\nhi\n' |
		"$MJ_ENQUEUE" -C "$CONF" -d example.org -l mylist -r -f ann@users.test
	runq
	[ "$(mails ann@users.test)" -eq 1 ]
	[ "$(mails carl@users.test)" -eq 1 ]
	[ "$(mails bob+x@users.test)" -eq 0 ]
}

@test "with a goodbye text, a one-click removal mails it to the address once (no confirmation asked); a repeated POST sends no second one" {
	printf 'Sorry to see you go from $LIST.\n' >"$LISTS/example.org/mylist/goodbye"
	run one_click "$(link bob+x@users.test)"
	[ "$output" = 200 ]
	runq
	run ! grep -q bob "$SUBS"
	[ "$(mails bob+x@users.test)" -eq 1 ]
	last bob+x@users.test | grep -qx 'Sorry to see you go from mylist.'
	last bob+x@users.test | grep -qx 'Subject: Goodbye from mylist@example.org'
	last bob+x@users.test | grep -q 'is no longer subscribed to mylist@example.org'
	run ! grep -qi 'confirm' <(last bob+x@users.test)
	# the same link again: nothing to remove, nothing sent
	run one_click "$(link bob+x@users.test)"
	[ "$output" = 200 ]
	runq
	[ "$(mails bob+x@users.test)" -eq 1 ]
	[ "$(queue_files)" = "" ]
}

@test "the multipart/form-data form of the POST works too" {
	run curl -s -o /dev/null -w '%{http_code}' \
		-F 'List-Unsubscribe=One-Click' "$WEB?$(link ann@users.test)"
	[ "$output" = 200 ]
	runq
	run ! grep -q ann "$SUBS"
}

@test "forged, moved and truncated tokens are refused with 403 and queue nothing" {
	t=$(date +%s)
	good=$(link ann@users.test "$t")
	older=$(link ann@users.test "$t" | sed "s/&t=$t&/\&t=$((t - 1))\&/")
	# another address with ann's token
	moved="l=mylist%40example.org&a=carl%40users.test&t=$t&s=$(mac mylist example.org ann@users.test "$t")"
	# another list with ann's token
	other="l=other%40example.org&a=ann%40users.test&t=$t&s=$(mac mylist example.org ann@users.test "$t")"
	mjq_list example.org other ann@users.test
	for q in "${good%?}" "${good%s=*}s=" "${good%s=*}s=$(printf '0%.0s' $(seq 32))" \
		"$moved" "$other" "$older"; do
		run one_click "$q"
		[ "$output" = 403 ] || { echo "query $q gave $output"; false; }
	done
	run one_click "${good%&s=*}"
	[ "$output" = 400 ]
	[ "$(request_files)" = "" ]
	[ "$(cat "$SUBS")" = $'ann@users.test\nbob+x@users.test\ncarl@users.test' ]
}

@test "a token from a rotated-out key still works; one from an unknown key does not" {
	old=$(link carl@users.test)
	"$TOP/scripts/mjq-unsubsecret" -r "$SECRET"
	[ "$(wc -l <"$SECRET")" -eq 2 ]
	[ "$(sed -n 2p "$SECRET")" = "$KEY" ]
	run one_click "$old"
	[ "$output" = 200 ]
	KEY=$(openssl rand -hex 32)
	run one_click "$(link ann@users.test)"
	[ "$output" = 403 ]
	runq
	[ "$(cat "$SUBS")" = $'ann@users.test\nbob+x@users.test' ]
}

@test "an expired link gets 410 and a page that offers the mail route" {
	run one_click "$(link ann@users.test $(( $(date +%s) - 61 * 86400 )))"
	[ "$output" = 410 ]
	grep -q 'href="mailto:mylist-request@example.org?subject=unsubscribe"' "$BATS_TEST_TMPDIR/body"
	[ "$(request_files)" = "" ]
}

@test "an unknown or removed list is 404; an address that is not subscribed is answered as if done" {
	run one_click "$(link ann@users.test "" nolist)"
	[ "$output" = 404 ]
	mjq_list example.org gone ann@users.test
	echo 'closed by the owner' >"$LISTS/example.org/gone/removed"
	run one_click "$(link ann@users.test "" gone)"
	[ "$output" = 404 ]
	[ "$(request_files)" = "" ]
	run one_click "$(link stranger@users.test)"
	[ "$output" = 200 ]
	runq
	grep -q '<stranger@users.test> was not on mylist@example.org' "$RUNLOG"
	[ "$(cat "$SUBS")" = $'ann@users.test\nbob+x@users.test\ncarl@users.test' ]
}

@test "a body over the limit is 413, a POST without One-Click 400, other methods 405" {
	head -c 8000 /dev/zero | tr '\0' a >"$BATS_TEST_TMPDIR/big"
	run curl -s -o /dev/null -w '%{http_code}' \
		--data-binary "@$BATS_TEST_TMPDIR/big" "$WEB?$(link ann@users.test)"
	[ "$output" = 413 ]
	run curl -s -o /dev/null -w '%{http_code}' -d 'List-Unsubscribe=Yes' "$WEB?$(link ann@users.test)"
	[ "$output" = 400 ]
	run curl -s -o /dev/null -w '%{http_code}' -X PUT "$WEB?$(link ann@users.test)"
	[ "$output" = 405 ]
	[ "$(request_files)" = "" ]
}

@test "a spool that cannot be written is 503, nothing half-written, and the mail route still works" {
	rm -rf "$SPOOL/tmp"
	: >"$SPOOL/tmp" # a file where tmp/ belongs: every commit fails
	run one_click "$(link ann@users.test)"
	[ "$output" = 503 ]
	grep -q 'mailto:mylist-request@example.org' "$BATS_TEST_TMPDIR/body"
	[ "$(request_files)" = "" ]
	rm "$SPOOL/tmp" && mkdir "$SPOOL/tmp"
	run one_click "$(link ann@users.test)"
	[ "$output" = 200 ]
	[ -z "$(ls -A "$SPOOL/tmp")" ]
}

@test "a list whose files are missing now (a restore, a file system not mounted) is 503, nothing queued" {
	mv "$SUBS" "$SUBS.away"
	run one_click "$(link ann@users.test)"
	[ "$output" = 503 ]
	mv "$SUBS.away" "$SUBS"
	mv "$LISTS" "$LISTS.away"
	run one_click "$(link ann@users.test)"
	[ "$output" = 503 ]
	mv "$LISTS.away" "$LISTS"
	[ "$(request_files)" = "" ]
}

@test "mail carrying a forged X-Mjq-One-Click header unsubscribes nobody" {
	t=$(date +%s)
	printf 'From: <carl@users.test>\nSubject: x\nX-Mjq-One-Click: %s %s\n\nhi\n' \
		"$t" "$(printf '1%.0s' $(seq 32))" |
		"$MJ_ENQUEUE" -C "$CONF" -d example.org -l mylist -q -f carl@users.test
	runq
	grep -q 'one-click unsubscribe not done: the token does not verify' "$RUNLOG"
	grep -q carl "$SUBS"
	[ "$(mails carl@users.test)" -eq 0 ]
}

@test "a person's GET shows one button and changes nothing; the button unsubscribes" {
	command -v chromium >/dev/null || skip "needs chromium (make test installs it)"
	q=$(link ann@users.test)
	d=$BATS_TEST_TMPDIR/chrome
	set -- --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
		--disable-background-networking --disable-component-update \
		--disable-sync --user-data-dir="$d" --window-size=800,600
	chromium "$@" --screenshot="$BATS_TEST_TMPDIR/page.png" "$WEB?$q" 2>/dev/null
	[ -s "$BATS_TEST_TMPDIR/page.png" ]
	[ -z "${MJQ_KEEP_SCREENSHOTS:-}" ] || cp "$BATS_TEST_TMPDIR/page.png" "$MJQ_KEEP_SCREENSHOTS"
	chromium "$@" --dump-dom "$WEB?$q" 2>/dev/null >"$BATS_TEST_TMPDIR/dom"
	grep -q '<button type="submit" id="unsubscribe">Unsubscribe</button>' "$BATS_TEST_TMPDIR/dom"
	grep -q 'name="List-Unsubscribe" value="One-Click"' "$BATS_TEST_TMPDIR/dom"
	grep -q '<strong>ann@users.test</strong>' "$BATS_TEST_TMPDIR/dom"
	[ "$(request_files)" = "" ]
	[ "$(cat "$SUBS")" = $'ann@users.test\nbob+x@users.test\ncarl@users.test' ]
	# The form's own POST, as the browser sends it from that page.
	action=$(sed -n 's/.*<form method="post" action="\([^"]*\)".*/\1/p' "$BATS_TEST_TMPDIR/dom" | sed 's/&amp;/\&/g')
	run curl -s -o /dev/null -w '%{http_code}' -d 'List-Unsubscribe=One-Click' \
		"${WEB%/cgi-bin/*}$action"
	[ "$output" = 200 ]
	runq
	run ! grep -q ann "$SUBS"
}

# post SUBJECT - a post from ann to mylist, and one runner pass
post() {
	printf 'From: ann@users.test\nSubject: %s\n\nhi\n' "$1" |
		"$MJ_ENQUEUE" -C "$CONF" -d example.org -l mylist -r -f ann@users.test
	runq
}

# link_in ADDR - the https (here http) link of ADDR's newest copy
link_in() {
	last "$1" | sed -n 's/^List-Unsubscribe: <\([^>]*\)>,$/\1/p'
}

@test "with unsubscribe_url each copy carries its recipient's own link, and that link unsubscribes" {
	printf '[list]\nunsubscribe_url = %s\n' "$WEB" >"$LISTS/example.org/mylist/config"
	post first
	for a in ann@users.test bob+x@users.test carl@users.test; do
		[ "$(mails "$a")" -eq 1 ]
		last "$a" | grep -qx 'List-Unsubscribe-Post: List-Unsubscribe=One-Click'
		last "$a" | grep -qx ' <mailto:majordomo@example.org?body=unsubscribe%20mylist>'
		[ "$(last "$a" | grep -c '^List-Unsubscribe:')" -eq 1 ]
	done
	l=$(link_in bob+x@users.test)
	case $l in "$WEB?l=mylist%40example.org&a=bob%2Bx%40users.test&t="*"&s="*) ;; *) false ;; esac
	[ "$l" != "$(link_in ann@users.test)" ]
	# ann's link with bob's token is refused
	t=${l#*&t=}
	run one_click "l=mylist%40example.org&a=ann%40users.test&t=$t"
	[ "$output" = 403 ]
	run curl -s -o /dev/null -w '%{http_code}' -d 'List-Unsubscribe=One-Click' "$l"
	[ "$output" = 200 ]
	runq
	[ "$(cat "$SUBS")" = $'ann@users.test\ncarl@users.test' ]
	post second
	[ "$(mails ann@users.test)" -eq 2 ]
	[ "$(mails bob+x@users.test)" -eq 1 ]
}

@test "over SMTP each recipient of a one-click list gets its own transaction and its own link" {
	printf '[list]\nunsubscribe_url = %s\n' "$WEB" >"$LISTS/example.org/mylist/config"
	smtpd_start users
	sed -i "s/^\* = maildir:.*/* = smtp:[127.0.0.1]:$PORT/" "$CONF"
	post smtp
	d=$BATS_TEST_TMPDIR/users
	[ "$(grep -c ' MAIL FROM:' "$d/trace")" -eq 3 ]
	[ "$(ls "$d/save/new" | wc -l)" -eq 3 ]
	[ "$(cat "$d/save/new"/* | grep -c '^List-Unsubscribe-Post: List-Unsubscribe=One-Click')" -eq 3 ]
	[ "$(cat "$d/save/new"/* | grep '^List-Unsubscribe: <' | sort -u | wc -l)" -eq 3 ]
	# SIZE= counts the recipient's own fields too
	grep ' MAIL FROM:' "$d/trace" | sed 's/.* SIZE=\([0-9]*\).*/\1/' | sort >"$BATS_TEST_TMPDIR/sizes"
	for f in "$d/save/new"/*; do wc -c <"$f"; done | sort >"$BATS_TEST_TMPDIR/saved"
	cat "$BATS_TEST_TMPDIR/sizes" "$BATS_TEST_TMPDIR/saved"
	cmp "$BATS_TEST_TMPDIR/sizes" "$BATS_TEST_TMPDIR/saved"
}

@test "a list with unsubscribe_url but no readable secret defers its post with the reason, untouched" {
	printf '[list]\nunsubscribe_url = %s\n' "$WEB" >"$LISTS/example.org/mylist/config"
	rm "$SECRET"
	post waiting
	grep -q 'one-click unsubscribe links: cannot read secret .*: deferred' "$RUNLOG"
	[ "$(mails ann@users.test)" -eq 0 ]
	[ "$(queue_files | wc -l)" -eq 1 ]
	"$TOP/scripts/mjq-unsubsecret" "$SECRET"
	make_due
	runq
	[ "$(mails ann@users.test)" -eq 1 ]
}

@test "a secret that others can read is refused as a DKIM key is: the CGI answers 503, a post waits, a queued request waits" {
	printf '[list]\nunsubscribe_url = %s\n' "$WEB" >"$LISTS/example.org/mylist/config"
	q=$(link ann@users.test)
	# a request queued while the secret was still private
	run one_click "$q"
	[ "$output" = 200 ]
	for mode in 0640 0604 0644; do
		chmod "$mode" "$SECRET"
		run one_click "$q"
		[ "$output" = 503 ] || { echo "mode $mode gave $output"; false; }
	done
	post waiting
	grep -q "one-click unsubscribe links: secret $SECRET must be a regular file of mode 0600 (or 0400) and under 4096 bytes: deferred" "$RUNLOG"
	grep -q "one-click unsubscribe: secret $SECRET must be a regular file" "$RUNLOG"
	[ "$(mails ann@users.test)" -eq 0 ]
	grep -q ann "$SUBS"
	# private again: the post goes, the request is done
	chmod 0600 "$SECRET"
	make_due
	runq
	[ "$(mails carl@users.test)" -eq 1 ]
	run ! grep -q ann "$SUBS"
}

@test "an old link does not unsubscribe someone who subscribed again; a link made since does; the record stays small" {
	old=$(link bob+x@users.test $(($(date +%s) - 3600)))
	# a line older than token_lifetime, left from long ago: dropped
	printf 'gone@users.test 1000\n' >"$SUBS.since"
	run one_click "$old"
	[ "$output" = 200 ]
	runq
	run ! grep -q bob "$SUBS"
	# bob subscribes again by mail, and confirms
	printf 'From: bob+x@users.test\nSubject: subscribe\n\n' |
		"$MJ_ENQUEUE" -C "$CONF" -d example.org -l mylist -q -f bob+x@users.test
	runq
	tok=$(token_of bob+x@users.test)
	[ ${#tok} -eq 32 ]
	printf 'From: bob+x@users.test\nSubject: Re: confirm %s\n\n' "$tok" |
		"$MJ_ENQUEUE" -C "$CONF" -d example.org -l mylist -q -f bob+x@users.test
	runq
	grep -qx 'bob+x@users.test' "$SUBS"
	# the old link again: answered as any other (membership is told to
	# nobody), but it belongs to the earlier subscription
	run one_click "$old"
	[ "$output" = 200 ]
	runq
	grep -q 'one-click unsubscribe: <bob+x@users.test> subscribed again after the link was made: stays on mylist@example.org' "$RUNLOG"
	grep -qx 'bob+x@users.test' "$SUBS"
	# a link made since the new subscription works
	run one_click "$(link bob+x@users.test)"
	[ "$output" = 200 ]
	runq
	run ! grep -q bob "$SUBS"
	[ "$(cat "$SUBS")" = $'ann@users.test\ncarl@users.test' ]
	# one line per address changed, none older than the lifetime
	[ "$(cut -d' ' -f1 "$SUBS.since")" = 'bob+x@users.test' ]
}

@test "POSTs are bounded per address (429) and in all (503) by a small file under the spool; refusals queue and write nothing" {
	printf 'address_requests_per_hour = 3\nrequests_per_minute = 8\n' >>"$CONF"
	q=$(link ann@users.test)
	for i in 1 2 3; do
		run one_click "$q"
		[ "$output" = 200 ]
	done
	run one_click "$q"
	[ "$output" = 429 ]
	grep -q 'asked too often' "$BATS_TEST_TMPDIR/body"
	[ "$(request_files | wc -l)" -eq 3 ]
	# other addresses (subscribed or not: the same answer) up to the
	# global bound; the 429 above was not counted in it
	for a in bob+x@users.test carl@users.test s1@users.test s2@users.test s3@users.test; do
		run one_click "$(link "$a")"
		[ "$output" = 200 ] || { echo "$a: $output"; false; }
	done
	cp "$SPOOL/state/unsubscribe" "$BATS_TEST_TMPDIR/rate"
	run one_click "$(link s4@users.test)"
	[ "$output" = 503 ]
	grep -q 'Too many requests right now' "$BATS_TEST_TMPDIR/body"
	run one_click "$q"
	[ "$output" = 503 ]
	[ "$(request_files | wc -l)" -eq 8 ]
	# one line for all and one per address let through, each with the
	# end of its period; the refusals changed nothing
	cmp "$SPOOL/state/unsubscribe" "$BATS_TEST_TMPDIR/rate"
	[ "$(wc -l <"$SPOOL/state/unsubscribe")" -eq 7 ]
	grep -Eq '^[0-9]+ 8 \*$' "$SPOOL/state/unsubscribe"
	grep -Eq '^[0-9]+ 3 ann@users.test mylist@example.org$' "$SPOOL/state/unsubscribe"
	# a GET is never counted
	run curl -s -o /dev/null -w '%{http_code}' "$WEB?$(link s5@users.test)"
	[ "$output" = 200 ]
	# the runner does the 8 requests; the bounds do not touch it
	runq
	[ "$(cat "$SUBS")" = "" ]
	[ "$(queue_files)" = "" ]
}

@test "one-click unsubscribe removes a subscriber in any mode (digest, nomail)" {
	printf 'ann@users.test digest\nbob+x@users.test nomail # away\ncarl@users.test digest-plain\n' >"$SUBS"
	for a in ann@users.test bob+x@users.test carl@users.test; do
		run one_click "$(link "$a")"
		[ "$output" = 200 ]
	done
	runq
	[ "$(grep -c . "$SUBS")" -eq 0 ]
	grep -q 'one-click unsubscribe: <bob+x@users.test> is now off mylist@example.org' "$RUNLOG"
}

@test "digest readers of a one-click list get their own link in each digest, signed as a post's copy, and the link unsubscribes them" {
	printf '[dkim]\nsign = yes\nselectors = s1\n' >>"$CONF"
	"$TOP/scripts/mjq-dkimkey" -C "$CONF" example.org s1 >/dev/null
	printf 'ann@users.test digest\nbob+x@users.test\ncarl@users.test digest-plain\n' >"$SUBS"
	printf '[list]\nposting = open\ndmarc_mitigation = none\nunsubscribe_url = %s\ndigest = yes\ndigest_size = 1k\n' \
		"$WEB" >"$LISTS/example.org/mylist/config"
	# one post over digest_size: an issue at once
	{
		printf 'From: bob+x@users.test\nSubject: big\n\n'
		for i in $(seq 1 30); do printf 'line %02d of a post that fills a digest by itself\n' "$i"; done
	} | "$MJ_ENQUEUE" -C "$CONF" -d example.org -l mylist -r -f bob+x@users.test
	runq
	runq
	grep -q 'digest volume 1 issue 1 made: 1 post(s), 1 MIME and 1 plain reader(s)' "$RUNLOG"
	[ "$(mails bob+x@users.test)" -eq 1 ]
	for a in ann@users.test carl@users.test; do
		[ "$(mails "$a")" -eq 1 ]
		last "$a" | grep -q '^Subject: mylist Digest, Vol 1, Issue 1$'
		# one List-Unsubscribe, this reader's: the link and the mailto
		[ "$(last "$a" | grep -c '^List-Unsubscribe:')" -eq 1 ]
		last "$a" | grep -qx ' <mailto:majordomo@example.org?body=unsubscribe%20mylist>'
		last "$a" | grep -qx 'List-Unsubscribe-Post: List-Unsubscribe=One-Click'
		enc=$(printf '%s' "$a" | sed 's/@/%40/')
		case $(link_in "$a") in "$WEB?l=mylist%40example.org&a=$enc&t="*"&s="*) ;; *) false ;; esac
		# signed over both fields, per copy (python3-dkim)
		f=$(ls -t "$MAIL/$a/new"/* | head -1)
		run -0 "$TOP/t/tools/mj_dkimverify.py" -n 1 "$f" "$LISTS/example.org/.dkim"
		h=$(tr -d '\n\t ' <"$f" | sed -n 's/.*DKIM-Signature:[^;]*;\(.*\)/\1/p' | tr ';' '\n' | sed -n 's/^h=//p' | head -1 | tr 'A-Z' 'a-z')
		[[ ":$h:" == *":list-unsubscribe:list-unsubscribe-post:"* ]]
	done
	[ "$(link_in ann@users.test)" != "$(link_in carl@users.test)" ]
	# each reader's own link takes that reader off, whatever its mode
	for a in ann@users.test carl@users.test; do
		run curl -s -o /dev/null -w '%{http_code}' -d 'List-Unsubscribe=One-Click' "$(link_in "$a")"
		[ "$output" = 200 ]
	done
	runq
	[ "$(cat "$SUBS")" = 'bob+x@users.test' ]
	grep -q 'one-click unsubscribe: <ann@users.test> is now off mylist@example.org' "$RUNLOG"
	grep -q 'one-click unsubscribe: <carl@users.test> is now off mylist@example.org' "$RUNLOG"
}
