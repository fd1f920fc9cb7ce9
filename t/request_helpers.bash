# t/request_helpers.bash - for the list-management tests (t/7N-*.bats):
# the runner's time limit, and the mail it delivered to per-recipient
# maildirs ($MAIL/<address>/new).  Load after helpers.bash.

# runq (helpers.bash) runs the runner; these tests give it 30 s
RUNQ_TIMEOUT=30

# mails ADDR - how many messages ADDR has received
mails() {
	local d=$MAIL/$1/new
	[ -d "$d" ] || { echo 0; return; }
	find "$d" -type f | wc -l
}

# last ADDR - the newest message of ADDR
last() {
	cat "$(ls -t "$MAIL/$1/new"/* | head -1)"
}

# token_of ADDR - the token in the Subject of ADDR's newest message
token_of() {
	last "$1" | sed -n 's/^Subject: confirm \([0-9a-f]*\)$/\1/p'
}

# request_setup - a fresh spool whose mail all goes to per-recipient
# maildirs under $MAIL; the runner's log is $RUNLOG
request_setup() {
	MAIL=$BATS_TEST_TMPDIR/mail
	RUNLOG=$BATS_TEST_TMPDIR/runner.log
	mjq_setup <<-EOF
	[transport_map]
	* = maildir:$MAIL/\${recipient}
	EOF
}

# arf_report FEEDBACK-TYPE FEEDBACK-LINE COPY - an RFC 5965 report from a
# provider's feedback loop to mylist-owner, COPY (the returned post, a
# file) its message/rfc822 part, into the spool
arf_report() {
	{
		cat <<-EOF
		From: <fbl@provider.test>
		To: <mylist-owner@example.org>
		Subject: complaint about message from 192.0.2.1
		MIME-Version: 1.0
		Content-Type: multipart/report; report-type=feedback-report; boundary="part1"

		--part1
		Content-Type: text/plain

		This is an email abuse report.
		--part1
		Content-Type: message/feedback-report

		Feedback-Type: $1
		User-Agent: SomeGenerator/1.0
		Version: 1
		$2

		--part1
		Content-Type: message/rfc822

		EOF
		cat "$3"
		printf -- '--part1--\n'
	} | "$MJ_ENQUEUE" -C "$CONF" -d example.org -l mylist -o -f fbl@provider.test
}
