#!/usr/bin/env bats
# t/800-install.bats - make install into a DESTDIR: the files, their modes
# and rewritten paths; the example configuration loads and matches the
# code's key tables, and so does mjq.conf(5), in both directions;
# mjq-newlist makes a list whose alias lines work.
# alone: rebuilds the checkout's programs with another SYSCONFDIR and back

load helpers
bats_require_minimum_version 1.5.0

# setup_file - one install for the whole file, as an administrator runs it
setup_file() {
	ROOT=$BATS_FILE_TMPDIR/root
	export ROOT
	make -s -C "$TOP" install DESTDIR="$ROOT" PREFIX=/usr \
		>"$BATS_FILE_TMPDIR/install.log" 2>&1 ||
		{ cat "$BATS_FILE_TMPDIR/install.log" >&2; return 1; }
}

setup() {
	mjq_setup </dev/null
	NEWLIST=$ROOT/usr/sbin/mjq-newlist
}

# uncomment FILE - every setting of FILE in force: "#key = v" and
# "#[section]" lose their '#'; explanations ("# ...") stay comments
uncomment() {
	sed 's/^#\([^ #]\)/\1/' "$1"
}

# code_keys - "section key default" for every key of the code's tables;
# default "?" where the table holds none (the scheduler's, set in code)
code_keys() {
	awk '/struct conf_key [a-z]+_keys\[\]/ {
		sec = $5; sub(/_keys.*/, "", sec) } { print sec, $0 }' \
		"$TOP/common/settings.c" "$TOP/lists/lists_settings.c" \
		"$TOP/cluster/cluster_settings.c" "$TOP/archive/archive_settings.c" |
		sed -nE 's/^([a-z]+) +STRKEY\("([a-z0-9_]+)", "([^"]*)".*/\1 \2 \3/p
		         s/^([a-z]+) +\{"([a-z0-9_]+)", CONF_[A-Z]+, "([^"]*)".*/\1 \2 \3/p'
	sed -nE 's/^ *D(STR|DUR|FUNC)\("([A-Za-z0-9_]+)", "([^"]*)".*/delivery \2 \3/p
	         s/^ *\{"([a-z0-9_]+)", CONF_[A-Z]+, "([^"]*)".*/delivery \1 \2/p' \
		"$TOP/deliver/delivery_conf.c"
	# the sending-address pools, [delivery] keys of their own (no default)
	sed -nE 's/^\tif \(strcmp\(key, "(source_[a-z_]+)"\) == 0\)$/delivery \1 /p' \
		"$TOP/deliver/delivery_source.c"
	sed -nE 's/^ *\{"([a-z0-9_]+)", P_[A-Z]+,.*/delivery \1 ?/p' \
		"$TOP/sched/sched_params.c"
	sed -nE 's/^ *LSTR\("([a-z0-9_]+)",.*/list \1 /p
	         s/^ *\{"([a-z0-9_]+)", CONF_[A-Z]+, "([^"]*)".*/list \1 \2/p' \
		"$TOP/lists/listconf.c"
}

# example_keys FILE - "section key default" for each "#key = default",
# and for each list key, documented at the end as "#   key = default"
example_keys() {
	awk '/^#?\[[a-z_:]+\]$/ { sec = $0; gsub(/[#\[\]]/, "", sec); next }
		/^#[A-Za-z0-9_]+ =/ { k = substr($1, 2); v = $0
			sub(/^#[A-Za-z0-9_]+ = ?/, "", v); print sec, k, v }' "$1"
	sed -nE 's/^#   ([a-z0-9_]+) = ?([^ ]*).*/list \1 \2/p' "$1"
}

# keys_missing CODE FILE - the keys of CODE ("section key default") that
# FILE does not hold at that default (default "?": at any), each as
# " [section] key = default;"
keys_missing() {
	local sec key def
	while read -r sec key def; do
		if [ "$def" = "?" ]; then
			grep -q "^$sec $key " "$2" || grep -qx "$sec $key" "$2" ||
				printf ' [%s] %s;' "$sec" "$key"
		elif ! grep -qxF "$sec $key $def" "$2" &&
			! { [ -z "$def" ] && grep -qxF "$sec $key" "$2"; }; then
			printf ' [%s] %s = %s;' "$sec" "$key" "$def"
		fi
	done <"$1"
}

# man_keys FILE - "section key default" for each key of mjq.conf(5): a
# ".SH [section]" starts a section, '.SS "key (default: value)"' is a key,
# "empty" the empty value
man_keys() {
	awk '/^\.SH / { sec = ""; if ($2 ~ /^\[[a-z_]+\]$/) sec = substr($2, 2, length($2) - 2); next }
		sec != "" && /^\.SS "/ { e = $0; sub(/^\.SS "/, "", e); sub(/"$/, "", e)
			k = e; sub(/ .*/, "", k)
			d = e; if (!sub(/^[^ ]+ \(default: /, "", d) || !sub(/\)$/, "", d)) d = "?"
			if (d == "empty") d = ""
			print sec, k, d }' "$1"
}

@test "make install puts programs, man pages, example config and init files in place with their modes" {
	cd "$ROOT"
	find . -type f -printf '%m %p\n' | sort >"$BATS_TEST_TMPDIR/got"
	{
		for p in mj_enqueue mj_queueserv mj_queuerun mj_stsfetch mj_schedsim mj_archive mjq-members mjq-newlist mjq-import \
			mjq-unsubsecret mjq-dkimkey mjq-setup; do
			echo "755 ./usr/sbin/$p"
		done
		echo "755 ./usr/lib/cgi-bin/mj_unsubscribe"
		echo "755 ./usr/lib/cgi-bin/mj_archsearch"
		echo "755 ./usr/lib/cgi-bin/mj_listweb"
		for m in "$TOP"/*/*.8; do
			echo "644 ./usr/share/man/man8/${m##*/}"
		done
		echo "644 ./usr/share/man/man5/mjq.conf.5"
		echo "644 ./etc/mjq/mjq.conf.example"
		echo "755 ./etc/init.d/mj_queueserv"
		echo "644 ./usr/lib/systemd/system/mj_queueserv.service"
	} | sort >"$BATS_TEST_TMPDIR/want"
	diff -u "$BATS_TEST_TMPDIR/want" "$BATS_TEST_TMPDIR/got"
	# the man pages of every program are among them
	for m in mj_enqueue mj_queueserv mj_queuerun mj_stsfetch mj_archive mjq-members mjq-import mjq-newlist mjq-dkimkey; do
		[ -f "usr/share/man/man8/$m.8" ]
	done
	cmp "$TOP/scripts/mjq.conf.example" etc/mjq/mjq.conf.example
	# man 5 mjq.conf finds the installed page
	if command -v man >/dev/null; then
		run man -M "$ROOT/usr/share/man" 5 mjq.conf
		[ "$status" -eq 0 ]
		[[ "$output" == *"mjq.conf - mjq configuration parameters"* ]]
		[[ "$output" == *"destination_concurrency_limit (default: 20)"* ]]
	fi
	# the installed mj_enqueue is the real one: it answers a bad call with 64
	run ./usr/sbin/mj_enqueue -d example.org -r
	[ "$status" -eq 64 ]
	[ "${lines[0]}" = "mj_enqueue: missing -l list" ]
}

@test "the installed init files and mjq-newlist name the installed paths" {
	grep -qx 'ExecStart=/usr/sbin/mj_queueserv -f -C /etc/mjq/mjq.conf' \
		"$ROOT/usr/lib/systemd/system/mj_queueserv.service"
	grep -qx ': "${MJ_QUEUESERV:=/usr/sbin/mj_queueserv}"' \
		"$ROOT/etc/init.d/mj_queueserv"
	grep -qx ': "${MJQ_CONF:=/etc/mjq/mjq.conf}"' "$ROOT/etc/init.d/mj_queueserv"
	run -1 grep -q /usr/local "$ROOT/usr/lib/systemd/system/mj_queueserv.service" \
		"$ROOT/usr/sbin/mjq-newlist" "$ROOT/usr/sbin/mjq-setup"
	grep -qx 'conf=/etc/mjq/mjq.conf' "$ROOT/usr/sbin/mjq-newlist"
	grep -qx 'conf=/etc/mjq/mjq.conf' "$ROOT/usr/sbin/mjq-setup"
	run "$NEWLIST" -l "$LISTS" example.org mylist al@example.org
	[ "$status" -eq 0 ]
	[ "${lines[1]}" = 'mylist:                  "|/usr/sbin/mj_enqueue -r -d example.org -l mylist"' ]
}

@test "PREFIX and SYSCONFDIR move everything, mj_enqueue's default mjq.conf included; make uninstall removes it all" {
	local root=$BATS_TEST_TMPDIR/root etc=$BATS_TEST_TMPDIR/etc
	make -s -C "$TOP" install DESTDIR="$root" PREFIX=/opt/mjq SYSCONFDIR="$etc" \
		>"$BATS_TEST_TMPDIR/install.log" 2>&1
	# put the checkout's programs back to the default (/etc) at once
	make -s -C "$TOP" all >/dev/null
	(cd "$root" && find . -type f | sort) >"$BATS_TEST_TMPDIR/files"
	# every file is under PREFIX or SYSCONFDIR (within DESTDIR)
	[ -z "$(grep -v -e "^./opt/mjq/" -e "^.$etc/" "$BATS_TEST_TMPDIR/files")" ]
	grep -qx "./opt/mjq/lib/systemd/system/mj_queueserv.service" "$BATS_TEST_TMPDIR/files"
	grep -qx ".$etc/init.d/mj_queueserv" "$BATS_TEST_TMPDIR/files"
	grep -qx "ExecStart=/opt/mjq/sbin/mj_queueserv -f -C $etc/mjq/mjq.conf" \
		"$root/opt/mjq/lib/systemd/system/mj_queueserv.service"
	grep -qx ": \"\${MJQ_CONF:=$etc/mjq/mjq.conf}\"" "$root$etc/init.d/mj_queueserv"
	grep -qx "conf=$etc/mjq/mjq.conf" "$root/opt/mjq/sbin/mjq-newlist"
	# mj_enqueue without -C reads SYSCONFDIR/mjq/mjq.conf: a broken one
	# there is named in its error
	mkdir -p "$etc/mjq"
	printf '[spool]\nnosuch = 1\n' >"$etc/mjq/mjq.conf"
	run "$root/opt/mjq/sbin/mj_enqueue" -d example.org -l l -r </dev/null
	[ "$status" -eq 75 ]
	[[ "$output" == *"$etc/mjq/mjq.conf:2: [spool] nosuch: unknown key"* ]]
	# and the alias lines mjq-newlist prints without -C reach the same file
	run "$root/opt/mjq/sbin/mjq-newlist" -l "$LISTS" example.org l o@example.org
	[[ "${lines[1]}" == *'"|/opt/mjq/sbin/mj_enqueue -r -d example.org -l l"' ]]
	# the checkout's own mj_enqueue is back at /etc
	run "$MJ_ENQUEUE" -d example.org -l l -r </dev/null
	[[ "$output" != *"$etc"* ]]
	[ -n "$output" ]
	make -s -C "$TOP" uninstall DESTDIR="$root" PREFIX=/opt/mjq SYSCONFDIR="$etc"
	[ -z "$(cd "$root" && find . -type f)" ]
}

@test "the example config with every setting in force loads in mj_enqueue and mj_queuerun" {
	# every key at its documented default, then this test's spool
	{
		uncomment "$ROOT/etc/mjq/mjq.conf.example"
		printf '[spool]\ndir = %s\n[lists]\ndir = %s\n[enqueue]\nstart_server = no\n' \
			"$SPOOL" "$LISTS"
	} >"$BATS_TEST_TMPDIR/all.conf"
	# every setting is in force: the keys, the [transport:smtp],
	# [transport_map] and [tls_policy] examples (113 lines); 17 sections;
	# then this test's 3 and 3
	run -1 grep -q '^#[^ ]' "$BATS_TEST_TMPDIR/all.conf"
	[ "$(grep -c '^[A-Za-z0-9_.]* =' "$BATS_TEST_TMPDIR/all.conf")" -eq $((113 + 3)) ]
	[ "$(grep -c '^\[' "$BATS_TEST_TMPDIR/all.conf")" -eq $((17 + 3)) ]
	mjq_list example.org mylist
	run "$ROOT/usr/sbin/mj_enqueue" -C "$BATS_TEST_TMPDIR/all.conf" \
		-d example.org -l mylist -r <<<$'Subject: x\n\nbody\n'
	[ "$status" -eq 0 ]
	[ "$output" = "" ]
	[ "$(queue_files | wc -l)" -eq 1 ]
	# the runner reads every section, [delivery] and [transport_map]
	# included, and checks each key
	run "$ROOT/usr/sbin/mj_queuerun" -C "$BATS_TEST_TMPDIR/all.conf" -l
	[ "$status" -eq 0 ]
	run timeout 30 "$ROOT/usr/sbin/mj_queuerun" -C "$BATS_TEST_TMPDIR/all.conf" -1
	[ "$status" -eq 0 ]
	# and a key the code does not know is refused: the load is a real check
	sed 's/^\[delivery\]$/&\nno_such_key = 1/' "$BATS_TEST_TMPDIR/all.conf" \
		>"$BATS_TEST_TMPDIR/bad.conf"
	run "$ROOT/usr/sbin/mj_queuerun" -C "$BATS_TEST_TMPDIR/bad.conf" -1
	[ "$status" -eq 78 ]
	[[ "$output" == *"bad.conf:"*": [delivery] no_such_key: unknown key" ]]
}

@test "the example config holds every key of the code's tables, at the code's default" {
	code_keys | sort -u >"$BATS_TEST_TMPDIR/code"
	# the tables were read at all (a broken extraction must not pass)
	[ "$(grep -c '^spool ' "$BATS_TEST_TMPDIR/code")" -eq 1 ]
	[ "$(grep -c '^queueserv ' "$BATS_TEST_TMPDIR/code")" -ge 16 ]
	[ "$(grep -c '^delivery .* ?$' "$BATS_TEST_TMPDIR/code")" -ge 20 ]
	[ "$(grep -c '^delivery source_' "$BATS_TEST_TMPDIR/code")" -eq 4 ]
	[ "$(grep -c '^list ' "$BATS_TEST_TMPDIR/code")" -ge 9 ]
	example_keys "$TOP/scripts/mjq.conf.example" >"$BATS_TEST_TMPDIR/ex"
	missing=$(keys_missing "$BATS_TEST_TMPDIR/code" "$BATS_TEST_TMPDIR/ex")
	[ "$missing" = "" ] || { echo "not in mjq.conf.example:$missing"; false; }
}

@test "mjq.conf(5) documents every key of the code's tables at its default, and no other" {
	code_keys | sort -u >"$BATS_TEST_TMPDIR/code"
	[ "$(grep -c '^queueserv ' "$BATS_TEST_TMPDIR/code")" -ge 16 ]
	[ "$(grep -c '^list ' "$BATS_TEST_TMPDIR/code")" -ge 9 ]
	man_keys "$TOP/docs/mjq.conf.5" >"$BATS_TEST_TMPDIR/man"
	# the page was read at all, every section of the code's among it
	[ "$(grep -c '^delivery ' "$BATS_TEST_TMPDIR/man")" -ge 50 ]
	run -1 grep ' ?$' "$BATS_TEST_TMPDIR/man"
	# the code's keys are on the page, at the code's default
	missing=$(keys_missing "$BATS_TEST_TMPDIR/code" "$BATS_TEST_TMPDIR/man")
	[ "$missing" = "" ] || { echo "not in mjq.conf(5):$missing"; false; }
	# the page's keys are the code's, each documented once, at the default
	# the example gives (the scheduler's defaults are set in code)
	example_keys "$TOP/scripts/mjq.conf.example" >"$BATS_TEST_TMPDIR/ex"
	unknown=
	while read -r sec key def; do
		grep -q "^$sec $key " "$BATS_TEST_TMPDIR/code" ||
			unknown="$unknown [$sec] $key (not in the code);"
		grep -qxF "$sec $key $def" "$BATS_TEST_TMPDIR/ex" ||
			{ [ -z "$def" ] && grep -qxF "$sec $key" "$BATS_TEST_TMPDIR/ex"; } ||
			unknown="$unknown [$sec] $key = $def (mjq.conf.example differs);"
	done <"$BATS_TEST_TMPDIR/man"
	[ "$unknown" = "" ] || { echo "mjq.conf(5):$unknown"; false; }
	[ -z "$(cut -d' ' -f1,2 "$BATS_TEST_TMPDIR/man" | sort | uniq -d)" ]
	# and it is a man page man reads without a warning
	if command -v man >/dev/null; then
		run --separate-stderr man --warnings -E UTF-8 -l "$TOP/docs/mjq.conf.5"
		[ "$status" -eq 0 ]
		[ -z "$stderr" ] || { echo "$stderr"; false; }
	fi
}

@test "mjq-newlist makes the list directory, config, subscribers and its lock file, owned like the lists directory" {
	chown 65534:65534 "$LISTS"
	run "$NEWLIST" -C "$CONF" -P 20 -p 30 example.org mylist al@example.org bo@example.net
	[ "$status" -eq 0 ]
	# -C goes into the lines too: mj_enqueue must read the same file
	a="-P 20 -p 30 -d example.org"
	cat >"$BATS_TEST_TMPDIR/want" <<-EOF
	# mylist@example.org: add to the MTA's aliases (majordomo once per domain)
	mylist:                  "|/usr/sbin/mj_enqueue -r -C $CONF $a -l mylist"
	mylist-request:          "|/usr/sbin/mj_enqueue -q -C $CONF $a -l mylist"
	mylist-owner:            "|/usr/sbin/mj_enqueue -o -C $CONF $a -l mylist"
	owner-mylist:            mylist-owner
	mylist-subscribe:        "|/usr/sbin/mj_enqueue -c subscribe -C $CONF $a -l mylist"
	mylist-unsubscribe:      "|/usr/sbin/mj_enqueue -c unsubscribe -C $CONF $a -l mylist"
	majordomo:               "|/usr/sbin/mj_enqueue -m -C $CONF -P 20 -d example.org"
	# Postfix: set owner_request_special = no in main.cf, or posts arrive
	# with owner-mylist as their sender (Return-Path)
	EOF
	diff -u "$BATS_TEST_TMPDIR/want" <(printf '%s\n' "$output")
	cd "$LISTS"
	[ "$(find . -printf '%m %u:%g %s %p\n' | sort -k4)" = "$(printf '%s\n' \
		'755 nobody:nogroup 4096 .' \
		'750 nobody:nogroup 4096 ./example.org' \
		'750 nobody:nogroup 4096 ./example.org/mylist' \
		"640 nobody:nogroup $(stat -c %s example.org/mylist/config) ./example.org/mylist/config" \
		'640 nobody:nogroup 0 ./example.org/mylist/subscribers' \
		'640 nobody:nogroup 0 ./example.org/mylist/subscribers.lock')" ]
	grep -qx 'owners = al@example.org bo@example.net' example.org/mylist/config
	grep -qx '\[list\]' example.org/mylist/config
	# a second list in the same domain; the first is never overwritten
	run "$NEWLIST" -l "$LISTS" example.org mylist x@example.org
	[ "$status" -eq 1 ]
	[ "$output" = "mjq-newlist: $LISTS/example.org/mylist already exists" ]
	grep -qx 'owners = al@example.org bo@example.net' example.org/mylist/config
	run "$NEWLIST" -l "$LISTS" example.org other x@example.org
	[ "$status" -eq 0 ]
	[ "$(ls -A example.org)" = "$(printf 'mylist\nother')" ]
}

@test "mjq-newlist refuses what mj_enqueue would refuse, with 64 and the reason" {
	for bad in .x a..b My a/b 'a b' 'x!'; do
		run "$NEWLIST" -l "$LISTS" example.org "$bad" o@example.org
		[ "$status" -eq 64 ]
		run "$MJ_ENQUEUE" -C "$CONF" -d example.org -l "$bad" -r </dev/null
		[ "$status" -eq 64 ]
	done
	run "$NEWLIST" -l "$LISTS" example.org My o@example.org
	[ "${lines[0]}" = 'mjq-newlist: bad list "My": name contains upper case (names are lowercase)' ]
	run "$NEWLIST" -l "$LISTS" Example.org l o@example.org
	[ "$status" -eq 64 ]
	run "$NEWLIST" -l "$LISTS" example.org "$(printf 'x%.0s' $(seq 65))" o@example.org
	[ "$status" -eq 64 ]
	[[ "${lines[0]}" == *": name too long" ]]
	for bad in mylist-owner owner-x x-request x-subscribe x-unsubscribe majordomo; do
		run "$NEWLIST" -l "$LISTS" example.org "$bad" o@example.org
		[ "$status" -eq 64 ]
		[ "${lines[0]}" = "mjq-newlist: bad list \"$bad\": clashes with the list's own addresses" ]
	done
	for bad in nobody 'a b@x' '<a@x>' 'a@x,b@x' '@x' 'a@'; do
		run "$NEWLIST" -l "$LISTS" example.org l "$bad"
		[ "$status" -eq 64 ]
		[ "${lines[0]}" = "mjq-newlist: bad owner address \"$bad\"" ]
	done
	run "$NEWLIST" -l "$LISTS" -P 100 example.org l o@example.org
	[ "$status" -eq 64 ]
	run "$NEWLIST" -l "$LISTS" example.org l
	[ "$status" -eq 64 ]
	run "$NEWLIST" -l "$BATS_TEST_TMPDIR/nowhere" example.org l o@example.org
	[ "$status" -eq 1 ]
	[ "$output" = "mjq-newlist: no lists directory $BATS_TEST_TMPDIR/nowhere (create it, owned by the mjq user)" ]
	run "$NEWLIST" -C "$BATS_TEST_TMPDIR/none.conf" example.org l o@example.org
	[ "$status" -eq 1 ]
	# nothing was made by any of these
	[ -z "$(ls -A "$LISTS")" ]
}

@test "every alias line mjq-newlist prints queues its mail under the right function" {
	run "$NEWLIST" -C "$CONF" -e "$MJ_ENQUEUE" -p 30 example.org mylist al@example.org
	[ "$status" -eq 0 ]
	# run each pipe as the MTA would: the text between "| and the last "
	printf '%s\n' "$output" | sed -n 's/^\([a-z-]*\): *"|\(.*\)"$/\1 \2/p' |
		while read -r name cmd; do
			printf 'Subject: %s\n\nbody\n' "$name" | sh -c "$cmd" || exit 1
		done
	queue_files | sed 's/[A-X][A-Z][A-Z]-[0-9]*-/NAME-/' >"$BATS_TEST_TMPDIR/got"
	diff -u - "$BATS_TEST_TMPDIR/got" <<-'EOF'
	QUEUE/10/example.org/10/majordomo/NAME-GLOBAL
	QUEUE/10/example.org/30/list/NAME-mylist
	QUEUE/10/example.org/30/owner/NAME-mylist
	QUEUE/10/example.org/30/request/NAME-mylist
	QUEUE/10/example.org/30/request/NAME-mylist,subscribe
	QUEUE/10/example.org/30/request/NAME-mylist,unsubscribe
	EOF
}

@test "a list made by mjq-newlist, every config key in force, delivers a post" {
	run "$NEWLIST" -C "$CONF" example.org mylist al@example.org
	[ "$status" -eq 0 ]
	cfg=$LISTS/example.org/mylist/config
	uncomment "$cfg" >"$cfg.new" && mv "$cfg.new" "$cfg"
	[ "$(grep -c '^[a-z_]* =' "$cfg")" -eq 28 ]
	echo sub@d.test >"$LISTS/example.org/mylist/subscribers"
	printf '[transport_map]\nd.test = maildir:%s/mail/${user}\n' "$BATS_TEST_TMPDIR" >>"$CONF"
	# posting = subscribers is in force: the subscriber posts
	printf 'From: sub@d.test\nSubject: hi\n\nbody\n' |
		"$MJ_ENQUEUE" -C "$CONF" -d example.org -l mylist -r -f sub@d.test
	timeout 30 "$MJ_QUEUERUN" -C "$CONF" -1 2>"$BATS_TEST_TMPDIR/run.log"
	run -1 grep -i 'error\|warn\|invalid' "$BATS_TEST_TMPDIR/run.log"
	f=$(find "$BATS_TEST_TMPDIR/mail/sub/new" -type f)
	[ "$(echo "$f" | wc -l)" -eq 1 ]
	grep -qx 'List-Id: <mylist.example.org>' "$f"
	[ -z "$(queue_files)" ]
}

@test "docs/mta.md's mjq-newlist sample is what mjq-newlist prints, comment lines and all" {
	# the sample: the lines after its command, up to the blank line
	awk '/^    # mjq-newlist example.org mylist alice@example.org$/ { on = 1; next }
		on && /^$/ { exit }
		on { print substr($0, 5) }' "$TOP/docs/mta.md" >"$BATS_TEST_TMPDIR/readme"
	[ "$(wc -l <"$BATS_TEST_TMPDIR/readme")" -ge 9 ]
	"$TOP/scripts/mjq-newlist" -l "$LISTS" example.org mylist alice@example.org \
		>"$BATS_TEST_TMPDIR/got"
	diff -u "$BATS_TEST_TMPDIR/readme" "$BATS_TEST_TMPDIR/got"
}
