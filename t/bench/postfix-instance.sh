#!/bin/sh
# t/bench/postfix-instance.sh - a private Postfix instance on loopback, for
# the benchmarks that measure mjq side by side with Postfix.
#
#   . t/bench/postfix-instance.sh
#   pf_create DIR PORT [main.cf lines...]   config, queue and data under
#                                          DIR; smtpd on 127.0.0.1:PORT
#   pf_start DIR / pf_stop DIR
#   pf_sendmail DIR ARGS...                Postfix's sendmail for DIR
#
# Needs root (Postfix's own daemons drop to the postfix user).  The
# system's /etc/postfix is only read for the alternate_config_directories
# list, which set-gid postdrop checks before it trusts DIR.

pf_create() {
	dir=$1 port=$2
	shift 2
	mkdir -p "$dir/etc" "$dir/queue" "$dir/data"
	cp /etc/postfix/master.cf "$dir/etc/master.cf"
	# smtpd on our port only
	sed -i "s/^smtp      inet/#smtp      inet/" "$dir/etc/master.cf"
	printf '127.0.0.1:%s inet n - y - - smtpd\n' "$port" >>"$dir/etc/master.cf"
	cat >"$dir/etc/main.cf" <<CF
compatibility_level = 3.6
queue_directory = $dir/queue
data_directory = $dir/data
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
maillog_file_prefixes = $dir
maillog_file = $dir/maillog
CF
	for line in "$@"; do
		printf '%s\n' "$line" >>"$dir/etc/main.cf"
	done
	chown postfix "$dir/data"
	if ! postconf -h alternate_config_directories | grep -qF "$dir/etc"; then
		cur=$(postconf -h alternate_config_directories)
		postconf -e "alternate_config_directories = ${cur:+$cur, }$dir/etc"
	fi
	postfix -c "$dir/etc" set-permissions >/dev/null 2>&1 ||
		postfix -c "$dir/etc" post-install create-missing >/dev/null 2>&1
	postfix -c "$dir/etc" check
}

pf_start() {
	postfix -c "$1/etc" start >"$1/start.log" 2>&1
	# ready when the master has written its pid file
	i=0
	while [ ! -s "$1/queue/pid/master.pid" ] && [ $i -lt 100 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	[ -s "$1/queue/pid/master.pid" ] || { cat "$1/start.log" >&2; return 1; }
}

pf_stop() {
	postfix -c "$1/etc" stop >/dev/null 2>&1 || true
	cur=$(postconf -h alternate_config_directories |
		sed "s|, *$1/etc||; s|$1/etc, *||; s|$1/etc||")
	postconf -e "alternate_config_directories = $cur"
}

pf_sendmail() {
	dir=$1
	shift
	/usr/sbin/sendmail -C "$dir/etc" "$@"
}
