#!/bin/sh
# deps-graph.sh - the include graph between the source folders, and a
# check that every arrow points down the layers:
#
#   programs (enqueue/ queueserv/ schedsim/ stsfetch/ unsubscribe/
#   archsearch/ t/)
#     -> queuerun/ -> listfn/ deliver/ queuectl/ archive/
#     -> sched/ smtp/ lists/ cluster/
#     -> spool-layout/
#     -> common/
#
# A quoted #include "x.h" in a .c or .h file is an arrow from the file's
# folder to the folder that holds x.h (its own folder first).  An arrow
# to a folder of the same or a higher layer (lists/ including a queuerun/
# header, sched/ including smtp.h, common/ including spool-layout/) is
# printed with its file and line, and the exit status is 1.
# System headers (<...>) and headers no folder holds are not arrows.
# A library with a public header named after its folder (sched.h,
# smtp.h, lists.h, cluster.h, listfn.h, deliver.h, queuectl.h, archive.h) is entered only through it: an
# include of another of its headers from outside is printed too, and
# fails the check.
#
# Usage: dev/deps-graph.sh [top]   (default: the checkout)
top=${1:-$(dirname "$0")/..}
cd "$top" || exit 2
layer() {
	case $1 in
	common) echo 5 ;;
	spool-layout) echo 4 ;;
	sched | smtp | lists | cluster) echo 3 ;;
	listfn | deliver | queuectl | archive) echo 2 ;;
	queuerun) echo 1 ;;
	*) echo 0 ;; # programs and tests
	esac
}
dirs=""
for d in enqueue members queueserv stsfetch unsubscribe archsearch web queuerun listfn deliver queuectl archive schedsim sched smtp lists cluster \
    spool-layout common t/tools t/tools/testsmtpd t/fuzz; do
	[ -d "$d" ] && dirs="$dirs $d"
done
# Which folder holds each header: "name folder" lines.
map=$(for d in $dirs; do
	for h in "$d"/*.h; do
		[ -f "$h" ] && echo "${h##*/} ${d%%/*}"
	done
done)
for d in $dirs; do
	for f in "$d"/*.c "$d"/*.h; do
		[ -f "$f" ] || continue
		grep -n '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' "$f" |
		    sed 's/^\([0-9]*\):.*"\([^"]*\)".*/\1 \2/' |
		    while read -r line inc; do
			name=${inc##*/}
			from=${d%%/*}
			if [ -f "$d/$inc" ] || [ -f "$(dirname "$f")/$inc" ]; then
				to=$from
			else
				to=$(echo "$map" | awk -v n="$name" \
				    '$1 == n {print $2; exit}')
			fi
			[ -n "$to" ] && echo "$from $to $f:$line $inc"
		done
	done
done >"${TMPDIR:-/tmp}/deps-graph.$$"
edges="${TMPDIR:-/tmp}/deps-graph.$$"
trap 'rm -f "$edges"' EXIT
echo "include graph (folder -> folder(include lines)):"
awk '$1 != $2 {n[$1 " " $2]++} END {for (k in n) print k, n[k]}' "$edges" |
    sort | awk '{
	if ($1 != last) { if (last != "") print line; line = "  " $1 " ->"; last = $1 }
	line = line " " $2 "(" $3 ")"
    } END { if (last != "") print line }'
bad=0
while read -r from to where inc; do
	[ "$from" = "$to" ] && continue
	if [ "$(layer "$to")" -le "$(layer "$from")" ]; then
		echo "upward include: $where: $from/ includes $to/$inc"
		bad=1
	fi
	case $to in
	sched | smtp | lists | cluster | listfn | deliver | queuectl | archive)
		if [ "${inc##*/}" != "$to.h" ]; then
			echo "private header: $where: $from/ includes $to/$inc," \
			    "not $to.h"
			bad=1
		fi
		;;
	esac
done <"$edges"
if [ $bad -eq 0 ]; then
	echo "layers: programs -> queuerun/ -> listfn/ deliver/ queuectl/ -> sched/ smtp/" \
	    "lists/ -> spool-layout/ -> common/: every arrow points down," \
	    "each library entered through its public header"
fi
exit $bad
