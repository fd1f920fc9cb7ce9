#!/bin/bash
# t/bench/archive.sh [N] - the web archive side by side with MHonArc in
# one run, on the same generated mbox of N posts (default 100000;
# t/bench/archive_mbox.py: threads, sizes, charsets, HTML-only posts,
# attachments): mj_archive import against mhonarc -add (its pages from
# the mbox), each timed with /usr/bin/time; then adding one post to the
# imported archive (CPU of mj_archive run), and an FTS5 query on its
# index.  Prints seconds, posts per second, files and bytes on disk of
# each, and the ratio.  Needs python3, sqlite3, mhonarc (dev/deps.sh
# bench).
set -eu
N=${1:-100000}
TOP=$(cd "$(dirname "$0")/../.." && pwd)
ARC=$TOP/archive/mj_archive
DIR=$(mktemp -d /tmp/mjq-archive-bench.XXXXXX)
trap 'rm -rf "$DIR"' EXIT
command -v mhonarc >/dev/null || {
	echo "archive.sh: needs mhonarc" >&2
	exit 77
}
python3 "$TOP/t/bench/archive_mbox.py" "$N" 1 >"$DIR/posts.mbox"
mkdir -p "$DIR/spool/tmp" "$DIR/lists/example.org/list"
: >"$DIR/lists/example.org/list/subscribers"
printf '[list]\narchive_web = yes\narchive_url = https://arch.example.org/$LIST/\n' \
	>"$DIR/lists/example.org/list/config"
printf '[spool]\ndir = %s/spool\n[lists]\ndir = %s/lists\n[archive]\ndir = %s/arch\npublic_dir = %s/www\n' \
	"$DIR" "$DIR" "$DIR" "$DIR" >"$DIR/mjq.conf"
echo "archive.sh: $N posts, $(du -m "$DIR/posts.mbox" | cut -f1) MB of mbox"

# measure NAME CMD... - elapsed, user+sys seconds and peak RSS of CMD
measure() {
	local name=$1
	shift
	/usr/bin/time -f '%e %U %S %M' -o "$DIR/$name.time" "$@" >/dev/null 2>"$DIR/$name.err"
	read -r e u s m <"$DIR/$name.time"
	echo "$name $e $(echo "$u + $s" | bc) $m"
}
read -r _ me mc mm < <(measure mjq "$ARC" -C "$DIR/mjq.conf" import example.org list "$DIR/posts.mbox")
mkdir "$DIR/mhonarc"
read -r _ he hc hm < <(measure mhonarc mhonarc -quiet -outdir "$DIR/mhonarc" "$DIR/posts.mbox")
mfiles=$(find "$DIR/www" -type f | wc -l)
mbytes=$(du -sb "$DIR/www" "$DIR/arch" | awk '{ s += $1 } END { print s }')
hfiles=$(find "$DIR/mhonarc" -type f | wc -l)
hbytes=$(du -sb "$DIR/mhonarc" | cut -f1)
printf '%-8s %9s %9s %10s %8s %12s %8s\n' "" elapsed cpu posts/s files bytes rss_kb
printf '%-8s %9s %9s %10.0f %8s %12s %8s\n' mjq "$me" "$mc" "$(echo "$N / $me" | bc -l)" "$mfiles" "$mbytes" "$mm"
printf '%-8s %9s %9s %10.0f %8s %12s %8s\n' mhonarc "$he" "$hc" "$(echo "$N / $he" | bc -l)" "$hfiles" "$hbytes" "$hm"
printf 'import: mjq is %.1fx faster than MHonArc (elapsed)\n' "$(echo "$he / $me" | bc -l)"
# one more post into the archive of N: its CPU
mkdir -p "$DIR/spool/state/archive/example.org/list/posts"
printf 'From: One <one@bench.test>\nSubject: Re: one more\nMessage-ID: <one@bench.test>\nReferences: <b%s.0@bench.test>\n\nthe one more post\n' \
	"$((N / 2))" >"$DIR/spool/state/archive/example.org/list/posts/10-10-0000000000000001-AAA-1-list"
read -r _ oe oc om < <(measure one "$ARC" -C "$DIR/mjq.conf" run example.org list)
printf 'one post added to %s: %s s elapsed, %s s CPU, %s KB peak RSS\n' "$N" "$oe" "$oc" "$om"
# a search on the index
printf '.timer on\nSELECT count(*) FROM (SELECT rowid FROM fts WHERE fts MATCH %s LIMIT 50);\n' \
	"'scheduler AND review'" | sqlite3 "$DIR/arch/example.org/list/archive.sqlite" | sed 's/^/search: /'
