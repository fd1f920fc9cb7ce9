#!/bin/bash
# t/bench/members.sh [N] [PEER_N] - adding addresses in bulk to an empty
# list: mjq-members against Mailman 3's `mailman addmembers` and mlmmj's
# mlmmj-sub in a loop (both from Debian), side by side in one run.
#
# mjq-members adds N addresses (default 1,000,000) and PEER_N (default
# 2,000); the peers add PEER_N, since on a two-core machine Mailman 3
# takes about 60 ms an address (a million would take most of a day) and
# mlmmj-sub is one process per address.  Each run is timed by
# t/tools/mj_measure (fork to reap) with the peak RSS of the process
# tree it started (Mailman's Python, mlmmj-sub's many processes: the
# largest one).  Printed: per side the addresses, wall time, time per
# 1000 addresses and peak RSS; then the ratios of time per address and
# of peak memory, peer over mjq, at PEER_N (the same work) and, for
# time, against mjq's per-address time at N.
#
# Mailman 3 runs as nobody with its own SQLite database and var dir
# under the work directory (no REST server, no runners: addmembers
# writes the database itself), welcome messages off (-W); mlmmj's list
# is made by mlmmj-make-ml, answered non-interactively, and mlmmj-sub
# runs -f -q -s (the silent subscription its help names).  A peer that
# is not installed is left out (sh scripts/deps.sh bench installs
# both).  Needs root (runuser for Mailman).
set -eu
N=${1:-1000000}
PEER_N=${2:-2000}
TOP=$(cd "$(dirname "$0")/../.." && pwd)
MEASURE=$TOP/t/tools/mj_measure
MEMBERS=$TOP/members/mjq-members
DIR=$(mktemp -d /tmp/mjq-bench-members.XXXXXX)
chmod 755 "$DIR"
trap 'rm -rf "$DIR"' EXIT
. "$TOP/scripts/mjq-workdir.sh"
. "$TOP/t/mailman3_helpers.bash"
[ -x "$MEASURE" ] && [ -x "$MEMBERS" ] || make -C "$TOP" -s t/tools/mj_measure members/mjq-members

seq -f 'member%g@example.net' 1 "$N" >"$DIR/in.big"
seq -f 'member%g@example.net' 1 "$PEER_N" >"$DIR/in.peer"
chmod 644 "$DIR/in.big" "$DIR/in.peer"

# field LINE KEY - KEY's number in mj_measure's line
field() {
	sed -n "s/.*$2=\([0-9]*\).*/\1/p" <<<"$1"
}

# report NAME COUNT LINE - one side's row; sets US (wall us) and KB
report() {
	US=$(field "$3" median_us)
	KB=$(field "$3" tree_rss_kb)
	if [ "$(field "$3" failures)" != 0 ]; then
		echo "members.sh: $1 failed" >&2
		exit 1
	fi
	awk -v n="$1" -v c="$2" -v us="$US" -v kb="$KB" 'BEGIN {
		printf "%-22s %9d addresses %9.2f s %9.1f ms/1000 %8d KB peak RSS\n",
		    n, c, us / 1e6, us / 1e3 / c * 1000, kb }'
}

# mjq COUNT FILE - mjq-members adding FILE to a fresh list
mjq() {
	rm -rf "$DIR/mjq"
	mjq_workdir "$DIR/mjq"
	mkdir -p "$DIR/mjq/lists/example.org/bench"
	: >"$DIR/mjq/lists/example.org/bench/subscribers"
	"$MEASURE" -n 1 -i "$2" -- "$MEMBERS" -C "$DIR/mjq/mjq.conf" \
		bench@example.org add
}

out=$(mjq "$N" "$DIR/in.big" | tail -1)
report "mjq-members" "$N" "$out"
MJQ_BIG_US=$US
[ "$(wc -l <"$DIR/mjq/lists/example.org/bench/subscribers")" -eq "$N" ]
out=$(mjq "$PEER_N" "$DIR/in.peer" | tail -1)
report "mjq-members" "$PEER_N" "$out"
MJQ_US=$US MJQ_KB=$KB

# ratios NAME - the peer's figures (US, KB) over mjq's
ratios() {
	awk -v n="$1" -v pu="$US" -v pk="$KB" -v mu="$MJQ_US" -v mk="$MJQ_KB" \
		-v bu="$MJQ_BIG_US" -v N="$N" -v P="$PEER_N" 'BEGIN {
		printf "ratio %s/mjq: time per address %.0fx at %d (%.0fx against mjq at %d), peak RSS %.1fx\n",
		    n, pu / mu, P, (pu / P) / (bu / N), N, pk / mk }'
}

if command -v mailman >/dev/null; then
	mm3_setup "$DIR/mm"
	mm3 create bench@example.org >/dev/null
	out=$("$MEASURE" -n 1 -i "$DIR/in.peer" -- runuser -u nobody -- \
		mailman -C "$DIR/mm/mailman.cfg" addmembers -W - bench@example.org | tail -1)
	report "mailman addmembers" "$PEER_N" "$out"
	n=$(mm3 members bench@example.org | wc -l)
	[ "$n" -eq "$PEER_N" ] || { echo "members.sh: mailman has $n members" >&2; exit 1; }
	ratios mailman
else
	echo "mailman3 is not installed: left out"
fi

if [ -x /usr/bin/mlmmj-sub ]; then
	mkdir -p "$DIR/mlmmj"
	printf 'example.org\nowner@example.org\n\n' |
		/usr/bin/mlmmj-make-ml -L bench -s "$DIR/mlmmj" >/dev/null
	L=$DIR/mlmmj/bench
	out=$("$MEASURE" -n 1 -i "$DIR/in.peer" -- bash -c \
		'while read -r a; do /usr/bin/mlmmj-sub -L "$1" -a "$a" -f -q -s -U || exit 1; done' \
		sub "$L" | tail -1)
	report "mlmmj-sub loop" "$PEER_N" "$out"
	n=$(cat "$L"/subscribers.d/* | wc -l)
	[ "$n" -eq "$PEER_N" ] || { echo "members.sh: mlmmj has $n subscribers" >&2; exit 1; }
	ratios mlmmj
else
	echo "mlmmj is not installed: left out"
fi
