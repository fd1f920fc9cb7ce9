#!/usr/bin/env bats
# The confirmation round trip over SMTP: the token goes out to the test
# server, the user's reply (the reply button: Re: and the text quoted)
# comes back through mj_enqueue, and the next post reaches the new
# subscriber.

load helpers
load smtp_helpers
load request_helpers

setup() {
	mjq_setup </dev/null
	mjq_list example.org mylist
	printf '[list]\nowners = boss@example.org\n' >>"$LISTS/example.org/mylist/config"
	smtpd_start users
	printf '[transport_map]\nusers.test = smtp:[127.0.0.1]:%s\n' "$PORT" >>"$CONF"
	SAVE=$BATS_TEST_TMPDIR/users/save/new
	RUNLOG=$BATS_TEST_TMPDIR/run.log
}

teardown() {
	servers_stop
}

# newest - the newest message the server saved, CRs removed
newest() {
	tr -d '\r' <"$(ls -t "$SAVE"/* | head -1)"
}

@test "subscribe, confirm by replying, then receive the next post" {
	printf 'From: Ann <ann@users.test>\nSubject: subscribe\nMessage-Id: <r1@users.test>\n\n' |
	    "$MJ_ENQUEUE" -C "$CONF" -d example.org -l mylist -q -f ann@users.test
	runq
	[ "$(ls "$SAVE" | wc -l)" -eq 1 ]
	grep -q 'to=<ann@users.test>, relay=127.0.0.1' "$RUNLOG"
	subject=$(newest | sed -n 's/^Subject: //p')
	[[ "$subject" =~ ^confirm\ [0-9a-f]{32}$ ]]
	# The reply button: Re: on the subject, the text quoted, a signature.
	{
		printf 'From: Ann <ann@users.test>\nSubject: Re: %s\nIn-Reply-To: <x@example.org>\n\n' "$subject"
		printf 'Yes please.\n\n'
		newest | sed -n '/^$/,$p' | sed 's/^/> /'
		printf -- '-- \nAnn\nconfirm 0000\n'
	} | "$MJ_ENQUEUE" -C "$CONF" -d example.org -l mylist -q -f ann@users.test
	runq
	[ "$(cat "$LISTS/example.org/mylist/subscribers")" = "ann@users.test" ]
	[ "$(ls "$SAVE" | wc -l)" -eq 2 ]
	newest | grep -qx '<ann@users.test> is now on mylist@example.org.'
	newest | grep -qx '>>> Yes please.'
	printf 'From: boss@example.org\nSubject: hello\n\nfirst post\n' |
	    "$MJ_ENQUEUE" -C "$CONF" -d example.org -l mylist -r -f boss@example.org
	runq
	[ "$(ls "$SAVE" | wc -l)" -eq 3 ]
	newest | grep -qx 'first post'
	newest | grep -q '^List-Id: .*mylist.example.org'
	[ "$(queue_files)" = "" ]
}
