#!/usr/bin/env bats
# t/812-opensmtpd.bats - the OpenSMTPD section of docs/mta.md, word for
# word, on Debian's own opensmtpd (slow: a private host, about ten
# seconds once the package is cached).
#
# OpenSMTPD and Postfix conflict as installed packages, so Debian's
# opensmtpd is fetched with apt-get download (t/private-host.bash caches
# it) and unpacked into a private copy of this host (t/private-host.sh),
# where mjq is installed with a list (t/private-host.bash).  The test
# does what the package's maintainer scripts would (the opensmtpd and
# opensmtpq users, smtpctl set-gid), takes Debian's /etc/smtpd.conf with
# this instance's listener (127.0.0.2, a port of its own) and its relay
# action sent to the test's sink (for the bounces), and puts docs/mta.md's
# lines, unchanged, before the file's first "match" line, as the section
# says.  smtpd runs in the foreground (-d), its log in a file.
#
# Needs root (namespaces, mounts).  Skips when Debian's archive cannot be
# reached and the package is not cached.
# slow: Debian's OpenSMTPD in a private host

load helpers
load smtp_helpers
load private-host

setup_file() {
	mta_host_start 96 opensmtpd
	[ -z "$MTA_SKIP" ] || return 0
	host_step smtpd_host_setup
	# the lines of docs/mta.md, unchanged, before the first match line
	doc_blocks OpenSMTPD "$STAGE/doc"
	[ "$(cat "$STAGE/doc/paths")" = /etc/smtpd.conf ]
	host_run awk -v b="$STAGE/doc/1" '/^match / && !done {
			while ((getline l <b) > 0) print l
			done = 1
		}
		{ print }' /etc/smtpd.conf >"$STAGE/smtpd.conf"
	[ "$(grep -c '^match ' "$STAGE/smtpd.conf")" -eq 3 ]
	host_run cp "$STAGE/smtpd.conf" /etc/smtpd.conf
	cat "$STAGE/smtpd.conf"
	host_run smtpd -n
	host_run bash -c 'smtpd -d >/var/log/smtpd.log 2>&1 &' 3>&-
	mta_listening
}

teardown_file() {
	mta_host_stop
}

# smtpd_host_setup - run in the private host: OpenSMTPD as its package's
# maintainer scripts leave it, with this instance's listener and relay
smtpd_host_setup() {
	local name
	for name in opensmtpd opensmtpq; do
		addgroup --system --quiet "$name"
		adduser --system --quiet --home /var/lib/opensmtpd/empty \
			--no-create-home --disabled-password --ingroup "$name" "$name"
	done
	chgrp opensmtpq /usr/sbin/smtpctl
	chmod 2755 /usr/sbin/smtpctl
	[ -e /etc/aliases ] || printf 'postmaster: root\n' >/etc/aliases
	sed -i -e "s/^listen on localhost\$/listen on 127.0.0.2 port $MTA_PORT/" \
		-e "s|^action \"relay\" relay\$|action \"relay\" relay host smtp://127.0.0.1:$SINK_PORT|" \
		/etc/smtpd.conf
	grep -qx "listen on 127.0.0.2 port $MTA_PORT" /etc/smtpd.conf
	grep -q "relay host smtp://127.0.0.1:$SINK_PORT\$" /etc/smtpd.conf
}

setup() {
	mta_host_setup
	LOG_MARK=$(host_run cat /var/log/smtpd.log | wc -l)
}

teardown() {
	[ -z "$MTA_SKIP" ] || return 0
	mjq_spool_clear
	host_run bash -c 'smtpctl remove all >/dev/null 2>&1 || true'
}

# smtpd_new - what smtpd logged since setup
smtpd_new() {
	host_run cat /var/log/smtpd.log | tail -n +"$((LOG_MARK + 1))"
}

# delivered RCPT RESULT - smtpd logged the delivery to RCPT through
# mj_enqueue with RESULT (Ok, TempFail, PermFail); prints the line
delivered() {
	smtpd_new | grep -E "mda delivery .* rcpt=<$1> user=mjq .* result=$2 "
}

# posted_to_list HOW TAG - the post goes to mylist by HOW, OpenSMTPD
# hands it to mj_enqueue, the runner sends it to each subscriber once
posted_to_list() {
	post "$2"
	"$1" "$2" mylist@example.org
	wait_for 30 delivered mylist@example.org Ok
	queued_from_poster list
	list_delivers
}

@test "OpenSMTPD: a post through the sendmail interface reaches every subscriber once" {
	posted_to_list by_sendmail o1
}

@test "OpenSMTPD: a post over SMTP reaches every subscriber once" {
	posted_to_list by_smtp o2
}

@test "OpenSMTPD: owner, request and majordomo mail reach their functions with the poster as sender" {
	local r
	for r in mylist-owner owner-mylist mylist-request majordomo; do
		post "o3$r" "$r@example.org"
		by_smtp "o3$r" "$r@example.org"
		wait_for 30 delivered "$r@example.org" Ok
	done
	functions_from_poster
}

@test "OpenSMTPD: a post to a list that does not exist bounces to the poster with mj_enqueue's line" {
	post o4 gone@example.org
	by_smtp o4 gone@example.org
	wait_for 30 delivered gone@example.org PermFail
	[ -z "$(queue_files)" ]
	# the bounce, through the relay action
	bounced_with_line 'mj_enqueue: no such list gone@example.org'
}

@test "OpenSMTPD: a full spool defers (75); smtpctl schedule all delivers once there is room" {
	mjq_spool_fill
	post o5
	by_smtp o5 mylist@example.org
	wait_for 30 delivered mylist@example.org TempFail
	[ -z "$(queue_files)" ]
	# OpenSMTPD keeps it
	host_run smtpctl show queue | grep -q 'mylist@example.org'
	host_run rm /var/spool/mjq/filler
	host_run smtpctl schedule all
	wait_for 30 delivered mylist@example.org Ok
	queued_from_poster list
	list_delivers
}
