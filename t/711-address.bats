#!/usr/bin/env bats
# One address grammar (common/names.c name_addr_check: RFC 5321's
# Mailbox as mjq stores one) on every path a request takes: a command by
# mail (subscribe, unsubscribe, set, an owner's subscribe for another),
# the requester's own From (enable), the one-click CGI, and the readers
# of the subscribers file.  '#' (a comment in that file), blanks, NUL,
# CR and quoted local parts never become a stored address, and the list's
# own address in any disguise is never subscribed to it.

load helpers
load request_helpers
bats_require_minimum_version 1.5.0

setup() {
	request_setup
	SECRET=$BATS_TEST_TMPDIR/unsubscribe.secret
	printf '[unsubscribe]\nsecret_file = %s\n' "$SECRET" >>"$CONF"
	"$TOP/scripts/mjq-unsubsecret" "$SECRET"
	KEY=$(head -1 "$SECRET")
	mjq_list example.org mylist old@users.test
	printf '[list]\nowners = boss@owner.test\n' >>"$LISTS/example.org/mylist/config"
	SUBS=$LISTS/example.org/mylist/subscribers
}

# request FROM BODY [SENDER] - a request (BODY as printf's format) from
# FROM (envelope sender SENDER, or FROM) to mylist-request, run through
# the runner
request() {
	printf "From: <%s>\nSubject: commands\n\n$2\n" "$1" |
	    "$MJ_ENQUEUE" -C "$CONF" -d example.org -l mylist -q -f "${3:-$1}"
	runq
}

# mailboxes - the addresses that got mail, one a line, sorted
mailboxes() {
	ls "$MAIL" 2>/dev/null | sort
}

# tokens - confirmation tokens made so far
tokens() {
	ls "$SPOOL/state/tokens" 2>/dev/null | wc -l
}

# refused FROM COMMAND WHY - COMMAND from FROM is answered with WHY (a
# fixed string) to FROM alone: no token made, no other mailbox reached
refused() {
	rm -rf "$MAIL"
	request "$1" "$2"
	echo "mailboxes: $(mailboxes | tr '\n' ' ')"
	[ "$(mailboxes)" = "$1" ]
	last "$1" | grep -qF "$3"
	[ "$(tokens)" -eq 0 ]
}

@test "subscribe by mail: '#', a NUL, a CR and a quoted local part are refused with the reason; nothing is mailed to the address" {
	refused ann@users.test 'subscribe mylist victim@victim.test#@evil.test' \
	    "malformed address ('#' in the address (it begins a comment in a subscribers file))"
	refused ann@users.test 'subscribe mylist "victim@victim.test"@evil.test' \
	    'malformed address (a quoted local part (not accepted: the subscribers file cannot hold one))'
	refused ann@users.test 'subscribe mylist "victim"@evil.test' \
	    'malformed address (a quoted local part'
	# a NUL and a CR inside the word split it: the line is refused
	refused ann@users.test 'subscribe mylist victim@victim.test\0@evil.test' \
	    'malformed address'
	refused ann@users.test 'subscribe mylist victim@victim.test\r@evil.test' \
	    'malformed address'
	refused ann@users.test 'subscribe mylist victim@victim.test.' \
	    'malformed address (domain ends with a dot)'
	refused ann@users.test 'unsubscribe mylist old@users.test#@evil.test' \
	    "malformed address ('#' in the address"
	[ "$(cat "$SUBS")" = old@users.test ]
}

@test "an owner's subscribe and set for another address: '#' and a quoted local part are refused" {
	refused boss@owner.test 'subscribe mylist victim@victim.test#@evil.test' \
	    "malformed address ('#' in the address"
	refused boss@owner.test 'set mylist nomail old@users.test#@evil.test' \
	    "malformed address ('#' in the address"
	refused boss@owner.test 'set mylist digest "old"@users.test' \
	    'malformed address (a quoted local part'
	refused old@users.test 'set mylist nomail old@users.test#x' \
	    "malformed address ('#' in the address"
	[ "$(cat "$SUBS")" = old@users.test ]
}

@test "the list's own address in disguise is refused: case, +detail, owner-, -request, trailing dot, majordomo, '#'" {
	local a
	for a in MyList@Example.ORG mylist+x@example.org owner-mylist@example.org \
	    mylist-request@example.org Majordomo+x@example.org owner-MYLIST+y@EXAMPLE.org; do
		refused ann@users.test "subscribe mylist $a" \
		    "<$a> is an address of this server."
	done
	refused ann@users.test 'subscribe mylist mylist@example.org.' \
	    'malformed address (domain ends with a dot)'
	refused ann@users.test 'subscribe mylist mylist@example.org#@evil.test' \
	    "malformed address ('#' in the address"
	refused ann@users.test 'subscribe mylist "mylist"@example.org' \
	    'malformed address (a quoted local part'
	[ "$(cat "$SUBS")" = old@users.test ]
}

@test "enable and subscribe from a From: with '#', a blank or a quote: not answered, the reason logged" {
	rm -rf "$MAIL"
	request 'victim@victim.test#@evil.test' 'enable mylist' bounce@evil.test
	request 'victim@victim.test#@evil.test' 'subscribe mylist' bounce@evil.test
	request 'victim @evil.test' 'enable mylist' bounce@evil.test
	request '"victim"@evil.test' 'subscribe mylist' bounce@evil.test
	[ "$(mailboxes)" = "" ]
	[ "$(tokens)" -eq 0 ]
	[ "$(grep -c "request not answered: no usable From or envelope sender ('#' in the address" "$RUNLOG")" -eq 2 ]
	grep -q 'request not answered: no usable From or envelope sender (a blank in the address)' "$RUNLOG"
	grep -q 'request not answered: no usable From or envelope sender (a quoted local part' "$RUNLOG"
}

# mac ADDR ISSUED - a one-click token for ADDR on mylist, by openssl
mac() {
	printf 'mjq-unsub-1\nmylist\nexample.org\n%s\n%s\n' "$1" "$2" |
		openssl dgst -sha256 -mac HMAC -macopt "hexkey:$KEY" -r |
		cut -c1-32
}

# one_click ADDR ENCODED - the one-click POST of a genuine link for ADDR
# (ENCODED in its query), mj_unsubscribe run as a web server runs a CGI;
# prints the status line
one_click() {
	local t
	t=$(date +%s)
	printf 'List-Unsubscribe=One-Click' |
	    env -i PATH="$PATH" MJQ_CONF="$CONF" REQUEST_METHOD=POST \
	    CONTENT_LENGTH=26 CONTENT_TYPE=application/x-www-form-urlencoded \
	    QUERY_STRING="l=mylist%40example.org&a=$2&t=$t&s=$(mac "$1" "$t")" \
	    "$TOP/unsubscribe/mj_unsubscribe" 2>>"$BATS_TEST_TMPDIR/cgi.log" |
	    sed -n 's/^Status: //p' | tr -d '\r'
}

@test "one-click: a genuine link for an address with '#', a blank, a NUL, a CR or quotes is refused with 400 and queues nothing" {
	run one_click old@users.test old%40users.test
	[ "${output%% *}" = 200 ]
	[ "$(queue_files | wc -l)" -eq 1 ]
	(cd "$SPOOL" && rm -f $(queue_files))
	run one_click 'old@users.test#@evil.test' 'old%40users.test%23%40evil.test'
	echo "status: $output"
	[ "${output%% *}" = 400 ]
	run one_click '"old"@users.test' '%22old%22%40users.test'
	echo "status: $output"
	[ "${output%% *}" = 400 ]
	run one_click 'old @users.test' 'old%20%40users.test'
	[ "${output%% *}" = 400 ]
	run one_click $'old\r@users.test' 'old%0D%40users.test'
	[ "${output%% *}" = 400 ]
	run one_click 'old@users.test' 'old%00%40users.test'
	[ "${output%% *}" = 400 ]
	[ "$(queue_files)" = "" ]
}

@test "the subscribers file: a line whose word holds '#' is skipped with a warning, never read as the address before it" {
	printf 'victim@victim.test#@evil.test\nann@users.test # a comment\n#bob@users.test\n  carl@users.test digest\n' >>"$SUBS"
	printf 'From: ann@users.test\nSubject: hello\n\nhi\n' |
	    "$MJ_ENQUEUE" -C "$CONF" -d example.org -l mylist -r -f ann@users.test
	runq
	echo "mailboxes: $(mailboxes | tr '\n' ' ')"
	[ "$(mailboxes)" = $'ann@users.test\nold@users.test' ]
	grep -q 'subscribers:2: invalid address skipped' "$RUNLOG"
	# the poisoned line is nobody's: victim's unsubscribe leaves it,
	# who does not list it
	request boss@owner.test 'who mylist'
	run -1 grep -q victim <(last boss@owner.test)
	last boss@owner.test | grep -qx '  carl@users.test (digest)'
}

@test "a token made before the grammar for an address with '#' (an attack in flight) confirms nothing: refused, the request not retried" {
	local tok=0123456789abcdef0123456789abcdef
	mkdir -p "$SPOOL/state/tokens"
	printf 'action subscribe\ndomain example.org\nlist mylist\naddress victim@victim.test#@evil.test\nrequester victim@victim.test#@evil.test\n' \
	    >"$SPOOL/state/tokens/$tok"
	request evil@evil.test "confirm $tok"
	echo "subscribers: $(paste -sd' ' "$SUBS")"
	[ "$(cat "$SUBS")" = old@users.test ]
	[ "$(queue_files)" = "" ]
	last evil@evil.test | grep -qx "The token $tok is not valid."
}
