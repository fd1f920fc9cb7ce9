#!/usr/bin/env bats
# t/95-exim.bats - the Exim section of docs/mta.md, word for word, on
# Debian's own exim4 (slow: a private host, about half a minute).
#
# Exim and Postfix conflict as installed packages, so Debian's exim4
# packages are fetched with apt-get download (t/private-host.bash caches
# them) and unpacked into a private copy of this host
# (t/private-host.sh: overlays on /etc, /usr and /var in a mount
# namespace of its own), where they sit at their Debian paths.  There
# the test does what the packages' maintainer scripts would (the
# Debian-exim user, its directories, debconf's answers in
# /etc/exim4/update-exim4.conf.conf: a smarthost setup whose smarthost
# is this test's sink, the split configuration) and what an
# administrator does for mjq (make install, a list, its DKIM key); then
# it takes from docs/mta.md the dc_other_hostnames line and the files it
# names under /etc/exim4/, puts them in place unchanged, and runs
# Debian's update-exim4.conf, which builds Exim's configuration from
# Debian's template.  Exim's daemon listens on 127.0.0.2 (127.0.0.1, the
# sink's, must not be its own address, or it would refuse to send the
# bounces there); mj_queuerun delivers the posts to the same sink.
#
# Needs root (namespaces, mounts).  Skips when Debian's archive cannot be
# reached and the packages are not cached.

load helpers
load smtp_helpers
load private-host

EXIM_DEBS="exim4-base exim4-config exim4-daemon-light"

setup_file() {
	[ "$(id -u)" -eq 0 ] || skip "needs root: namespaces and mounts"
	unshare --mount --pid --fork --mount-proc true 2>/dev/null ||
		skip "no namespaces here"
	local debs
	if ! debs=$(debs_fetch $EXIM_DEBS); then
		skip "Debian's archive cannot be reached for $EXIM_DEBS"
	fi
	STAGE=$(mktemp -d /tmp/mjq95.XXXXXX)
	chmod 0755 "$STAGE"
	export STAGE TOP
	# the sink: the subscribers' MX and Exim's smarthost, for the bounces
	mkdir "$STAGE/sink"
	"$MJ_TESTSMTPD" --port-file "$STAGE/sink/port" --pid-file "$STAGE/sink/pid" \
		--log "$STAGE/sink/log" --save-dir "$STAGE/sink/save" \
		2>"$STAGE/sink/stderr" 3>&- &
	wait_for 10 test -s "$STAGE/sink/port"
	SINK_PORT=$(cat "$STAGE/sink/port")
	EXIM_PORT=$(port_unused 127.0.0.2)
	export SINK_PORT EXIM_PORT
	# shellcheck disable=SC2086
	private_host_start "$STAGE" $debs
	echo "$HOST_PID" >"$STAGE/host.pid"
	host_run bash -euc "$(declare -f exim_host_setup); exim_host_setup" \
		>"$STAGE/setup.log" 2>&1 || {
		cat "$STAGE/setup.log"
		return 1
	}
	# the lines of docs/mta.md, unchanged, where it says they go
	exim_doc_lines
	host_run update-exim4.conf
	host_run exim4 -bd -q30m -oX "$EXIM_PORT" -oP /run/exim4/exim.pid
	wait_for 30 eval "(exec 3<>/dev/tcp/127.0.0.2/$EXIM_PORT) 2>/dev/null"
}

teardown_file() {
	[ -n "${STAGE:-}" ] || return 0
	HOST_PID=$(cat "$STAGE/host.pid" 2>/dev/null)
	private_host_stop
	[ -s "$STAGE/sink/pid" ] && stop_pid "$(cat "$STAGE/sink/pid")"
	rm -rf "$STAGE"
}

# exim_host_setup - run in the private host: mjq installed with a list,
# Exim as its packages' maintainer scripts and debconf leave it
exim_host_setup() {
	cd "$TOP"
	make install >"$STAGE/install.log"
	# the spool on a small file system that a test fills
	mount -t tmpfs -o size=32m,mode=0750 mjq95 /var/spool/mjq
	chown mjq:mjq /var/spool/mjq
	install -d -o mjq -g mjq /var/spool/mjq/tmp /var/spool/mjq/QUEUE
	printf '[enqueue]\nstart_server = no\n' >>/etc/mjq/mjq.conf
	mjq-newlist example.org mylist owner@sink.test >>/var/lib/mjq/aliases
	mjq-dkimkey example.org mjq >/dev/null
	printf 'a@sink.test\nb@sink.test\n' \
		>>/var/lib/mjq/lists/example.org/mylist/subscribers
	printf 'posting = open\ndmarc_mitigation = none\n' \
		>>/var/lib/mjq/lists/example.org/mylist/config
	# the runner's configuration: every address to the sink
	{
		cat /etc/mjq/mjq.conf
		printf '[transport_map]\n* = smtp:[127.0.0.1]:%s\n' "$SINK_PORT"
	} >/etc/mjq/run.conf
	# what exim4-base's and exim4-config's postinst make
	adduser --system --group --quiet --home /var/spool/exim4 \
		--no-create-home --disabled-login --force-badname Debian-exim
	install -d -o Debian-exim -g adm -m 2750 /var/log/exim4
	install -d -o Debian-exim -g Debian-exim -m 0750 /run/exim4 \
		/var/spool/exim4 /var/spool/exim4/db /var/spool/exim4/input \
		/var/spool/exim4/msglog
	echo mail.example.org >/etc/mailname
	# debconf's answers: mail sent by smarthost (the sink), Exim's own
	# address 127.0.0.2, the split configuration
	cat >/etc/exim4/update-exim4.conf.conf <<-EOF
	dc_eximconfig_configtype='smarthost'
	dc_other_hostnames=''
	dc_local_interfaces='127.0.0.2'
	dc_readhost=''
	dc_relay_domains=''
	dc_minimaldns='false'
	dc_relay_nets=''
	dc_smarthost='127.0.0.1::$SINK_PORT'
	CFILEMODE='644'
	dc_use_split_config='true'
	dc_hide_mailname=''
	dc_mailname_in_oh='true'
	dc_localdelivery='mail_spool'
	EOF
}

# exim_doc_lines - docs/mta.md's Exim section into the private host: its
# dc_other_hostnames line into update-exim4.conf.conf, each block headed
# by "# /etc/exim4/..." into that file
exim_doc_lines() {
	local d=$STAGE/doc path n=0
	mkdir -p "$d"
	awk -v d="$d" '/^## / { on = /^## Exim/ }
		!on { next }
		/^    dc_other_hostnames=/ { print substr($0, 5) >(d "/dc") }
		/^    # \/etc\/exim4\// { f = d "/" ++n; print substr($0, 7) >(d "/paths"); next }
		f && /^    / { print substr($0, 5) >f; next }
		{ f = "" }' "$TOP/docs/mta.md"
	cat "$d/dc" "$d/paths"
	# the setting and the two files were found
	[ "$(wc -l <"$d/dc")" -eq 1 ]
	[ "$(wc -l <"$d/paths")" -eq 2 ]
	host_run sed -i "s/^dc_other_hostnames=.*/$(cat "$d/dc")/" \
		/etc/exim4/update-exim4.conf.conf
	while read -r path; do
		n=$((n + 1))
		cat "$d/$n"
		host_run install -m 0644 "$d/$n" "$path"
	done <"$d/paths"
}

setup() {
	SINK_MARK=$(wc -l <"$STAGE/sink/log")
	HOST_PID=$(cat "$STAGE/host.pid")
}

teardown() {
	# each test starts with an empty spool and an empty Exim queue
	host_run bash -c 'rm -f /var/spool/mjq/filler
		find /var/spool/mjq/QUEUE /var/spool/mjq/tmp -mindepth 1 -delete
		exim4 -bp | awk "\$3 ~ /-.*-/ { print \$3 }" | xargs -r exim4 -Mrm >/dev/null'
}

# post TAG [RCPT] - a post from poster@example.net (to mylist@example.org)
post() {
	printf 'From: Poster <poster@example.net>\nTo: %s\nSubject: %s\nMessage-ID: <%s@example.net>\n\nhello\n' \
		"${2:-mylist@example.org}" "$1" "$1" >"$BATS_TEST_TMPDIR/$1"
}

# by_sendmail TAG RCPT - the post through Exim's sendmail interface
by_sendmail() {
	host_run sendmail -f poster@example.net "$2" <"$BATS_TEST_TMPDIR/$1"
}

# by_smtp TAG RCPT - the post over SMTP to Exim's daemon
by_smtp() {
	"$MJ_SMTPTRY" -H 127.0.0.2 -p "$EXIM_PORT" -t 10000 \
		-f poster@example.net -r "$2" -m "$BATS_TEST_TMPDIR/$1"
}

# mainlog - Exim's main log
mainlog() {
	host_run cat /var/log/exim4/mainlog
}

# exim_id TAG - Exim's id of the post with Message-ID <TAG@example.net>
exim_id() {
	mainlog | awk -v id="id=$1@example.net" '$4 == "<=" && $NF == id { print $3 }'
}

# exim_done TAG - Exim has finished with the post: its id and "Completed";
# prints what Exim logged of it, for the reader of a failure
exim_done() {
	local id
	id=$(exim_id "$1")
	[ -n "$id" ] && mainlog | grep -q "^.* $id Completed$" &&
		mainlog | grep " $id "
}

# queue_files - the message files of mjq's spool
queue_files() {
	host_run bash -c 'cd /var/spool/mjq && find QUEUE -type f ! -name ".*" | sort'
}

# run_runner - one pass of mj_queuerun as the mjq user
run_runner() {
	host_run timeout 60 runuser -u mjq -- mj_queuerun -C /etc/mjq/run.conf -1
}

# sink_new - the sink's log lines since setup, without the session and
# message numbers
sink_new() {
	tail -n +"$((SINK_MARK + 1))" "$STAGE/sink/log" | sed 's/^[^ ]* [^ ]* //'
}

# posted_to_list HOW TAG - the post goes to mylist by HOW, Exim hands it
# to mj_enqueue, the runner sends it to each subscriber once
posted_to_list() {
	post "$2"
	"$1" "$2" mylist@example.org
	wait_for 30 exim_done "$2"
	mainlog | grep -q " $(exim_id "$2") => mylist <mylist@example.org> R=mjq_lists T=mjq_pipe$"
	run queue_files
	[ "${#lines[@]}" -eq 1 ]
	[[ "${lines[0]}" =~ ^QUEUE/10/example.org/10/list/[A-X][A-Z][A-Z]-[0-9]+-mylist$ ]]
	f=${lines[0]}
	# the poster is the sender; one Return-Path, no From_ line
	[ "$(host_run sed -n 1p "/var/spool/mjq/$f")" = 'Return-Path: <poster@example.net>' ]
	[ "$(host_run grep -c '^Return-Path:' "/var/spool/mjq/$f")" -eq 1 ]
	[ "$(host_run grep -c '^From ' "/var/spool/mjq/$f")" -eq 0 ]
	run_runner
	[ "$(sink_new | sort)" = "$(printf '%s\n' \
		'from=<mylist-owner@example.org> to=<a@sink.test>' \
		'from=<mylist-owner@example.org> to=<b@sink.test>')" ]
	[ -z "$(queue_files)" ]
}

@test "Exim: a post through the sendmail interface reaches every subscriber once" {
	posted_to_list by_sendmail x1
}

@test "Exim: a post over SMTP reaches every subscriber once" {
	posted_to_list by_smtp x2
}

@test "Exim: owner, request and majordomo mail reach their functions with the poster as sender" {
	local r
	for r in mylist-owner owner-mylist mylist-request majordomo; do
		post "x3$r" "$r@example.org"
		by_smtp "x3$r" "$r@example.org"
		wait_for 30 exim_done "x3$r"
	done
	run queue_files
	printf '%s\n' "${lines[@]}"
	[ "${#lines[@]}" -eq 4 ]
	[ "$(printf '%s\n' "${lines[@]}" | sed 's|^QUEUE/10/example.org/10/||; s|/[A-X][A-Z][A-Z]-[0-9]*-| |' |
		sort)" = "$(printf '%s\n' 'majordomo GLOBAL' 'owner mylist' 'owner mylist' 'request mylist')" ]
	for f in "${lines[@]}"; do
		[ "$(host_run sed -n 1p "/var/spool/mjq/$f")" = 'Return-Path: <poster@example.net>' ]
	done
}

@test "Exim: a post to a list that does not exist bounces to the poster with mj_enqueue's line" {
	post x4 gone@example.org
	by_smtp x4 gone@example.org
	wait_for 30 exim_done x4
	mainlog | grep -q " $(exim_id x4) \*\* gone@example.org R=mjq_lists T=mjq_pipe: Child process of mjq_pipe transport returned 67 "
	[ -z "$(queue_files)" ]
	# the bounce, through the smarthost
	wait_for 30 eval '[ -n "$(sink_new)" ]'
	[ "$(sink_new)" = 'from=<> to=<poster@example.net>' ]
	sed 's/\r$//' "$STAGE"/sink/save/new/* | grep -x 'mj_enqueue: no such list gone@example.org'
}

@test "Exim: a full spool defers (75); exim4 -qf delivers once there is room" {
	host_run bash -c 'dd if=/dev/zero of=/var/spool/mjq/filler bs=64k 2>/dev/null || true'
	post x5
	by_smtp x5 mylist@example.org
	id=
	wait_for 30 eval 'id=$(exim_id x5); [ -n "$id" ] && mainlog | grep " $id [=*][=*] "'
	mainlog | grep -q " $id == mylist@example.org R=mjq_lists T=mjq_pipe defer (0): Child process of mjq_pipe transport returned 75 "
	[ -z "$(queue_files)" ]
	# Exim keeps it
	[ "$(host_run exim4 -bpc)" -eq 1 ]
	host_run rm /var/spool/mjq/filler
	host_run exim4 -qf
	wait_for 30 exim_done x5
	mainlog | grep -q " $id => mylist <mylist@example.org> R=mjq_lists T=mjq_pipe$"
	run queue_files
	[ "${#lines[@]}" -eq 1 ]
	run_runner
	[ "$(sink_new | sort)" = "$(printf '%s\n' \
		'from=<mylist-owner@example.org> to=<a@sink.test>' \
		'from=<mylist-owner@example.org> to=<b@sink.test>')" ]
}

@test "Exim: the same lines in the single-file configuration (exim4.conf.template)" {
	local d=$STAGE/doc t r
	# the files of the split configuration go; their lines go into the
	# template after "begin transports" and "begin routers"
	t=$(grep -n /transport/ "$d/paths" | cut -d: -f1)
	r=$(grep -n /router/ "$d/paths" | cut -d: -f1)
	[ -n "$t" ] && [ -n "$r" ]
	host_run xargs rm <"$d/paths"
	host_run awk -v t="$d/$t" -v r="$d/$r" '{ print }
		/^begin transports$/ { while ((getline l <t) > 0) print l; print "" }
		/^begin routers$/ { while ((getline l <r) > 0) print l; print "" }' \
		/etc/exim4/exim4.conf.template >"$d/template"
	[ "$(grep -c '^mjq_' "$d/template")" -eq 2 ]
	host_run cp "$d/template" /etc/exim4/exim4.conf.template
	host_run sed -i "s/^dc_use_split_config=.*/dc_use_split_config='false'/" \
		/etc/exim4/update-exim4.conf.conf
	host_run update-exim4.conf
	posted_to_list by_sendmail x6
}
