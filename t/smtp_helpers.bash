# t/smtp_helpers.bash - test SMTP and DNS servers for the delivery tests:
# start them on a port of their own (port 0, then read the port file),
# stop them in teardown.  Load after helpers.bash.

MJ_SMTPTRY=$TOP/t/tools/mj_smtptry
MJ_TESTDNS=$TOP/t/tools/mj_testdns
MJ_MXTRY=$TOP/t/tools/mj_mxtry

# smtpd_start NAME [OPTION...] - run mj_testsmtpd with its files under
# $BATS_TEST_TMPDIR/NAME (port, pid, log, trace, save/); sets PORT.
smtpd_start() {
	local d=$BATS_TEST_TMPDIR/$1
	shift
	mkdir -p "$d"
	"$MJ_TESTSMTPD" --port-file "$d/port" --pid-file "$d/pid" \
		--log "$d/log" --trace "$d/trace" --save-dir "$d/save" \
		"$@" 2>"$d/stderr" 3>&- &
	echo $! >>"$BATS_TEST_TMPDIR/server.pids"
	wait_for 5 test -s "$d/port"
	PORT=$(cat "$d/port")
}

# dnsd_start ZONEFILE - run mj_testdns on the zone; sets DNS_PORT
dnsd_start() {
	local d=$BATS_TEST_TMPDIR/dns
	mkdir -p "$d"
	"$MJ_TESTDNS" -p 0 --port-file "$d/port" --log "$d/log" "$1" \
		2>"$d/stderr" 3>&- &
	echo $! >>"$BATS_TEST_TMPDIR/server.pids"
	wait_for 5 test -s "$d/port"
	DNS_PORT=$(cat "$d/port")
}

# free_port - a port nobody listens on: bind port 0, note it, let it go
free_port() {
	smtpd_start portprobe
	stop_pid "$(cat "$BATS_TEST_TMPDIR/portprobe/pid")"
	rm -rf "$BATS_TEST_TMPDIR/portprobe"
	echo "$PORT"
}

# postfix_discard DOMAIN [MAIN.CF-LINE...] - a private Postfix instance
# (t/postfix-instance.sh) whose smtpd on a port of its own takes mail for
# DOMAIN and discards it, with the extra main.cf lines; sets PF (its
# directory: maillog, pf_stop) and PORT.  Skips the test without root or
# Postfix.
postfix_discard() {
	local domain=$1
	shift
	[ "$(id -u)" -eq 0 ] || skip "needs root (Postfix)"
	command -v postfix >/dev/null || skip "postfix is not installed"
	. "$BATS_TEST_DIRNAME/postfix-instance.sh"
	PORT=$(free_port)
	PF=$(mktemp -d /tmp/mjqpf.XXXXXX)
	chmod 0755 "$PF"
	pf_create "$PF" "$PORT" "myhostname = pf.test" \
		"relay_domains = $domain" "relay_transport = discard:$domain" \
		"$@" >"$BATS_TEST_TMPDIR/pf-create.log" 2>&1
	pf_start "$PF"
}

# port_unused [ADDR] - a port nobody listens on at ADDR (127.0.0.1), for
# a server that takes its port as a number (Postfix, Exim)
port_unused() {
	local p
	for p in $(shuf -i 20000-29999 -n 50); do
		if ! (exec 3<>"/dev/tcp/${1:-127.0.0.1}/$p") 2>/dev/null; then
			echo "$p"
			return 0
		fi
	done
	return 1
}

# stop_pid PID - SIGTERM and wait until it is gone
stop_pid() {
	kill "$1" 2>/dev/null || return 0
	wait_for 5 eval "! kill -0 $1 2>/dev/null"
}

# servers_stop - teardown: stop every server this test started
servers_stop() {
	local p
	[ -f "$BATS_TEST_TMPDIR/server.pids" ] || return 0
	while read -r p; do
		stop_pid "$p"
	done <"$BATS_TEST_TMPDIR/server.pids"
	rm -f "$BATS_TEST_TMPDIR/server.pids"
}
