#!/bin/bash
# t/bench/archive_search.sh [N] [R] - the archive's search at N posts
# (default 1000000), through the search CGI as a web server runs it.
# The index: t/bench/archive_mbox.py makes N/10 posts (threads, sizes,
# charsets as archive.sh), streamed ten times into mj_archive -n import
# (index only: the pages stay marked for a later run) with each copy's
# Message-IDs, References and addresses made its own, so N distinct
# posts.  Then each query below through archsearch/mj_archsearch
# (QUERY_STRING, the rate file, the read-only index, the page of 50
# results with snippets), R times (default 5) under t/tools/mj_measure:
# the wall time of the whole process (fork to reap), median and worst,
# what the reader waits for, its median CPU, and
# the results shown, beside a process that does nothing (the machine's
# own cost of a process) and a request for a list with no archive (a
# search's fixed cost: the process, mjq.conf, the rate file; no index).
# Prints the import's time and peak RSS and the index's bytes too, and
# the load average before and after the queries.  Needs python3.
#
# MJQ_BENCH_DIR=DIR keeps the index in DIR (made there when DIR has
# none, used as it is when it has one: the import takes tens of minutes
# at a million).  MJQ_BENCH_PEER=PROGRAM runs each query through that
# mj_archsearch too (another build, e.g. main's) in the same run, just
# before this one's, and prints its figures and the ratio of the medians.
set -eu
N=${1:-1000000}
R=${2:-5}
TOP=$(cd "$(dirname "$0")/../.." && pwd)
ARC=$TOP/archive/mj_archive
CGI=$TOP/archsearch/mj_archsearch
PEER=${MJQ_BENCH_PEER:-}
MEASURE=$TOP/t/tools/mj_measure
if [ -n "${MJQ_BENCH_DIR:-}" ]; then
	DIR=$MJQ_BENCH_DIR
	mkdir -p "$DIR"
else
	DIR=$(mktemp -d "${TMPDIR:-/tmp}/mjq-archsearch-bench.XXXXXX")
	trap 'rm -rf "$DIR"' EXIT
fi
mkdir -p "$DIR/spool/tmp" "$DIR/lists/example.org/list"
: >"$DIR/lists/example.org/list/subscribers"
printf '[list]\narchive_web = yes\narchive_url = https://arch.example.org/$LIST/\n' \
	>"$DIR/lists/example.org/list/config"
printf '[spool]\ndir = %s/spool\n[lists]\ndir = %s/lists\n[archive]\ndir = %s/arch\npublic_dir = %s/www\nsearch_requests_per_minute = 1000000\nsearch_address_requests_per_minute = 1000000\n' \
	"$DIR" "$DIR" "$DIR" "$DIR" >"$DIR/mjq.conf"
part=$(((N + 9) / 10))
echo "archive_search.sh: $N posts (10 x $part), $R runs a query"
# copies: each copy's ids and addresses its own ("x@bench.test>" ->
# "x.cK@bench.test>"), the last copy cut at N
copies() {
	local k
	for k in 0 1 2 3 4 5 6 7 8 9; do
		sed "s/@bench\.test>/.c$k@bench.test>/g" "$DIR/part.mbox"
	done | awk -v n="$N" '/^From / && ++seen > n { exit } { print }'
}

# index - the index made by an index-only import of N posts
index() {
	local ie iu is im
	python3 "$TOP/t/bench/archive_mbox.py" "$part" 1 >"$DIR/part.mbox"
	copies | /usr/bin/time -f '%e %U %S %M' -o "$DIR/import.time" \
		"$ARC" -C "$DIR/mjq.conf" -n import example.org list /dev/stdin >"$DIR/import.out"
	read -r ie iu is im <"$DIR/import.time"
	printf 'index-only import: %s posts, %s s elapsed, %s s CPU, %s KB peak RSS, %s bytes of index\n' \
		"$(grep -o '[0-9]* posts' "$DIR/import.out" | cut -d' ' -f1)" "$ie" \
		"$(echo "$iu + $is" | bc)" "$im" \
		"$(du -sb "$DIR/arch" | cut -f1)"
	rm -f "$DIR/part.mbox"
}

if [ -e "$DIR/arch/example.org/list/archive.sqlite" ]; then
	printf 'the index in %s: %s posts, %s bytes (kept from an earlier run)\n' \
		"$DIR" "$(sqlite3 -readonly "$DIR/arch/example.org/list/archive.sqlite" \
			'SELECT count(*) FROM msg')" "$(du -sb "$DIR/arch" | cut -f1)"
else
	index
fi
echo "load before the queries: $(cut -d' ' -f1-3 /proc/loadavg)"

# run PROGRAM QUERY-STRING - R runs of a CGI under t/tools/mj_measure
# (fork to reap), its last page in $DIR/q.out; mj_measure's line
run() {
	"$MEASURE" -n "$R" -i /dev/null -o "$DIR/q.out" -- env -i \
		REQUEST_METHOD=GET REMOTE_ADDR=192.0.2.1 MJQ_CONF="$DIR/mjq.conf" \
		QUERY_STRING="$2" "$1"
}

# query NAME QUERY-STRING [STATUS LIST] - the query through the CGI (the
# peer's first, when there is one): median and worst wall ms, median
# CPU ms, the results shown; the page must begin with Content-Type, or
# be Status: STATUS when given (LIST instead of the list)
query() {
	local name=$1 qs="l=${4:-list}@example.org&$2" want=${3:-} line peer= shown order
	[ -z "$PEER" ] || peer=$(run "$PEER" "$qs")
	line=$(run "$CGI" "$qs")
	if [ -n "$want" ]; then
		grep -q "^Status: $want" "$DIR/q.out"
	else
		grep -q '^Content-Type: text/html' "$DIR/q.out"
	fi || {
		echo "archive_search.sh: $name: not the page expected" >&2
		head -5 "$DIR/q.out" >&2
		exit 1
	}
	shown=$(grep -c '^<li><a href=' "$DIR/q.out" || true)
	order=ranked
	grep -q 'The latest first' "$DIR/q.out" && order=latest
	awk -v name="$name" -v shown="$shown" -v order="$order" -v line="$line" \
	    -v peer="$peer" '
	function get(s, v,   n, f, i) {
		n = split(s, f, /[ =]/)
		for (i = 1; i < n; i += 2)
			v[f[i]] = f[i + 1]
	}
	BEGIN {
		get(line, v)
		printf "search %-10s median %6.1f ms  worst %6.1f ms  cpu %5.1f ms  %2d shown (%s)",
		    name, v["median_us"] / 1000, v["max_us"] / 1000,
		    v["median_cpu_us"] / 1000, shown, order
		if (peer != "") {
			get(peer, p)
			printf "  peer: median %6.1f ms  cpu %5.1f ms  ratio %.2f",
			    p["median_us"] / 1000, p["median_cpu_us"] / 1000,
			    v["median_us"] / p["median_us"]
		}
		printf "\n"
	}'
}
# the machine: a process that does nothing, measured the same way
"$MEASURE" -n "$R" -i /dev/null -- /bin/true |
	awk '{ split($0, f, /[ =]/); for (i = 1; i < length(f); i += 2) v[f[i]] = f[i + 1]
	printf "search (true)      median %6.1f ms  worst %6.1f ms  (a process that does nothing)\n",
	    v["median_us"] / 1000, v["max_us"] / 1000 }'
query word 'q=scheduler'
query words 'q=scheduler+review'
query phrase 'q=%22patch+review%22'
query from 'q=from%3Auser42'
query subject 'q=subject%3Arelease'
query dates 'q=after%3A2024-03-01+before%3A2024-04-01'
query word+dates 'q=bounce+after%3A2024-03-01+before%3A2024-03-08'
query rare 'q=from%3Auser42+subject%3Astra%C3%9Fe'
query none 'q=zyzzyva'
query page20 'q=scheduler&o=1000'
query '(no list)' 'q=scheduler' 404 none
echo "load after the queries: $(cut -d' ' -f1-3 /proc/loadavg)"
