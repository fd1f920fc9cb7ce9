# t/helpers.bash - what every test file loads: paths to the programs, a
# private spool and configuration per test, and waiting on conditions.

TOP=$(cd "$BATS_TEST_DIRNAME/.." && pwd)
MJ_ENQUEUE=$TOP/enqueue/mj_enqueue
MJ_QUEUESERV=$TOP/queueserv/mj_queueserv
MJ_QUEUERUN=$TOP/queuerun/mj_queuerun
MJ_SCHEDSIM=$TOP/schedsim/mj_schedsim
MJ_TESTSMTPD=$TOP/t/tools/mj_testsmtpd

# SAN_KB - what the runner's allocator may add to a peak RSS under make
# SAN=1, and SAN_RSS_OPTIONS the ASAN_OPTIONS of a run whose RSS is
# measured.  ASan's quarantine, which holds freed blocks up to 256 MB,
# is off for such runs; its size-class regions still map a few MB more
# over a longer run whatever the live memory.
SAN_KB=0
if ldd "$MJ_QUEUERUN" 2>/dev/null | grep -q libasan; then
	SAN_KB=6144
fi
SAN_RSS_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}quarantine_size_mb=0:thread_local_quarantine_size_kb=0
# Under make SAN=thread, glibc's resolver is known to TSan as racy where
# it is not (t/tsan.supp says why).
if ldd "$MJ_QUEUERUN" 2>/dev/null | grep -q libtsan; then
	export TSAN_OPTIONS="${TSAN_OPTIONS:+$TSAN_OPTIONS:}suppressions=$TOP/t/tsan.supp"
fi

# mjq_setup - a fresh spool, lists directory and mjq.conf for this test:
# $SPOOL, $LISTS, $CONF.  Extra INI text on stdin is appended (it may
# continue [enqueue]).  Mail goes out unsigned ([dkim] sign = no, on top,
# so the file's own lines start at line 3) unless a test turns signing on
# again (t/750-dkim.bats), so the tests need no keys.
mjq_setup() {
	SPOOL=$BATS_TEST_TMPDIR/spool
	LISTS=$BATS_TEST_TMPDIR/lists
	CONF=$BATS_TEST_TMPDIR/mjq.conf
	mkdir -p "$SPOOL/tmp" "$SPOOL/QUEUE" "$LISTS"
	{
		printf '[dkim]\nsign = no\n'
		printf '[spool]\ndir = %s\n[lists]\ndir = %s\n' "$SPOOL" "$LISTS"
		printf '[enqueue]\nstart_server = no\n'
		[ -t 0 ] || cat
	} >"$CONF"
}

# mjq_list DOMAIN LIST [SUBSCRIBER...] - make a list with subscribers.
# Its config starts "posting = $MJQ_LIST_POSTING", open (posts from
# anyone) unless the file sets it: most files are not about who may post.
# A file that tests posting policy sets MJQ_LIST_POSTING= (empty: no
# posting line, the program's default, posting = subscribers) or the
# policy it tests, and adds its own keys with >>.
mjq_list() {
	local d=$1 l=$2
	shift 2
	mkdir -p "$LISTS/$d/$l"
	: >"$LISTS/$d/$l/subscribers"
	for s in "$@"; do
		echo "$s" >>"$LISTS/$d/$l/subscribers"
	done
	if [ -n "${MJQ_LIST_POSTING-open}" ]; then
		printf '[list]\nposting = %s\n' "${MJQ_LIST_POSTING-open}" \
			>"$LISTS/$d/$l/config"
	fi
	list_keys "$d" "$l"
}

# list_keys DOMAIN LIST - $MJQ_LIST_KEYS (key = value lines), when the
# file sets it, into the list's config: files about the DSNs of posts
# set "bounce_judge = no", so the runner makes them (listfn/dsn.c)
# instead of judging the failures itself (listfn/bounce_record.c)
list_keys() {
	[ -n "${MJQ_LIST_KEYS:-}" ] || return 0
	printf '[list]\n%s\n' "$MJQ_LIST_KEYS" >>"$LISTS/$1/$2/config"
}

# list_posting DOMAIN LIST - what mjq_list does for the config of a list
# made without it (subscribers written directly): posting =
# $MJQ_LIST_POSTING (open unless the file sets it; none when empty)
list_posting() {
	list_keys "$1" "$2"
	[ -n "${MJQ_LIST_POSTING-open}" ] || return 0
	printf '[list]\nposting = %s\n' "${MJQ_LIST_POSTING-open}" \
		>>"$LISTS/$1/$2/config"
}

# slow WHY... - the first line of a test that takes long in a file that is
# otherwise quick (a browser session, thousands of connections): make
# check (t/run --fast, which sets MJQ_FAST) skips it, saying why; make
# test runs it.  A file all of whose tests are long is tagged instead
# ("# slow: why" in its opening comment, t/README).
slow() {
	[ -z "${MJQ_FAST:-}" ] || skip "slow: $*"
}

# wait_for SECONDS COMMAND... - poll until COMMAND succeeds; fail after
# SECONDS.  The condition is what is waited on; the poll interval only
# bounds how late we notice it.
wait_for() {
	local limit=$1 i=0
	shift
	while ! "$@"; do
		i=$((i + 1))
		if [ "$i" -gt $((limit * 20)) ]; then
			echo "wait_for: timed out after ${limit}s: $*" >&2
			return 1
		fi
		sleep 0.05
	done
}

# open_path DIR - let other users traverse DIR and the directories above
# it (bats makes its tmp directories 0700), so a daemon that dropped its
# privileges can reach the spool and the configuration
open_path() {
	local d=$1
	while [ "$d" != / ] && [ "$d" != /tmp ]; do
		chmod o+x "$d"
		d=$(dirname "$d")
	done
}

# user_programs - for tests that run the programs as other users: copy
# mj_enqueue, mj_queueserv and mj_queuerun into a directory of this test
# file's own that other users can reach, and point $MJ_ENQUEUE,
# $MJ_QUEUESERV and $MJ_QUEUERUN at the copies.  The checkout may be
# anywhere, for example under a 0700 home directory that no other user
# can traverse; mj_queueserv finds its runner beside itself.
user_programs() {
	local bin=$BATS_FILE_TMPDIR/bin p
	mkdir -p "$bin"
	for p in "$TOP/enqueue/mj_enqueue" "$TOP/queueserv/mj_queueserv" \
		"$TOP/queuerun/mj_queuerun"; do
		install -m 0755 "$p" "$bin/" || return 1
	done
	chmod 0755 "$bin"
	open_path "$bin"
	MJ_ENQUEUE=$bin/mj_enqueue
	MJ_QUEUESERV=$bin/mj_queueserv
	MJ_QUEUERUN=$bin/mj_queuerun
}

# listq_one REGEX - mj_queuerun -l lists exactly one message, on a line
# matching REGEX (printed, for the reader of a failure)
listq_one() {
	local out
	out=$("$MJ_QUEUERUN" -C "$CONF" -l) || return 1
	echo "$out"
	[[ "$(sed -n 1p <<<"$out")" =~ $1 ]] &&
		[ "$(sed -n 2p <<<"$out")" = "1 message" ]
}

# readme_steps - the command lines of the README's Installing section
# ("    # command", continuation lines joined as the shell reads them)
readme_steps() {
	awk '/^Installing$/ { on = 1 }
		on && /^What each step does:/ { exit }
		on && /^    # / { print substr($0, 7); cont = /\\$/; next }
		on && cont && /^      / { sub(/^ +/, "  "); print; cont = /\\$/; next }
		{ cont = 0 }' "$TOP/README"
}

# queue_files - the message files under QUEUE/, one per line, sorted
queue_files() {
	(cd "$SPOOL" && find QUEUE -type f ! -name '.*' | sort)
}

# alive PID - the process exists and is not a zombie ("" is none: its
# /proc//stat would be /proc/stat)
alive() {
	[ -n "$1" ] && [ -r "/proc/$1/stat" ] &&
		! grep -q '^[0-9]* (.*) Z' "/proc/$1/stat" 2>/dev/null
}

# queueserv_answers - a server answers "status" on this test's socket
queueserv_answers() {
	"$MJ_QUEUESERV" -C "$CONF" status >/dev/null 2>&1
}

# queueserv_start [ARG...] - mj_queueserv -f -d on this test's spool, in
# the background; its log is $QS_LOG, its pid $QS_PID.  Returns once it
# answers on its socket.
queueserv_start() {
	QS_LOG=$BATS_TEST_TMPDIR/queueserv.log
	"$MJ_QUEUESERV" -f -d -C "$CONF" "$@" </dev/null >>"$QS_LOG" 2>&1 3>&- &
	QS_PID=$!
	wait_for 10 queueserv_answers
}

# stop_everything [PID...] - teardown of the tests that run a server and
# loose runners: the server stopped, each PID still alive killed, the
# test's SMTP and DNS servers stopped (servers_stop, smtp_helpers.bash)
stop_everything() {
	local p
	queueserv_stop
	for p in "$@"; do
		alive "$p" && kill -KILL "$p" 2>/dev/null
	done
	servers_stop
	return 0
}

# runner_pids - the runners of the server of queueserv_start (programs
# named as $RUNNER, if a test sets it, else mj_queuerun), sorted; none
# when it is not running
runner_pids() {
	[ -n "${QS_PID:-}" ] || return 0
	pgrep -P "$QS_PID" -x "$(basename "${RUNNER:-mj_queuerun}")" | sort
}

# queueserv_stop - stop the server of queueserv_start (SIGTERM, SIGKILL
# after 10 s) and reap it
queueserv_stop() {
	[ -n "${QS_PID:-}" ] || return 0
	if alive "$QS_PID"; then
		kill -TERM "$QS_PID" 2>/dev/null
		wait_for 10 eval "! alive $QS_PID" ||
			kill -KILL "$QS_PID" 2>/dev/null
	fi
	wait "$QS_PID" 2>/dev/null
	QS_PID=
}

# runq - one pass of the runner (mj_queuerun -1), its log appended to
# $RUNLOG (default $BATS_TEST_TMPDIR/run.log), given RUNQ_TIMEOUT
# seconds (default 60) before it counts as hung
runq() {
	timeout "${RUNQ_TIMEOUT:-60}" "$MJ_QUEUERUN" -C "$CONF" -1 \
		2>>"${RUNLOG:-$BATS_TEST_TMPDIR/run.log}"
}

# make_due - every queued message due now
make_due() {
	find "$SPOOL/QUEUE" -type f ! -name '.*' -exec touch -d '1 hour ago' {} +
}

# state_files - the state files under QUEUE/ (full paths), sorted
state_files() {
	find "$SPOOL/QUEUE" -type f -name '.*' ! -name '*.why' | sort
}

# seed_random - seed $RANDOM from MJQ_SEED or a fresh seed, and print it
# (t/620, t/690: MJQ_SEED=N replays a run's random choices)
seed_random() {
	SEED=${MJQ_SEED:-$(od -An -N2 -tu2 /dev/urandom | tr -d ' ')}
	RANDOM=$SEED
	echo "# MJQ_SEED=$SEED" >&3
}

# crash_run STRACE-OPTION... - one runner pass killed by SIGKILL where
# the options say (-P PATH and/or inject=...:when=N); fails unless it
# was killed there
crash_run() {
	ASAN_OPTIONS=detect_leaks=0 run strace -f -qq -o "$BATS_TEST_TMPDIR/crash.trace" \
		"$@" "$MJ_QUEUERUN" -C "$CONF" -1 2>>"$BATS_TEST_TMPDIR/run.log"
	[ "$status" -eq 137 ]
	grep -q 'killed by SIGKILL' "$BATS_TEST_TMPDIR/crash.trace"
}

# crash_at CALL PATH - crash_run killed as it enters CALL (unlink, link,
# rename: with their *at forms; fdatasync) on PATH
crash_at() {
	local calls=$1
	[ "$1" = fdatasync ] || calls=$1,${1}at
	[ "$1" != rename ] || calls=rename,renameat,renameat2
	crash_run -P "$2" -e trace="$calls" -e inject="$calls":signal=SIGKILL
}

# fnv PATH - the 64-bit FNV-1a hash of a file, as the digest's collection
# and the archive's inbox name a post (spool_collect_post)
fnv() {
	python3 -c 'import sys
h = 0xcbf29ce484222325
for b in open(sys.argv[1], "rb").read():
    h = ((h ^ b) * 0x100000001b3) & 0xFFFFFFFFFFFFFFFF
print("%016x" % h)' "$1"
}
