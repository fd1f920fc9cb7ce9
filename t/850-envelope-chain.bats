#!/usr/bin/env bats
# t/850-envelope-chain.bats - one round trip per copy: when each
# recipient gets a transaction of its own (one-click header fields,
# VERP) and the server offers PIPELINING, the next copy's MAIL, RCPT
# and DATA go out in the write of this copy's text and final dot
# (smtp/smtp_xact.c).  The runner against mj_testsmtpd on loopback: its
# trace (--trace-eod) gives each command and each end of data the
# number of the read that brought it; scripted replies for the Nth
# stage of a session (eod#2) refuse or break one copy.

load helpers
load smtp_helpers
bats_require_minimum_version 1.5.0

S=$BATS_TEST_TMPDIR/s

setup() {
	mjq_setup </dev/null
	printf '[unsubscribe]\nsecret_file = %s\n' "$BATS_TEST_TMPDIR/secret" >>"$CONF"
	"$TOP/scripts/mjq-unsubsecret" "$BATS_TEST_TMPDIR/secret"
}

teardown() {
	servers_stop
	if [ -n "${PF:-}" ]; then
		pf_stop "$PF"
		rm -rf "$PF"
	fi
}

# chain_list KIND ADDR... - the server (its options in the array SMTPD,
# tracing ends of data) and list l@ex.org whose copies each go alone:
# KIND oneclick (unsubscribe_url) or verp
SMTPD=()
chain_list() {
	local kind=$1
	shift
	smtpd_start s --trace-eod "${SMTPD[@]}"
	printf '[transport_map]\nd.test = smtp:[127.0.0.1]:%s\n' "$PORT" >>"$CONF"
	mjq_list ex.org l "$@"
	case $kind in
	oneclick) echo 'unsubscribe_url = https://ex.org/u' ;;
	verp) echo 'verp = yes' ;;
	esac >>"$LISTS/ex.org/l/config"
}

post() {
	printf 'From: poster@example.net\nSubject: hi\n\nhello\n' |
		"$MJ_ENQUEUE" -C "$CONF" -d ex.org -l l -r -f poster@example.net
}

# chained - how many ends of data came in the same read as the next
# MAIL FROM (the envelope sent behind the final dot)
chained() {
	awk '$3 == "." { dot = $1 " " $2; next }
		dot != "" && $3 == "MAIL" && $1 " " $2 == dot { n++ }
		{ dot = "" }
		END { print n + 0 }' "$S/trace"
}

# status ADDR - the runner's status for ADDR and its reason
status() {
	sed -n "s/.* to=<$1>, .*status=\(.*\), tls=.*/\1/p" "$BATS_TEST_TMPDIR/run.log"
}

# delivered - "session to" of each delivery, in order
delivered() {
	sed 's/^\([0-9]*\) [0-9]* from=<[^>]*> to=<\(.*\)>$/\1 \2/' "$S/log"
}

@test "one-click copies: each final dot carries the next envelope, no RSET, SIZE= of each copy right" {
	chain_list oneclick a@d.test b@d.test c@d.test dd@d.test
	post
	runq
	[ "$(delivered)" = "1 a@d.test
1 b@d.test
1 c@d.test
1 dd@d.test" ]
	[ "$(chained)" -eq 3 ]
	run ! grep -q ' RSET$' "$S/trace"
	# each copy has its own link, and SIZE= (sent a copy ahead) counts it
	[ "$(cat "$S/save/new"/* | grep '^List-Unsubscribe: <' | sort -u | wc -l)" -eq 4 ]
	grep ' MAIL FROM:' "$S/trace" | sed 's/.* SIZE=\([0-9]*\).*/\1/' >"$BATS_TEST_TMPDIR/sizes"
	for m in 1 2 3 4; do wc -c <"$S/save/new/$m"; done >"$BATS_TEST_TMPDIR/saved"
	cmp "$BATS_TEST_TMPDIR/sizes" "$BATS_TEST_TMPDIR/saved"
	# the address lengths differ: so do the sizes
	[ "$(sort -u "$BATS_TEST_TMPDIR/sizes" | wc -l)" -eq 2 ]
	grep -qx '1 [0-9]* QUIT' "$S/trace"
}

@test "VERP copies: chained the same way, each with its own envelope sender" {
	chain_list verp a@d.test b@d.test c@d.test
	post
	runq
	[ "$(cat "$S/log")" = "1 1 from=<l-owner+a=d.test@ex.org> to=<a@d.test>
1 2 from=<l-owner+b=d.test@ex.org> to=<b@d.test>
1 3 from=<l-owner+c=d.test@ex.org> to=<c@d.test>" ]
	[ "$(chained)" -eq 2 ]
	run ! grep -q ' RSET$' "$S/trace"
}

@test "one write per copy on the runner's side (strace), where there were two" {
	command -v strace >/dev/null || skip "no strace"
	chain_list oneclick a@d.test b@d.test c@d.test dd@d.test e@d.test f@d.test
	post
	ASAN_OPTIONS=detect_leaks=0 timeout 60 strace -f -qq -o "$BATS_TEST_TMPDIR/strace" \
		-e trace=sendto "$MJ_QUEUERUN" -C "$CONF" -1 2>>"$BATS_TEST_TMPDIR/run.log"
	[ "$(wc -l <"$S/log")" -eq 6 ]
	# EHLO, the first envelope, one per copy (its text and the next
	# envelope), QUIT; unchained, each copy was an envelope and a text
	fd=$(sed -n 's/.* sendto(\([0-9]*\), "EHLO .*/\1/p' "$BATS_TEST_TMPDIR/strace")
	[ "$(grep -c " sendto($fd, " "$BATS_TEST_TMPDIR/strace")" -eq $((1 + 1 + 6 + 1)) ]
}

@test "a copy's text refused (554): that copy bounces, the next one, already on its way, is delivered" {
	SMTPD=(--reply 'eod#2=554 5.7.1 rejected')
	chain_list oneclick a@d.test b@d.test c@d.test
	post
	runq
	[ "$(delivered)" = "1 a@d.test
1 c@d.test" ]
	[ "$(status b@d.test)" = "bounced (554 5.7.1 rejected)" ]
	[ "$(chained)" -eq 2 ]
	run ! grep -q ' RSET$' "$S/trace"
}

@test "the next copy's MAIL refused: it bounces, its DATA's reply is read, the copy after goes on the same session" {
	SMTPD=(--reply 'mail#2=550 5.7.1 not you')
	chain_list oneclick a@d.test b@d.test c@d.test
	post
	runq
	[ "$(delivered)" = "1 a@d.test
1 c@d.test" ]
	[ "$(status b@d.test)" = "bounced (550 5.7.1 not you)" ]
	[ "$(status c@d.test)" = "sent (250 2.0.0 Ok: queued as 2)" ]
	# b's envelope went behind a's dot; b had no text, so c's envelope
	# follows b's DATA reply (554 here), after a RSET
	[ "$(chained)" -eq 1 ]
	[ "$(grep -c ' RSET$' "$S/trace")" -eq 1 ]
	[ "$(grep -c ' DATA$' "$S/trace")" -eq 3 ]
}

@test "the next copy's RCPT refused: it bounces, the copy after is delivered" {
	SMTPD=(--rcpt 'b@d.test=550 5.1.1 no such user')
	chain_list oneclick a@d.test b@d.test c@d.test
	post
	runq
	[ "$(delivered)" = "1 a@d.test
1 c@d.test" ]
	[ "$(status b@d.test)" = "bounced (550 5.1.1 no such user)" ]
	[ "$(chained)" -eq 1 ]
}

@test "421 after a copy's text: that copy waits with the 421, the next one goes over a new session" {
	SMTPD=(--reply 'eod#3=421 4.3.2 shutting down')
	chain_list oneclick a@d.test b@d.test c@d.test dd@d.test e@d.test
	post
	runq
	[ "$(delivered)" = "1 a@d.test
1 b@d.test
2 dd@d.test
2 e@d.test" ]
	[ "$(status c@d.test)" = "deferred (421 4.3.2 shutting down)" ]
	# dd's envelope went behind c's dot, unanswered (the server hung
	# up first); it went again, alone, on session 2, and e behind it
	[ "$(grep -c 'RCPT TO:<dd@d.test>$' "$S/trace")" -eq 1 ]
	[ "$(chained)" -eq 3 ]
	[ "$(queue_files | wc -l)" -eq 1 ]
}

@test "the connection lost after a copy's text: it waits (may be sent twice), the next one goes over a new session" {
	SMTPD=(--drop eod#2)
	chain_list oneclick a@d.test b@d.test c@d.test
	post
	runq
	[ "$(delivered)" = "1 a@d.test
2 c@d.test" ]
	status b@d.test | grep -q '^deferred (lost connection with .* while sending end of data -- message may be sent more than once)$'
	[ "$(chained)" -eq 1 ]
	[ "$(queue_files | wc -l)" -eq 1 ]
}

@test "421 to the envelope sent ahead, after the copy's 250: the next copy, nothing of it accepted, goes over a new session" {
	SMTPD=(--reply 'mail#2=421 4.3.2 bye')
	chain_list oneclick a@d.test b@d.test c@d.test
	post
	runq
	# (every session says 421 to its second MAIL: one copy each)
	[ "$(delivered)" = "1 a@d.test
2 b@d.test
3 c@d.test" ]
	[ "$(status b@d.test)" = "sent (250 2.0.0 Ok: queued as 2)" ]
	[ "$(chained)" -eq 2 ]
	[ -z "$(queue_files)" ]
}

@test "a copy over the server's SIZE is refused here and never sent ahead; the copy after goes with RSET" {
	# the long address makes a longer link: its copy alone is too big
	SMTPD=(--size 500)
	chain_list oneclick a@d.test \
		a-very-long-local-part-that-grows-the-copy@d.test c@d.test
	post
	runq
	[ "$(delivered)" = "1 a@d.test
1 c@d.test" ]
	status a-very-long-local-part-that-grows-the-copy@d.test |
		grep -q '^bounced (message size [0-9]* exceeds size limit 500 of server '
	run ! grep -q 'a-very-long' "$S/trace"
	[ "$(chained)" -eq 0 ]
	[ "$(grep -c ' RSET$' "$S/trace")" -eq 1 ]
}

@test "batches: the last copy of each ends as before, the session is cached, the next batch starts with RSET" {
	chain_list oneclick a@d.test b@d.test c@d.test dd@d.test e@d.test
	printf '[delivery]\ndestination_concurrency_limit = 1\ndestination_recipient_limit = 3\n' >>"$CONF"
	post
	runq
	[ "$(wc -l <"$S/log")" -eq 5 ]
	[ "$(awk '{print $1}' "$S/log" | sort -u)" = 1 ]
	[ "$(chained)" -eq 3 ]
	[ "$(grep -c ' RSET$' "$S/trace")" -eq 1 ]
}

@test "without PIPELINING nothing changes: one command per read, RSET between copies" {
	SMTPD=(--no-pipelining)
	chain_list oneclick a@d.test b@d.test c@d.test
	post
	runq
	[ "$(wc -l <"$S/log")" -eq 3 ]
	[ "$(chained)" -eq 0 ]
	[ "$(grep -c ' RSET$' "$S/trace")" -eq 2 ]
	# every command in a read of its own
	[ "$(grep -v ' EHLO ' "$S/trace" | cut -d' ' -f1-2 | sort | uniq -d | wc -l)" -eq 0 ]
}

# odd_text N - a text whose body has lines that begin with dots, a bare
# CR, a CRLF, N more dotted lines (N large: the text spans several of
# the sender's blocks) and no final newline
odd_text() {
	printf 'From: poster@example.net\nSubject: odd\n\n'
	printf 'line\n.one dot\n..two dots\nbare\rCR\r\nCRLF\n.\n'
	awk -v n="$1" 'BEGIN { for (i = 0; i < n; i++) printf ".%06d a dotted line of some length to fill the blocks\n", i }'
	printf 'the end, without a newline'
}

@test "copies sent from the text kept in memory are byte for byte those sent from the spool file" {
	smtpd_start s --trace-eod
	printf '[transport_map]\nd.test = smtp:[127.0.0.1]:%s\n' "$PORT" >>"$CONF"
	mjq_list ex.org v a@d.test b@d.test
	echo 'verp = yes' >>"$LISTS/ex.org/v/config"
	mjq_list ex.org one c@d.test
	for n in 3 3000; do
		for l in v one; do
			odd_text "$n" | "$MJ_ENQUEUE" -C "$CONF" -d ex.org -l "$l" -r -f poster@example.net
		done
		runq
		# this round's three copies; their bodies, from the first empty
		# line on, are the same
		ls -v "$S/save/new" | tail -3 | sed "s|^|$S/save/new/|" >"$BATS_TEST_TMPDIR/copies"
		[ "$(wc -l <"$S/log")" -eq $((n == 3 ? 3 : 6)) ]
		while read -r m; do
			sed -n '/^\r\{0,1\}$/,$p' "$m" | md5sum
		done <"$BATS_TEST_TMPDIR/copies" | sort | uniq -c >"$BATS_TEST_TMPDIR/sums"
		cat "$BATS_TEST_TMPDIR/sums"
		[ "$(wc -l <"$BATS_TEST_TMPDIR/sums")" -eq 1 ]
		[ "$(sed -n '/^\r\{0,1\}$/,$p' "$(head -1 "$BATS_TEST_TMPDIR/copies")" | grep -c '^\.')" -eq $((n + 3)) ]
	done
}

@test "a real Postfix smtpd that forbids improper pipelining takes the chained copies in one session" {
	# the Postfix 3.9 default, in Debian 12's 3.7 as an option: a client
	# that pipelines where RFC 2920 does not allow it is disconnected
	postfix_discard d.test "smtpd_forbid_unauth_pipelining = yes"
	printf '[transport_map]\nd.test = smtp:[127.0.0.1]:%s\n' "$PORT" >>"$CONF"
	mjq_list ex.org l a@d.test b@d.test c@d.test dd@d.test
	echo 'unsubscribe_url = https://ex.org/u' >>"$LISTS/ex.org/l/config"
	post
	runq
	pf_stop "$PF"
	[ "$(grep -c 'status=sent (250 ' "$BATS_TEST_TMPDIR/run.log")" -eq 4 ]
	for a in a b c dd; do
		grep -q "to=<$a@d.test>, relay=none, .*status=sent" "$PF/maillog"
	done
	run ! grep -q 'improper command pipelining' "$PF/maillog"
	# one session: the envelope of each copy after the first came
	# behind the previous copy's final dot, no RSET
	grep -q 'smtpd.*: disconnect from .* ehlo=1 mail=4 rcpt=4 data=4 quit=1 commands=14$' "$PF/maillog"
}
