# t/helpers.bash - what every test file loads: paths to the programs, a
# private spool and configuration per test, and waiting on conditions.

TOP=$(cd "$BATS_TEST_DIRNAME/.." && pwd)
MJ_ENQUEUE=$TOP/enqueue/mj_enqueue
MJ_QUEUESERV=$TOP/queueserv/mj_queueserv
MJ_QUEUERUN=$TOP/queuerun/mj_queuerun
MJ_SCHEDSIM=$TOP/schedsim/mj_schedsim
MJ_TESTSMTPD=$TOP/t/tools/mj_testsmtpd

# mjq_setup - a fresh spool, lists directory and mjq.conf for this test:
# $SPOOL, $LISTS, $CONF.  Extra INI text on stdin is appended.
mjq_setup() {
	SPOOL=$BATS_TEST_TMPDIR/spool
	LISTS=$BATS_TEST_TMPDIR/lists
	CONF=$BATS_TEST_TMPDIR/mjq.conf
	mkdir -p "$SPOOL/tmp" "$SPOOL/QUEUE" "$LISTS"
	{
		printf '[spool]\ndir = %s\n[lists]\ndir = %s\n' "$SPOOL" "$LISTS"
		printf '[enqueue]\nstart_server = no\n'
		[ -t 0 ] || cat
	} >"$CONF"
}

# mjq_list DOMAIN LIST [SUBSCRIBER...] - make a list with subscribers
mjq_list() {
	local d=$1 l=$2
	shift 2
	mkdir -p "$LISTS/$d/$l"
	: >"$LISTS/$d/$l/subscribers"
	for s in "$@"; do
		echo "$s" >>"$LISTS/$d/$l/subscribers"
	done
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

# queue_files - the message files under QUEUE/, one per line, sorted
queue_files() {
	(cd "$SPOOL" && find QUEUE -type f ! -name '.*' | sort)
}
