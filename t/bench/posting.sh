#!/bin/bash
# t/bench/posting.sh [N] [POSTS] - what the posting policy costs a runner
# for a list of N subscribers (default 1,000,000): one runner pass
# (mj_queuerun -1) over POSTS posts (default 5) of each kind, side by
# side with the runner in $QR_OLD when it is set (e.g. the build of an
# older commit).
#
#   nonmember  default policy (posting = subscribers), From and envelope
#              sender differ and neither is subscribed: held
#   member     default policy, from the file's last subscriber: delivered
#   moderated  posting = moderated: held without reading the list
#   open       posting = open: delivered
#
# Delivered posts go to 20 domains routed to a closed port, so the pass
# expands them and defers every recipient.  Figures per pass: the CPU
# time of the runner's main thread (the one that dispatches and collects
# deliveries), read at exit by a small LD_PRELOAD library built here,
# and the peak RSS of the runner (mj_measure's max_rss_kb).
set -eu
TOP=$(cd "$(dirname "$0")/../.." && pwd)
QR=${QR:-$TOP/queuerun/mj_queuerun}
QR_OLD=${QR_OLD:-}
N=${1:-1000000}
POSTS=${2:-5}
DIR=$(mktemp -d /tmp/mjq-posting.XXXXXX)
trap 'rm -rf "$DIR"' EXIT

cat >"$DIR/mainclock.c" <<'EOF'
#include <stdio.h>
#include <time.h>
/* at exit, on the thread that exits (the runner's main thread) */
__attribute__((destructor)) static void
mainclock_end(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	fprintf(stderr, "main_cpu_ms=%.1f\n", ts.tv_sec * 1e3 + ts.tv_nsec / 1e6);
}
EOF
cc -O2 -shared -fPIC -o "$DIR/mainclock.so" "$DIR/mainclock.c"

# setup KIND - a fresh spool, the list as KIND wants it, POSTS posts
setup() {
	local from env i
	rm -rf "$DIR/spool" "$DIR/lists"
	mkdir -p "$DIR/spool/tmp" "$DIR/lists/ex.org/l"
	{
		printf '[dkim]\nsign = no\n[enqueue]\nstart_server = no\n'
		printf '[spool]\ndir = %s\n[lists]\ndir = %s\n' "$DIR/spool" "$DIR/lists"
		printf '[delivery]\nmessage_recipient_limit = 2000\nrecipient_limit = 2000\n'
		printf '[transport_map]\nusers.test = discard:\n'
		for d in $(seq 0 19); do
			printf 'd%d.test = smtp:[127.0.0.1]:9\n' "$d"
		done
	} >"$DIR/conf"
	awk -v n="$N" 'BEGIN { for (i = 1; i <= n; i++) printf "u%d@d%d.test\n", i, i % 20 }' \
		>"$DIR/lists/ex.org/l/subscribers"
	printf '[list]\nowners = boss@users.test\n' >"$DIR/lists/ex.org/l/config"
	case $1 in
	moderated | open) printf 'posting = %s\n' "$1" >>"$DIR/lists/ex.org/l/config" ;;
	esac
	from=spam@users.test env=bounce@spam.test
	if [ "$1" = member ]; then
		from=u$N@d$((N % 20)).test env=$from
	fi
	for i in $(seq 1 "$POSTS"); do
		printf 'From: <%s>\nSubject: p%d\nMessage-Id: <%d.%d@users.test>\n\nhello\n' \
			"$from" "$i" "$i" "$$" |
			"$TOP/enqueue/mj_enqueue" -C "$DIR/conf" -d ex.org -l l -r -f "$env"
	done
}

# pass KIND RUNNER - "CPU_MS RSS_KB" of one pass of RUNNER; fails unless
# the posts were held or not as KIND says
pass() {
	local held want=0
	# (a runner built with make SAN=1 would refuse a library preloaded
	# before ASan's runtime)
	"$TOP/t/tools/mj_measure" -n 1 -i /dev/null -- \
		env LD_PRELOAD="$DIR/mainclock.so" \
		ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0" \
		"$2" -C "$DIR/conf" -1 2>"$DIR/log" >"$DIR/out"
	held=$(find "$DIR/spool/HOLD" -type f ! -name '.*' 2>/dev/null | wc -l)
	case $1 in
	nonmember | moderated) want=$POSTS ;;
	esac
	[ "$held" -eq "$want" ] || {
		echo "$1: $held post(s) held, not $want" >&2
		return 1
	}
	printf '%s %s\n' "$(sed -n 's/^main_cpu_ms=//p' "$DIR/log")" \
		"$(sed -n 's/.*max_rss_kb=\([0-9]*\).*/\1/p' "$DIR/out")"
}

echo "$N subscribers, $POSTS post(s) a pass; main-thread CPU ms, peak RSS kB"
printf '%10s %10s %10s %10s %10s\n' kind cpu_ms rss_kb old_cpu_ms old_rss_kb
for kind in nonmember member moderated open; do
	setup "$kind"
	pass "$kind" "$QR" >"$DIR/new"
	read -r cpu rss <"$DIR/new"
	ocpu=- orss=-
	if [ -n "$QR_OLD" ]; then
		setup "$kind"
		pass "$kind" "$QR_OLD" >"$DIR/old"
		read -r ocpu orss <"$DIR/old"
	fi
	printf '%10s %10s %10s %10s %10s\n' "$kind" "$cpu" "$rss" "$ocpu" "$orss"
done
