# t/private-host.bash - Debian packages for the tests that run another MTA in a
# private host (t/private-host.sh): fetched from Debian's archive with
# apt-get download on first use and kept in $MJQ_DEB_CACHE (t/debs/ of
# the checkout unless set), so that a fresh machine fetches them once per
# checkout and a second run needs no network.  Load after helpers.bash.

MJQ_DEB_CACHE=${MJQ_DEB_CACHE:-$TOP/t/debs}

# debs_fetch PKG... - print the cached .deb of each PKG, one a line,
# downloading the missing ones (under a lock: test files may run at once).
# Fails, saying why on stderr, when Debian's archive cannot be reached.
debs_fetch() {
	local p f missing=()
	mkdir -p "$MJQ_DEB_CACHE" || return 1
	(
		flock 9 || exit 1
		for p in "$@"; do
			compgen -G "$MJQ_DEB_CACHE/${p}_*.deb" >/dev/null ||
				missing+=("$p")
		done
		[ "${#missing[@]}" -eq 0 ] && exit 0
		# apt's sandbox user writes the files; a private directory
		# first, so that no half file is ever in the cache
		local tmp
		tmp=$(mktemp -d "$MJQ_DEB_CACHE/.fetch.XXXXXX") || exit 1
		chmod 0755 "$tmp"
		# apt's package lists may be missing or stale on a fresh
		# machine: read them again once before giving up
		if ! (cd "$tmp" && timeout 300 apt-get -q download "${missing[@]}") \
			>"$tmp/log" 2>&1 &&
			! { timeout 300 apt-get -q update &&
				(cd "$tmp" && timeout 300 apt-get -q download "${missing[@]}"); } \
				>>"$tmp/log" 2>&1; then
			cat "$tmp/log" >&2
			rm -rf "$tmp"
			exit 1
		fi
		mv "$tmp"/*.deb "$MJQ_DEB_CACHE/" && rm -rf "$tmp"
	) 9>"$MJQ_DEB_CACHE/.lock" || return 1
	for p in "$@"; do
		f=$(compgen -G "$MJQ_DEB_CACHE/${p}_*.deb" | sort -V | tail -1)
		[ -n "$f" ] || return 1
		echo "$f"
	done
}

# private_host_start STAGE DEB... - a private copy of this host with the
# packages unpacked (t/private-host.sh); sets HOST_PID, the process to
# enter (host_run) and to kill (private_host_stop).
private_host_start() {
	local stage=$1 upid i
	shift
	unshare --mount --pid --fork --mount-proc \
		sh "$TOP/t/private-host.sh" "$stage" "$@" >"$stage/host.log" 2>&1 3>&- &
	upid=$!
	wait_for 60 eval "[ -e '$stage/ready' ] || [ -e '$stage/failed' ]" ||
		return 1
	if [ -e "$stage/failed" ]; then
		cat "$stage/failed" "$stage/host.log" >&2
		return 1
	fi
	# the host's pid 1, unshare's child
	HOST_PID=$(tr -d " " <"/proc/$upid/task/$upid/children")
	[ -n "$HOST_PID" ]
}

# host_run CMD... - run CMD as root in the private host
host_run() {
	nsenter -t "$HOST_PID" -m -p -- "$@"
}

# host_call FUNCTION - run the shell function FUNCTION (of the test file
# or this one) as root in the private host, under bash -eu; it runs
# only where /etc is the private host's overlay, never on the real host
host_call() {
	host_run bash -euc "$(declare -f "$1")
		[ \"\$(findmnt -n -o FSTYPE /etc)\" = overlay ] || exit 1
		$1"
}

# host_step FUNCTION - host_call FUNCTION, its output in
# $STAGE/FUNCTION.log, shown when it fails
host_step() {
	host_call "$1" >"$STAGE/$1.log" 2>&1 || {
		cat "$STAGE/$1.log"
		return 1
	}
}

# mta_listening - the MTA answers on 127.0.0.2:MTA_PORT
mta_listening() {
	wait_for 30 eval "(exec 3<>/dev/tcp/127.0.0.2/$MTA_PORT) 2>/dev/null"
}

# private_host_stop - end the private host and everything in it
private_host_stop() {
	[ -n "${HOST_PID:-}" ] || return 0
	kill -KILL "$HOST_PID" 2>/dev/null
	wait_for 10 eval "! kill -0 $HOST_PID 2>/dev/null"
}

# mta_host_start NAME DEB... - for an MTA test file's setup_file: sets
# MTA_SKIP to the reason without root, namespaces or the packages (bats
# 1.8 cannot skip from setup_file: mta_host_setup skips each test);
# else starts the sink (the
# subscribers' MX, and the MTA's relay for bounces: SINK_PORT), a
# private host with the packages (STAGE, /tmp/mjqNAME.*) and mjq
# installed in it with the list mylist@example.org (mjq_host_setup), and
# picks MTA_PORT, free on 127.0.0.2, the MTA's own address (127.0.0.1,
# the sink's, must not be the MTA's, or it would not relay to it).
mta_host_start() {
	local name=$1 debs
	shift
	export MTA_SKIP=
	if [ "$(id -u)" -ne 0 ]; then
		MTA_SKIP="needs root: namespaces and mounts"
	elif ! unshare --mount --pid --fork --mount-proc true 2>/dev/null; then
		MTA_SKIP="no namespaces here"
	elif ! debs=$(debs_fetch "$@"); then
		MTA_SKIP="Debian's archive cannot be reached for $*"
	fi
	[ -z "$MTA_SKIP" ] || return 0
	STAGE=$(mktemp -d "/tmp/mjq$name.XXXXXX")
	chmod 0755 "$STAGE"
	export STAGE TOP
	mkdir "$STAGE/sink"
	"$MJ_TESTSMTPD" --port-file "$STAGE/sink/port" --pid-file "$STAGE/sink/pid" \
		--log "$STAGE/sink/log" --save-dir "$STAGE/sink/save" \
		2>"$STAGE/sink/stderr" 3>&- &
	wait_for 10 test -s "$STAGE/sink/port"
	SINK_PORT=$(cat "$STAGE/sink/port")
	MTA_PORT=$(port_unused 127.0.0.2)
	export SINK_PORT MTA_PORT
	echo "$MTA_PORT" >"$STAGE/mta.port"
	# shellcheck disable=SC2086
	private_host_start "$STAGE" $debs
	echo "$HOST_PID" >"$STAGE/host.pid"
	host_step mjq_host_setup
}

# mta_host_stop - teardown_file: the private host and the sink go
mta_host_stop() {
	[ -n "${STAGE:-}" ] || return 0
	HOST_PID=$(cat "$STAGE/host.pid" 2>/dev/null)
	private_host_stop
	[ -s "$STAGE/sink/pid" ] && stop_pid "$(cat "$STAGE/sink/pid")"
	rm -rf "$STAGE"
}

# mta_host_setup - each test's setup: skips for MTA_SKIP; else the host,
# the MTA's port, and the sink's log from here on (sink_new)
mta_host_setup() {
	[ -z "$MTA_SKIP" ] || skip "$MTA_SKIP"
	HOST_PID=$(cat "$STAGE/host.pid")
	MTA_PORT=$(cat "$STAGE/mta.port")
	SINK_MARK=$(wc -l <"$STAGE/sink/log")
}

# mjq_host_setup - run in the private host: mjq installed (make install,
# which runs mjq-setup) with the list mylist@example.org, its DKIM key
# and two subscribers at the sink; the spool on a small tmpfs that a
# test can fill; /etc/mjq/run.conf sends every delivery to the sink
mjq_host_setup() {
	cd "$TOP"
	make install >"$STAGE/install.log"
	mount -t tmpfs -o size=32m,mode=0750 mjqhost /var/spool/mjq
	chown mjq:mjq /var/spool/mjq
	install -d -o mjq -g mjq /var/spool/mjq/tmp /var/spool/mjq/QUEUE
	printf '[enqueue]\nstart_server = no\n' >>/etc/mjq/mjq.conf
	mjq-newlist example.org mylist owner@sink.test >>/var/lib/mjq/aliases
	mjq-dkimkey example.org mjq >/dev/null
	printf 'a@sink.test\nb@sink.test\n' \
		>>/var/lib/mjq/lists/example.org/mylist/subscribers
	printf 'posting = open\ndmarc_mitigation = none\n' \
		>>/var/lib/mjq/lists/example.org/mylist/config
	{
		cat /etc/mjq/mjq.conf
		printf '[transport_map]\n* = smtp:[127.0.0.1]:%s\n' "$SINK_PORT"
	} >/etc/mjq/run.conf
}

# mjq_spool_clear - each test's teardown: mjq's spool empty, not full
mjq_spool_clear() {
	host_run bash -c 'rm -f /var/spool/mjq/filler
		find /var/spool/mjq/QUEUE /var/spool/mjq/tmp -mindepth 1 -delete'
}

# mjq_spool_fill - take every free byte of mjq's spool
mjq_spool_fill() {
	host_run bash -c 'dd if=/dev/zero of=/var/spool/mjq/filler bs=64k 2>/dev/null || true'
}

# doc_blocks SECTION DIR - the blocks of docs/mta.md's section "## SECTION"
# that a line "    # /path" heads: DIR/paths lists the paths, DIR/N holds
# the Nth block's lines (without the indentation); prints both
doc_blocks() {
	local d=$2 n=0 path
	mkdir -p "$d"
	: >"$d/paths"
	awk -v s="## $1" -v d="$d" '/^## / { on = index($0, s) == 1 }
		!on { next }
		/^    # \// { f = d "/" ++n; print substr($0, 7) >(d "/paths"); next }
		f && /^    / { print substr($0, 5) >f; next }
		{ f = "" }' "$TOP/docs/mta.md"
	while read -r path; do
		n=$((n + 1))
		echo "# $path"
		cat "$d/$n"
	done <"$d/paths"
}

# doc_commands SECTION - the command lines ("    # command", not a path)
# of docs/mta.md's section "## SECTION", one a line
doc_commands() {
	awk -v s="## $1" '/^## / { on = index($0, s) == 1 }
		on && /^    # [^\/]/ { print substr($0, 7) }' "$TOP/docs/mta.md"
}

# post TAG [RCPT] - a post from poster@example.net (to mylist@example.org)
# in $BATS_TEST_TMPDIR/TAG, its Message-ID <TAG@example.net>
post() {
	printf 'From: Poster <poster@example.net>\nTo: %s\nSubject: %s\nMessage-ID: <%s@example.net>\n\nhello\n' \
		"${2:-mylist@example.org}" "$1" "$1" >"$BATS_TEST_TMPDIR/$1"
}

# by_sendmail TAG RCPT - the post through the MTA's sendmail interface
by_sendmail() {
	host_run sendmail -f poster@example.net "$2" <"$BATS_TEST_TMPDIR/$1"
}

# by_smtp TAG RCPT - the post over SMTP to the MTA, which takes it
by_smtp() {
	local out
	out=$("$MJ_SMTPTRY" -H 127.0.0.2 -p "$MTA_PORT" -t 10000 \
		-f poster@example.net -r "$2" -m "$BATS_TEST_TMPDIR/$1" 2>&1)
	echo "$out"
	[[ "$out" == *" to=<$2> status=sent "* ]]
}

# queue_files - the message files of mjq's spool in the host
queue_files() {
	host_run bash -c 'cd /var/spool/mjq && find QUEUE -type f ! -name ".*" | sort'
}

# run_runner - one pass of mj_queuerun as the mjq user
run_runner() {
	host_run timeout 60 runuser -u mjq -- mj_queuerun -C /etc/mjq/run.conf -1
}

# sink_new - the sink's log lines since mta_host_setup, without the
# session and message numbers
sink_new() {
	tail -n +"$((SINK_MARK + 1))" "$STAGE/sink/log" | sed 's/^[^ ]* [^ ]* //'
}

# queued_from_poster FUNCTION - the one message in mjq's spool is a
# mylist post of FUNCTION (list, owner, request...) whose one Return-Path
# is the poster, without a From_ line; sets f to it
queued_from_poster() {
	run queue_files
	printf '%s\n' "${lines[@]}"
	[ "${#lines[@]}" -eq 1 ] || return 1
	[[ "${lines[0]}" =~ ^QUEUE/10/example.org/10/$1/[A-X][A-Z][A-Z]-[0-9]+-mylist$ ]] || return 1
	f=/var/spool/mjq/${lines[0]}
	[ "$(host_run sed -n 1p "$f")" = 'Return-Path: <poster@example.net>' ] &&
		[ "$(host_run grep -c '^Return-Path:' "$f")" -eq 1 ] &&
		[ "$(host_run grep -c '^From ' "$f")" -eq 0 ]
}

# functions_from_poster [FUNCTION LIST]... - mjq's spool holds exactly
# these messages (by default those that mail to mylist-owner,
# owner-mylist, mylist-request and majordomo makes), each with the
# poster as its Return-Path
functions_from_poster() {
	local want
	if [ $# -eq 0 ]; then
		set -- 'majordomo GLOBAL' 'owner mylist' 'owner mylist' 'request mylist'
	fi
	want=$(printf '%s\n' "$@" | sort)
	run queue_files
	printf '%s\n' "${lines[@]}"
	[ "$(printf '%s\n' "${lines[@]}" | sed 's|^QUEUE/10/example.org/10/||; s|/[A-X][A-Z][A-Z]-[0-9]*-| |' |
		sort)" = "$want" ] || return 1
	for f in "${lines[@]}"; do
		[ "$(host_run sed -n 1p "/var/spool/mjq/$f")" = 'Return-Path: <poster@example.net>' ] ||
			return 1
	done
}

# bounced_with_line LINE - the sink got one bounce, to the poster, that
# quotes LINE (mj_enqueue's stderr)
bounced_with_line() {
	wait_for 30 eval '[ -n "$(sink_new)" ]' || return 1
	[ "$(sink_new)" = 'from=<> to=<poster@example.net>' ] &&
		sed 's/\r$//' "$STAGE"/sink/save/new/* | grep -F "$1"
}

# list_delivers - the runner sends the queued post to each subscriber
# once, from the list, and the spool is empty
list_delivers() {
	run_runner || return 1
	[ "$(sink_new | sort)" = "$(printf '%s\n' \
		'from=<mylist-owner@example.org> to=<a@sink.test>' \
		'from=<mylist-owner@example.org> to=<b@sink.test>')" ] &&
		[ -z "$(queue_files)" ]
}
