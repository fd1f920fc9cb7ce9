#!/bin/bash
# t/bench/walk_rss.sh [N...] - peak RSS of one runner (mj_queuerun -1)
# over a backlog of N queued posts (default 10,000, 100,000 and 200,000),
# side by side with the runner in $QR_OLD when it is set (e.g. the
# build of an older commit).
#
# The backlog is written by t/tools/mj_fillqueue; its list's directory is
# missing, so every claim ends at once (deferred, untouched: issue 20)
# and what is measured is the walk and the claims, not delivery.  Each
# runner gets $SECS seconds (default 20: several walks at 200,000), then
# SIGTERM; the peak RSS is GNU time's %M (the largest resident set of
# the runner, in kB).
set -eu
TOP=$(cd "$(dirname "$0")/../.." && pwd)
QR=${QR:-$TOP/queuerun/mj_queuerun}
QR_OLD=${QR_OLD:-}
SECS=${SECS:-20}
DIR=$(mktemp -d /tmp/mjq-walkrss.XXXXXX)
trap 'rm -rf "$DIR"' EXIT
[ $# -gt 0 ] || set -- 10000 100000 200000

# peak RUNNER - the runner's peak RSS in kB over the backlog
peak() {
	/usr/bin/time -f '%M' -o "$DIR/time" \
		timeout -s TERM "$SECS" "$1" -C "$DIR/conf" -1 2>/dev/null || true
	tail -1 "$DIR/time"
}

printf '%10s %14s %14s\n' queued "peak RSS kB" "old peak kB"
for n in "$@"; do
	rm -rf "$DIR/spool"
	mkdir -p "$DIR/spool/tmp" "$DIR/lists/ex.org"
	printf '[spool]\ndir = %s\n[lists]\ndir = %s\n' "$DIR/spool" \
		"$DIR/lists" >"$DIR/conf"
	"$TOP/t/tools/mj_fillqueue" "$DIR/spool" ex.org l "$n"
	new=$(peak "$QR")
	old=-
	if [ -n "$QR_OLD" ]; then
		# the same backlog, due again
		find "$DIR/spool/QUEUE" -type f ! -name '.*' \
			-exec touch -d '1 hour ago' {} +
		old=$(peak "$QR_OLD")
	fi
	printf '%10d %14s %14s\n' "$n" "$new" "$old"
done
