#!/usr/bin/env bats
# t/813-sendmail.bats - the Sendmail section of docs/mta.md, word for
# word, on Debian's own sendmail (slow: a private host, about twenty
# seconds once the packages are cached).
#
# Sendmail and Postfix conflict as installed packages, so Debian's
# sendmail-bin, sendmail-base and sendmail-cf are fetched with apt-get
# download (t/private-host.bash caches them) and unpacked into a private
# copy of this host (t/private-host.sh), where mjq is installed with a
# list (t/private-host.bash).  The test does what the packages'
# maintainer scripts would (the smmta and smmsp users, sendmail set-gid
# smmsp, Debian's update_sendmail, which writes sendmail.mc and builds
# sendmail.cf) and sets this instance apart: host names from /etc/hosts
# alone (this world has no DNS), the daemon on 127.0.0.2 and a port of
# its own, the submission program relaying there, SMTP to the test's
# sink (for the bounces).  Then it puts docs/mta.md's lines, unchanged,
# before sendmail.mc's MAILER_DEFINITIONS line, as the section says, and
# runs the section's command lines (the link, the sed, Debian's
# "make -C /etc/mail", newaliases) but the restart.  Sendmail logs only
# to syslog, which the private host lacks: the checks look at the spool,
# the sink and Sendmail's queue instead.
#
# Needs root (namespaces, mounts).  Skips when Debian's archive cannot be
# reached and the packages are not cached.
# slow: Debian's Sendmail in a private host

load helpers
load smtp_helpers
load private-host

setup_file() {
	mta_host_start 97 sendmail-bin sendmail-base sendmail-cf
	[ -z "$MTA_SKIP" ] || return 0
	host_step sendmail_host_setup
	# a list removed with its alias lines left behind
	host_run bash -c 'mjq-newlist example.org gone owner@sink.test |
		grep -v "^majordomo:" >>/var/lib/mjq/aliases &&
		rm -r /var/lib/mjq/lists/example.org/gone'
	# the lines of docs/mta.md, unchanged, before MAILER_DEFINITIONS
	doc_blocks Sendmail "$STAGE/doc"
	[ "$(cat "$STAGE/doc/paths")" = /etc/mail/sendmail.mc ]
	host_run awk -v b="$STAGE/doc/1" '/^MAILER_DEFINITIONS/ {
			while ((getline l <b) > 0) print l
		}
		{ print }' /etc/mail/sendmail.mc >"$STAGE/sendmail.mc"
	host_run cp "$STAGE/sendmail.mc" /etc/mail/sendmail.mc
	# and its command lines, but for the restart: the test starts the
	# daemon itself
	doc_commands Sendmail | grep -v '^service ' >"$STAGE/steps.sh"
	cat "$STAGE/steps.sh"
	grep -qx 'echo example.org >>/etc/mail/local-host-names' "$STAGE/steps.sh"
	grep -qx 'make -C /etc/mail' "$STAGE/steps.sh"
	grep -qx 'newaliases' "$STAGE/steps.sh"
	host_run sh -ex "$STAGE/steps.sh" >"$STAGE/steps.log" 2>&1 || {
		cat "$STAGE/steps.log"
		return 1
	}
	host_run sendmail-mta -bd -q30m 3>&-
	mta_listening
}

teardown_file() {
	mta_host_stop
}

# sendmail_host_setup - run in the private host: Sendmail as its
# packages' maintainer scripts leave it, for this instance
sendmail_host_setup() {
	local u
	for u in smmta smmsp; do
		addgroup --system --quiet "$u"
		adduser --system --ingroup "$u" --home /var/lib/sendmail \
			--disabled-password --quiet "$u" 2>/dev/null
	done
	chown root:smmsp /etc/mail/sasl /etc/mail/tls
	chgrp smmsp /usr/libexec/sendmail/sendmail
	chmod 2755 /usr/libexec/sendmail/sendmail
	# the alternatives sendmail-bin's postinst installs
	for u in sendmail sendmail-mta sendmail-msp; do
		ln -sf /usr/libexec/sendmail/sendmail "/usr/sbin/$u"
	done
	ln -sf /usr/share/sendmail/newaliases /usr/sbin/newaliases
	ln -sf /usr/share/sendmail/mailq /usr/bin/mailq
	# a qualified name for the host (or Sendmail waits a minute for DNS
	# to find one), and the posters' domain: this world has no DNS, its
	# host names come from /etc/hosts alone
	printf '127.0.0.1 localhost\n127.0.0.1 %s.example.org %s\n127.0.0.1 example.net\n' \
		"$(hostname)" "$(hostname)" >/etc/hosts
	# as sendmail-bin's postinst runs it (ignoring its status)
	/usr/share/sendmail/update_sendmail >/dev/null || true
	[ -s /etc/mail/sendmail.mc ] && [ -s /etc/mail/sendmail.cf ]
	sed -i 's/^hosts[[:space:]].*/hosts files/' /etc/mail/service.switch
	# this instance: the daemon on 127.0.0.2, no submission port, SMTP
	# to the sink's port (example.net's bounces); the submission program
	# relaying to the daemon
	sed -i -e "s/Port=smtp, Addr=127.0.0.1')/Port=$MTA_PORT, Addr=127.0.0.2')/" \
		-e '/Name=MSP-v4/d' \
		-e "/^MAILER_DEFINITIONS/i define(\`ESMTP_MAILER_ARGS', \`TCP \$h $SINK_PORT')dnl" \
		/etc/mail/sendmail.mc
	sed -i -e "s/FEATURE(\`msp', \`\[127.0.0.1\]', \`25')/FEATURE(\`msp', \`[127.0.0.2]')/" \
		-e "/^FEATURE(\`msp'/i define(\`RELAY_MAILER_ARGS', \`TCP \$h $MTA_PORT')dnl" \
		/etc/mail/submit.mc
	grep -q "Port=$MTA_PORT, Addr=127.0.0.2" /etc/mail/sendmail.mc
	grep -q "ESMTP_MAILER_ARGS', \`TCP \$h $SINK_PORT'" /etc/mail/sendmail.mc
	grep -q "FEATURE(\`msp', \`\[127.0.0.2\]')" /etc/mail/submit.mc
	grep -q "RELAY_MAILER_ARGS', \`TCP \$h $MTA_PORT'" /etc/mail/submit.mc
}

setup() {
	mta_host_setup
}

teardown() {
	[ -z "$MTA_SKIP" ] || return 0
	mjq_spool_clear
	host_run bash -c 'find /var/spool/mqueue /var/spool/mqueue-client -type f -delete'
}

# queued_n N - mjq's spool holds N messages
queued_n() {
	[ "$(queue_files | wc -l)" -eq "$1" ]
}

# posted_to_list HOW TAG - the post goes to mylist by HOW, Sendmail hands
# it to mj_enqueue, the runner sends it to each subscriber once
posted_to_list() {
	post "$2"
	"$1" "$2" mylist@example.org
	wait_for 30 queued_n 1
	queued_from_poster list
	list_delivers
}

@test "Sendmail: a post through the sendmail interface reaches every subscriber once" {
	posted_to_list by_sendmail s1
}

@test "Sendmail: a post over SMTP reaches every subscriber once" {
	posted_to_list by_smtp s2
}

@test "Sendmail: owner, request and majordomo mail reach their functions with the poster as sender" {
	local r
	for r in mylist-owner mylist-request majordomo; do
		post "s3$r" "$r@example.org"
		by_smtp "s3$r" "$r@example.org"
	done
	wait_for 30 queued_n 3
	# no owner-mylist: its line is left out, as the section says
	functions_from_poster 'majordomo GLOBAL' 'owner mylist' 'request mylist'
}

@test "Sendmail: a list that was removed, its aliases left behind, bounces to the poster with mj_enqueue's line" {
	post s4 gone@example.org
	by_smtp s4 gone@example.org
	bounced_with_line 'mj_enqueue: no such list gone@example.org'
	[ -z "$(queue_files)" ]
}

# deferred - Sendmail's queue holds one message, deferred
deferred() {
	host_run mailq | grep -q '(Deferred: '
}

@test "Sendmail: a full spool defers (75); sendmail -q delivers once there is room" {
	mjq_spool_fill
	post s5
	by_smtp s5 mylist@example.org
	wait_for 30 deferred
	host_run mailq
	[ -z "$(queue_files)" ]
	host_run rm /var/spool/mjq/filler
	host_run sendmail -q
	wait_for 30 queued_n 1
	queued_from_poster list
	list_delivers
}
