#!/usr/bin/env bats
# VERP where it is free and a VERP rate where it is not (issue 35 item 3):
# a one-click list already sends one copy per recipient, so each copy's
# envelope sender names its recipient (<list>-owner+user=host@domain) and
# every bounce names its subscriber for certain; a batched list sends
# verp_rate percent of its posts one envelope per recipient.  Delivered
# over SMTP on loopback to mj_testsmtpd, whose log has each envelope.

load helpers
load smtp_helpers
bats_require_minimum_version 1.5.0

setup() {
	mjq_setup
	smtpd_start s
	printf '[transport_map]\nd.test = smtp:[127.0.0.1]:%s\n' "$PORT" >>"$CONF"
	mjq_list ex.org l a@d.test b@d.test c@d.test
}

teardown() {
	servers_stop
}

# post [SUBJECT] - a post to l@ex.org
post() {
	printf 'From: p@else.test\nSubject: %s\n\nhello\n' "${1:-x}" |
		"$MJ_ENQUEUE" -C "$CONF" -d ex.org -l l -r -f p@else.test
}

# senders - the envelope senders the server saw, one per line, sorted
senders() {
	sed -n 's/.*from=<\([^>]*\)> to=.*/\1/p' "$BATS_TEST_TMPDIR/s/log" | sort
}

@test "a one-click list's copies each carry their recipient in the envelope sender" {
	printf '[list]\nunsubscribe_url = https://lists.ex.org/u\n' >>"$LISTS/ex.org/l/config"
	printf '[unsubscribe]\nsecret_file = %s\n' "$BATS_TEST_TMPDIR/secret" >>"$CONF"
	"$TOP/scripts/mjq-unsubsecret" "$BATS_TEST_TMPDIR/secret"
	post
	runq
	[ "$(senders)" = "l-owner+a=d.test@ex.org
l-owner+b=d.test@ex.org
l-owner+c=d.test@ex.org" ]
}

@test "verp_rate: 100 sends every post one envelope per recipient, 0 none" {
	printf '[list]\nverp_rate = 100\n' >>"$LISTS/ex.org/l/config"
	post
	runq
	[ "$(senders)" = "l-owner+a=d.test@ex.org
l-owner+b=d.test@ex.org
l-owner+c=d.test@ex.org" ]
	: >"$BATS_TEST_TMPDIR/s/log"
	printf 'verp_rate = 0\n' >>"$LISTS/ex.org/l/config"
	post
	runq
	[ "$(senders | uniq)" = "l-owner@ex.org" ]
}

@test "verp_rate = 50: some posts VERP, some batched; a bad rate is refused with a clear error" {
	local i
	printf '[list]\nverp_rate = 50\n' >>"$LISTS/ex.org/l/config"
	for i in $(seq 1 24); do
		post "p$i"
	done
	runq
	# 24 posts, each VERP'd or not with even odds: both kinds are there
	# (all alike has odds 2 in 2^24)
	grep -q 'from=<l-owner@ex.org>' "$BATS_TEST_TMPDIR/s/log"
	grep -q 'from=<l-owner+a=d.test@ex.org>' "$BATS_TEST_TMPDIR/s/log"
	[ "$(grep -c 'from=<' "$BATS_TEST_TMPDIR/s/log")" -eq 72 ]
	printf 'verp_rate = 101\n' >>"$LISTS/ex.org/l/config"
	post
	runq
	grep -q 'verp_rate' "$BATS_TEST_TMPDIR/run.log"
	[ "$(queue_files | wc -l)" -eq 1 ]
}
