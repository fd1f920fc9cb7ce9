#!/bin/sh
# t/postfix-instance.sh - a private Postfix instance on loopback, for the
# MTA tests (t/810-postfix.bats) and the benchmarks that measure mjq side
# by side with Postfix.
#
#   . t/postfix-instance.sh
#   pf_create DIR PORT [main.cf lines...]   config, queue and data under
#                                          DIR; smtpd on 127.0.0.1:PORT
#   pf_start DIR / pf_stop DIR
#   pf_sendmail DIR ARGS...                Postfix's sendmail for DIR
#
# Needs root (Postfix's own daemons drop to the postfix user).  Works
# without /etc/postfix/main.cf, as on a fresh Debian machine where the
# postfix package was installed with "No configuration": master.cf comes
# from the package's master.cf.dist when /etc/postfix has none, and DIR is
# listed in the system's alternate_config_directories only when a main.cf
# exists to hold it (root does not need it; set-gid postdrop and postqueue
# run by other users do).  Variables are prefixed pf_ so that a caller's
# are left alone.

pf_create() {
	pf_dir=$1 pf_port=$2
	shift 2
	mkdir -p "$pf_dir/etc" "$pf_dir/queue" "$pf_dir/data"
	if [ -f /etc/postfix/master.cf ]; then
		cp /etc/postfix/master.cf "$pf_dir/etc/master.cf"
	else
		cp /usr/share/postfix/master.cf.dist "$pf_dir/etc/master.cf"
	fi || return 1
	# smtpd on our port only
	sed -i "s/^smtp      inet/#smtp      inet/" "$pf_dir/etc/master.cf"
	printf '127.0.0.1:%s inet n - y - - smtpd\n' "$pf_port" >>"$pf_dir/etc/master.cf"
	cat >"$pf_dir/etc/main.cf" <<CF
compatibility_level = 3.6
queue_directory = $pf_dir/queue
data_directory = $pf_dir/data
mail_owner = postfix
setgid_group = postdrop
inet_interfaces = 127.0.0.1
inet_protocols = ipv4
myhostname = bench.invalid
mydestination =
relay_domains =
mynetworks = 127.0.0.0/8
alias_maps =
alias_database =
local_recipient_maps =
smtputf8_enable = no
maillog_file_prefixes = $pf_dir
maillog_file = $pf_dir/maillog
CF
	# postconf -e replaces a setting in place: a second entry for a key
	# makes every Postfix process warn at start, and postlogd, warning
	# into its own full socket (10 datagrams), deadlocks the instance.
	for pf_line in "$@"; do
		postconf -c "$pf_dir/etc" -e "$pf_line" || return 1
	done
	chown postfix "$pf_dir/data"
	if [ -f /etc/postfix/main.cf ] &&
		! postconf -h alternate_config_directories | grep -qF "$pf_dir/etc"; then
		pf_cur=$(postconf -h alternate_config_directories)
		postconf -e "alternate_config_directories = ${pf_cur:+$pf_cur, }$pf_dir/etc"
	fi
	postfix -c "$pf_dir/etc" set-permissions >/dev/null 2>&1 ||
		postfix -c "$pf_dir/etc" post-install create-missing >/dev/null 2>&1
	postfix -c "$pf_dir/etc" check
}

pf_start() {
	postfix -c "$1/etc" start >"$1/start.log" 2>&1
	# ready when the master has written its pid file
	pf_i=0
	while [ ! -s "$1/queue/pid/master.pid" ] && [ $pf_i -lt 100 ]; do
		sleep 0.1
		pf_i=$((pf_i + 1))
	done
	[ -s "$1/queue/pid/master.pid" ] || { cat "$1/start.log" >&2; return 1; }
}

pf_stop() {
	pf_pid=$(tr -d ' ' 2>/dev/null <"$1/queue/pid/master.pid")
	timeout 30 postfix -c "$1/etc" stop >/dev/null 2>&1 || true
	# postfix stop signals the master and returns: wait until it is gone,
	# so that a caller may remove DIR
	pf_i=0
	while [ -n "$pf_pid" ] && kill -0 "$pf_pid" 2>/dev/null && [ $pf_i -lt 100 ]; do
		sleep 0.1
		pf_i=$((pf_i + 1))
	done
	[ -f /etc/postfix/main.cf ] || return 0
	pf_cur=$(postconf -h alternate_config_directories |
		sed "s|, *$1/etc||; s|$1/etc, *||; s|$1/etc||")
	postconf -e "alternate_config_directories = $pf_cur"
}

pf_sendmail() {
	pf_dir=$1
	shift
	/usr/sbin/sendmail -C "$pf_dir/etc" "$@"
}
