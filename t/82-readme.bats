#!/usr/bin/env bats
# t/82-readme.bats - the README's install steps, word for word: the
# command lines of its "Installing" section ("    # command", with
# continuation lines) are taken from the README itself and run as root
# on a private copy of this host (t/readme-host.sh: its own mount,
# network and pid namespaces) that looks like a fresh Debian where the
# postfix package was installed as "No configuration": no main.cf, no
# aliases.db, no mjq user, empty /etc/mjq, /usr/local, /var/spool/mjq and
# /var/lib/mjq.  The only things the test adds are the world around the
# host: a DNS that sends example.org's mail to it, and the local user
# bob.  The post must arrive in bob's mailbox through the list.
#
# Needs root (namespaces, mounts); the real host is left as it was.
# slow: the README install on a private copy of the host

load helpers

setup() {
	[ "$(id -u)" -eq 0 ] || skip "needs root: namespaces and mounts"
	command -v postfix >/dev/null || skip "postfix is not installed"
	unshare --mount --net --pid --fork --mount-proc true 2>/dev/null ||
		skip "no namespaces here"
	STAGE=$BATS_TEST_TMPDIR/stage
	mkdir "$STAGE"
	# /etc as on a host without mjq and with an unconfigured Postfix
	cp -a /etc "$STAGE/etc"
	rm -rf "$STAGE/etc/mjq" "$STAGE/etc/postfix/main.cf" \
		"$STAGE/etc/aliases.db" "$STAGE/etc/init.d/mj_queueserv"
	local f
	for f in passwd group shadow gshadow; do
		sed -i '/^mjq:/d; /^bob:/d' "$STAGE/etc/$f"
	done
	rm -f "$STAGE/etc/resolv.conf"
	echo 'nameserver 127.0.0.1' >"$STAGE/etc/resolv.conf"
	# Postfix's queue tree as the package made it, without its queue
	cp -a /var/spool/postfix "$STAGE/postfix-spool"
	find "$STAGE/postfix-spool" -mindepth 2 \( -path '*/etc/*' -o \
		-path '*/lib/*' -o -path '*/usr/*' -o -path '*/dev/*' \) -prune -o \
		! -type d -print0 | xargs -0r rm -f
}

@test "the README's install and Postfix steps, word for word, on a fresh host: the post arrives" {
	readme_steps >"$STAGE/steps.sh"
	# then, beyond the README: setup again changes nothing (idempotent),
	# and the SysV script answers
	printf '%s\n' 'mjq-setup' 'service mj_queueserv status' \
		>"$STAGE/after.sh"
	# and the systemd unit is valid (where systemd-analyze is at hand)
	if command -v systemd-analyze >/dev/null; then
		echo 'systemd-analyze verify /usr/local/lib/systemd/system/mj_queueserv.service' \
			>>"$STAGE/after.sh"
	fi
	# the steps were found: install, the server, the list, Postfix, a post
	[ "$(head -1 "$STAGE/steps.sh")" = "make install" ]
	grep -qx 'service mj_queueserv start' "$STAGE/steps.sh"
	grep -q '^mjq-newlist .*>>/var/lib/mjq/aliases$' "$STAGE/steps.sh"
	grep -qx 'newaliases' "$STAGE/steps.sh"
	grep -qx 'mjq-dkimkey example.org mjq' "$STAGE/steps.sh"
	grep -q '^printf .* | sendmail ' "$STAGE/steps.sh"
	[ "$(wc -l <"$STAGE/steps.sh")" -ge 12 ]
	cat "$STAGE/after.sh" >>"$STAGE/steps.sh"
	run timeout 300 unshare --mount --net --pid --fork --mount-proc \
		sh "$TOP/t/readme-host.sh" "$STAGE" "$STAGE/steps.sh"
	cat "$STAGE/steps.log" "$STAGE/host.log" 2>/dev/null | tail -40
	[ "$status" -eq 0 ]
	# every step ran, none failed (sh -e stops at the first failure)
	grep -qx 'steps: exit 0' "$STAGE/steps.log"
	# bob got the post, through the list
	grep -qx 'first post' "$STAGE/mailbox"
	grep -qx 'Subject: hello' "$STAGE/mailbox"
	grep -qx 'List-Id: <mylist.example.org>' "$STAGE/mailbox"
	# signed with the key the README's mjq-dkimkey made
	grep -q '^DKIM-Signature: .*d=example.org' "$STAGE/mailbox"
	grep -qx 'Return-Path: <mylist-owner@example.org>' "$STAGE/mailbox"
	grep -q '^From: .*alice@example.org' "$STAGE/mailbox"
	# what mjq-setup made, with its owners and modes
	grep -qx '750 mjq:mjq /var/spool/mjq' "$STAGE/host.log"
	grep -qx '755 mjq:mjq /var/lib/mjq' "$STAGE/host.log"
	grep -qx '750 mjq:mjq /var/lib/mjq/lists' "$STAGE/host.log"
	grep -qx '644 mjq:mjq /var/lib/mjq/aliases.db' "$STAGE/host.log"
	grep -qx 'mj_queueserv is running' "$STAGE/steps.log"
	grep -qx '644 root:root /etc/mjq/mjq.conf' "$STAGE/host.log"
	grep -qx '600 mjq:mjq /var/lib/mjq/unsubscribe.secret' "$STAGE/host.log"
	# the archive's: dir the user's alone, public_dir readable by all
	grep -qx '750 mjq:mjq /var/lib/mjq/archive' "$STAGE/host.log"
	grep -qx '755 mjq:mjq /var/www/mjq-archive' "$STAGE/host.log"
}
