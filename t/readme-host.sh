#!/bin/sh
# t/readme-host.sh - run a script as root on a private copy of this host,
# as a fresh Debian with Postfix installed as "No configuration" and
# without mjq: for t/82-readme.bats, which runs the README's install
# steps in it word for word.
#
#   unshare --mount --net --pid --fork --mount-proc sh t/readme-host.sh STAGE SCRIPT
#
# Run as pid 1 of new mount, network and pid namespaces: everything it
# starts (Postfix, mj_queueserv) dies with it.  STAGE (a directory made by
# the test) holds etc/, a copy of /etc without mjq's user, /etc/mjq,
# Postfix's main.cf or aliases.db, and with 127.0.0.1 as the name server;
# it gets log files.  The rest of the host is the real one, read-only in
# spirit: /usr/local, /var/spool, /var/lib, /var/mail, /var/www and /run
# are empty tmpfs here (Postfix's queue tree is copied in), the network is a
# loopback of our own, and mj_testdns answers on its port 53 that
# example.org's mail goes to this host.  bob is a local user.
set -eu
stage=$1 script=$2
top=$(cd "$(dirname "$0")/.." && pwd)

mount --make-rprivate /
ip link set lo up
mount --bind "$stage/etc" /etc
mkdir -p /var/www
for d in /usr/local /var/spool /var/lib /var/mail /var/www /run; do
	mount -t tmpfs -o mode=0755 mjq82 "$d"
done
chgrp mail /var/mail
chmod 2775 /var/mail
mkdir /run/lock
cp -a "$stage/postfix-spool" /var/spool/postfix
install -d -o postfix -g postfix /var/lib/postfix
printf '%s\n' 'example.org MX 10 mail.example.org' \
	'mail.example.org A 127.0.0.1' >"$stage/zone"
"$top/t/tools/mj_testdns" -p 53 "$stage/zone" 2>"$stage/dns.log" &
useradd -m -d /var/lib/bob -s /bin/sh bob
cd "$top"
status=0
sh -ex "$script" >"$stage/steps.log" 2>&1 || status=$?
echo "steps: exit $status" >>"$stage/steps.log"
# the post arrives in bob's mailbox
i=0
while ! grep -qs '^first post$' /var/mail/bob && [ $i -lt 600 ]; do
	sleep 0.1
	i=$((i + 1))
done
cp /var/mail/bob "$stage/mailbox" 2>/dev/null || true
{
	mj_queueserv status || true
	postqueue -p || true
	find /var/spool/mjq /var/lib/mjq /etc/mjq /var/www -printf '%m %u:%g %p\n' || true
} >"$stage/host.log" 2>&1
service mj_queueserv stop >/dev/null 2>&1 || true
postfix stop >/dev/null 2>&1 || true
exit $status
