#!/usr/bin/env bats
# t/830-deb.bats - the Debian package, for real: make deb builds it,
# apt-get installs it into this machine (the mjq user, the spool and
# /var/lib/mjq made by postinst; the server started the Debian way, by
# invoke-rc.d: the SysV script here, where systemd does not run), a post
# goes through it to a test SMTP server, apt-get remove stops the server
# and keeps the data, and purge removes mjq.conf and, with
# mjq/purge_data true, the spool and /var/lib/mjq.
#
# A container's /usr/sbin/policy-rc.d often forbids invoke-rc.d to start
# anything; apt-get runs here in a mount namespace of its own in which a
# policy-rc.d that allows everything hides it (the machine's stays).
#
# Needs root, debhelper and a machine without mjq installed (no mjq
# user, no /var/spool/mjq, no /etc/mjq: the test will not touch a real
# installation).  One run at a time on a machine (a lock under /tmp);
# teardown purges the package and removes the user whatever happened.
# slow: builds and installs the Debian package

load helpers
load smtp_helpers

setup_file() {
	[ "$(id -u)" -eq 0 ] || skip "needs root: installs a package"
	command -v dh >/dev/null && command -v dpkg-buildpackage >/dev/null ||
		skip "debhelper and dpkg-dev are not installed"
	make -s -C "$TOP" deb DEB_OUT="$BATS_FILE_TMPDIR" \
		>"$BATS_FILE_TMPDIR/deb.log" 2>&1 ||
		{ cat "$BATS_FILE_TMPDIR/deb.log" >&2; return 1; }
}

setup() {
	exec 9>/tmp/mjq-t83-deb.lock
	flock -w 900 9
	if dpkg-query -W -f='${Status}' mjq 2>/dev/null | grep -q 'installed' ||
		getent passwd mjq >/dev/null || [ -e /var/spool/mjq ] ||
		[ -e /var/lib/mjq ] || [ -e /etc/mjq ]; then
		skip "mjq is installed on this machine: not touching it"
	fi
	OURS=1
	export DEBIAN_FRONTEND=noninteractive
}

teardown() {
	[ -n "${OURS:-}" ] || return 0
	servers_stop
	if dpkg-query -W -f='${Status}' mjq 2>/dev/null | grep -q 'installed'; then
		apt purge -y -qq mjq >/dev/null 2>&1
	fi
	dpkg-query -W mjq >/dev/null 2>&1 && dpkg --purge mjq >/dev/null 2>&1
	echo PURGE | debconf-communicate mjq >/dev/null 2>&1
	rm -rf /var/spool/mjq /var/lib/mjq /etc/mjq
	getent passwd mjq >/dev/null && userdel mjq
	getent group mjq >/dev/null && groupdel mjq
	return 0
}

# apt ARG... - apt-get, with invoke-rc.d allowed to start and stop
# services (see above)
apt() {
	if [ -e /usr/sbin/policy-rc.d ]; then
		printf '#!/bin/sh\nexit 0\n' >"$BATS_TEST_TMPDIR/policy-rc.d"
		chmod 0755 "$BATS_TEST_TMPDIR/policy-rc.d"
		unshare --mount sh -c 'mount --bind "$0" /usr/sbin/policy-rc.d &&
			exec apt-get "$@"' "$BATS_TEST_TMPDIR/policy-rc.d" "$@"
	else
		apt-get "$@"
	fi
}

# gone PID - the process has exited (a zombie left to an init that
# does not reap counts as gone)
gone() {
	if alive "$1"; then
		return 1
	fi
}

# sink_got ADDR - the test SMTP server received mail for ADDR
sink_got() {
	grep -q "to=<$1>" "$BATS_TEST_TMPDIR/sink/log" 2>/dev/null
}

@test "the .deb installs (user, directories, server), delivers a post, is removed keeping the data and purged" {
	cd "$BATS_FILE_TMPDIR"
	run apt install -y ./mjq_*.deb
	echo "$output" | tail -20
	[ "$status" -eq 0 ]
	# postinst started the server, as the mjq user
	/etc/init.d/mj_queueserv status
	pid=$(cat /var/spool/mjq/queueserv.pid)
	[ "$(ps -o user= -p "$pid")" = mjq ]
	dpkg-query -W -f='${Status}\n' mjq | grep -qx 'install ok installed'
	# the policy fetcher beside the runner, the one program with libcurl
	[ -x /usr/sbin/mj_stsfetch ]
	[ -z "$(ldd /usr/sbin/mj_queuerun | grep libcurl)" ]
	# postinst: the user and the directories, the first mjq.conf
	getent passwd mjq | grep -q ':/var/lib/mjq:/usr/sbin/nologin$'
	[ "$(stat -c '%a %U:%G' /var/spool/mjq)" = "750 mjq:mjq" ]
	[ "$(stat -c '%a %U:%G' /var/lib/mjq)" = "755 mjq:mjq" ]
	[ "$(stat -c '%a %U:%G' /var/lib/mjq/lists)" = "750 mjq:mjq" ]
	[ "$(stat -c '%a %U:%G' /var/lib/mjq/aliases)" = "644 mjq:mjq" ]
	grep -qx 'user = mjq' /etc/mjq/mjq.conf
	# enabled the Debian way (SysV links; the unit where systemd runs)
	ls /etc/rc2.d | grep -q '^S[0-9]*mj_queueserv$'
	[ -f /lib/systemd/system/mj_queueserv.service ]
	# a list, and its deliveries to our SMTP server
	smtpd_start sink
	printf '[transport_map]\nsink.test = smtp:[127.0.0.1]:%s\n' "$PORT" \
		>>/etc/mjq/mjq.conf
	mjq-newlist example.org t83 owner@sink.test >/dev/null
	mjq-dkimkey example.org mjq >/dev/null
	echo sub@sink.test >/var/lib/mjq/lists/example.org/t83/subscribers
	# the transport_map in force
	/etc/init.d/mj_queueserv restart
	gone "$pid"
	pid=$(cat /var/spool/mjq/queueserv.pid)
	[ "$(ps -o user= -p "$pid")" = mjq ]
	# as the MTA runs it: as mjq, with the installed default mjq.conf;
	# from a subscriber, whom the default posting policy lets through
	printf 'From: sub@sink.test\nSubject: via the deb\n\nhello\n' |
		runuser -u mjq -- /usr/sbin/mj_enqueue -d example.org -l t83 -r \
			-f sub@sink.test
	wait_for 30 sink_got sub@sink.test
	grep -rqE $'^Subject: via the deb\r?$' "$BATS_TEST_TMPDIR/sink/save/new"
	# remove: the server stops; the configuration, data and user stay
	run apt remove -y mjq
	[ "$status" -eq 0 ]
	gone "$pid"
	[ ! -e /usr/sbin/mj_queueserv ]
	[ ! -e /usr/sbin/mj_stsfetch ]
	[ -f /etc/mjq/mjq.conf ]
	[ -d /var/spool/mjq ]
	[ -f /var/lib/mjq/lists/example.org/t83/subscribers ]
	# purge with the default answer keeps the data, a purge with
	# mjq/purge_data true removes it: try the default first
	run apt purge -y mjq
	[ "$status" -eq 0 ]
	[ ! -e /etc/mjq ]
	[ -f /var/lib/mjq/lists/example.org/t83/subscribers ]
	[ -d /var/spool/mjq ]
	[ -z "$(dpkg-query -W mjq 2>/dev/null)" ]
	# again, asked to purge the data
	run apt install -y ./mjq_*.deb
	[ "$status" -eq 0 ]
	pid=$(cat /var/spool/mjq/queueserv.pid)
	echo 'mjq mjq/purge_data boolean true' | debconf-set-selections
	run apt purge -y mjq
	gone "$pid"
	[ "$status" -eq 0 ]
	[ ! -e /var/spool/mjq ]
	[ ! -e /var/lib/mjq ]
	[ ! -e /etc/mjq ]
}
