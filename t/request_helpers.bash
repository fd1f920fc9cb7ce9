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
