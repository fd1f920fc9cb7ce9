#!/bin/sh
# t/private-host.sh - a private copy of this host with Debian packages
# unpacked into it, for the MTA tests that run an MTA which cannot be
# installed beside Postfix (t/811-exim.bats, t/812-opensmtpd.bats,
# t/813-sendmail.bats):
#
#   unshare --mount --pid --fork --mount-proc sh t/private-host.sh STAGE DEB...
#
# Run as pid 1 of new mount and pid namespaces.  /etc, /usr and /var
# become overlays whose changes live in a tmpfs of this namespace alone,
# /run an empty tmpfs; the packages' files are unpacked into them (their
# maintainer scripts do not run: the test does what they would), so that
# the MTA, its configuration and mjq sit at the paths the guides name.
# The rest of the host (/tmp, the network) is the real one.  The test
# enters with nsenter -t PID -m -p; killing this process ends the
# namespace and everything started in it.  STAGE gets "ready" once the
# host is made, or "failed" with the reason.
set -eu
stage=$1
shift

fail() {
	echo "$*" >"$stage/failed"
	exit 1
}

mount --make-rprivate / || fail "cannot make the mounts private"
mkdir -p "$stage/over"
mount -t tmpfs -o mode=0755 mjqhost "$stage/over" || fail "no tmpfs"
for d in etc usr var; do
	mkdir "$stage/over/$d" "$stage/over/$d.work"
	mount -t overlay mjqhost -o \
		"lowerdir=/$d,upperdir=$stage/over/$d,workdir=$stage/over/$d.work" \
		"/$d" || fail "cannot lay an overlay on /$d"
done
mount -t tmpfs -o mode=0755 mjqhost /run || fail "cannot mount /run"
mkdir /run/lock
mkdir "$stage/over/debs"
for deb in "$@"; do
	dpkg-deb -x "$deb" "$stage/over/debs" || fail "cannot unpack $deb"
done
# only the trees that are overlays: nothing reaches the real host
for d in etc usr var; do
	if [ -d "$stage/over/debs/$d" ]; then
		cp -a "$stage/over/debs/$d/." "/$d/" || fail "cannot copy /$d"
	fi
done
rm -rf "$stage/over/debs"
touch "$stage/ready"
exec sleep infinity
