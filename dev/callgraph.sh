#!/bin/sh
# callgraph.sh - the file-level call graph of a folder's objects, from nm:
# an edge a -> b when a.o uses a symbol that b.o defines; then a cycle
# check (tsort).  Usage: dev/callgraph.sh [folder] (default queuerun)
# Exits 1 when the graph has a cycle.
dir=${1:-queuerun}
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
for o in "$dir"/*.o; do
	f=$(basename "$o" .o)
	nm -g --defined-only "$o" | awk -v f="$f" 'NF==3 && $2 ~ /[TDBR]/ {print $3, f}'
done | sort >"$tmp/def"
for o in "$dir"/*.o; do
	f=$(basename "$o" .o)
	nm -u "$o" | awk -v f="$f" '{print $NF, f}'
done | sort >"$tmp/use"
join "$tmp/use" "$tmp/def" | awk '$2 != $3 {print $2, $3}' | sort -u >"$tmp/edges"
awk '{a[$1] = a[$1] " " $2} END {for (k in a) print k " ->" a[k]}' \
    "$tmp/edges" | sort
if tsort "$tmp/edges" >/dev/null 2>"$tmp/err"; then
	echo "no cycles"
else
	cat "$tmp/err"
	exit 1
fi
