#!/usr/bin/env bats
# The source layout: includes point only down the layers (programs ->
# queuerun/ -> deliver/ queuectl/ -> sched/ smtp/ lists/ -> spool-layout/
# -> common/), a library is entered through its public header, and the
# files of queuerun/, queueserv/, smtp/, lists/, spool-layout/, deliver/
# and queuectl/ call each other without a ring (dev/deps-graph.sh,
# dev/callgraph.sh; `make deps-graph` prints both and fails on either).
# slow: builds the tree again for the call-graph and layer checks

TOP="$BATS_TEST_DIRNAME/.."
bats_require_minimum_version 1.5.0

# fake_tree - a minimal tree with one header per layer, in $T
fake_tree() {
	T="$BATS_TEST_TMPDIR/tree"
	mkdir -p "$T"/common "$T"/spool-layout "$T"/lists "$T"/queuerun
	echo '#include <stdio.h>' >"$T/common/log.h"
	echo '#include "log.h"' >"$T/spool-layout/spool_path.h"
	echo '#include "spool_path.h"' >"$T/lists/listconf.h"
	echo '#include "listconf.h"' >"$T/lists/lists.h"
	echo '#include "lists.h"' >"$T/queuerun/walk.h"
}

@test "the tree's includes point only down the layers" {
	run sh "$TOP/dev/deps-graph.sh" "$TOP"
	[ "$status" -eq 0 ]
	[[ "$output" == *"every arrow points down"* ]]
	[[ "$output" == *"queuerun -> "*"spool-layout"* ]]
	[[ "$output" != *"upward include"* ]]
}

@test "a downward tree passes the include check" {
	fake_tree
	run sh "$TOP/dev/deps-graph.sh" "$T"
	[ "$status" -eq 0 ]
	[[ "$output" == *"lists -> spool-layout(1)"* ]]
	[[ "$output" == *"each library entered through its public header"* ]]
}

@test "lists/ including a queuerun/ header fails the include check" {
	fake_tree
	printf '#include "walk.h"\n' >"$T/lists/addr_set.c"
	run sh "$TOP/dev/deps-graph.sh" "$T"
	[ "$status" -eq 1 ]
	[[ "$output" == *"upward include: lists/addr_set.c:1: lists/ includes queuerun/walk.h"* ]]
}

@test "another part including a library's private header fails the include check" {
	fake_tree
	printf '#include "listconf.h"\n' >"$T/queuerun/walk.c"
	run sh "$TOP/dev/deps-graph.sh" "$T"
	[ "$status" -eq 1 ]
	[[ "$output" == *"private header: queuerun/walk.c:1: queuerun/ includes lists/listconf.h, not lists.h"* ]]
	[[ "$output" != *"every arrow points down"* ]]
}

@test "common/ including a spool-layout/ header fails the include check" {
	fake_tree
	printf '#include <string.h>\n#include "spool_path.h"\n' >"$T/common/io.c"
	run sh "$TOP/dev/deps-graph.sh" "$T"
	[ "$status" -eq 1 ]
	[[ "$output" == *"upward include: common/io.c:2: common/ includes spool-layout/spool_path.h"* ]]
}

@test "sideways between libraries fails the include check" {
	fake_tree
	mkdir -p "$T/sched"
	printf '#include "listconf.h"\n' >"$T/sched/sched_core.c"
	run sh "$TOP/dev/deps-graph.sh" "$T"
	[ "$status" -eq 1 ]
	[[ "$output" == *"upward include: sched/sched_core.c:1: sched/ includes lists/listconf.h"* ]]
}

# no_ring DIR FILE CALLEE - DIR's files call each other without a ring,
# and the graph has FILE calling CALLEE, so it was made from objects
no_ring() {
	[ -f "$TOP/queuerun/queuerun.o" ] || skip "not built"
	run sh "$TOP/dev/callgraph.sh" "$TOP/$1"
	[ "$status" -eq 0 ]
	[ "${lines[-1]}" = "no cycles" ]
	[[ " $(callees "$2") " == *" $3 "* ]]
}

# callees FILE - the files FILE calls, from the graph in $output
callees() {
	printf '%s\n' "$output" | sed -n "s/^$1 -> //p"
}

# ring_objects - two objects that call each other, in $d
ring_objects() {
	d="$BATS_TEST_TMPDIR/ring"
	mkdir -p "$d"
	printf 'void b(void);\nvoid a(void);\nvoid a(void) { b(); }\n' >"$d/a.c"
	printf 'void a(void);\nvoid b(void);\nvoid b(void) { a(); }\n' >"$d/b.c"
	cc -c -o "$d/a.o" "$d/a.c"
	cc -c -o "$d/b.o" "$d/b.c"
}

@test "the runner's files call each other without a ring" {
	no_ring queuerun queuerun walk
}

@test "queueserv/ calls one way, down from the poll loop" {
	no_ring queueserv mj_queueserv queueserv_control
	[[ " $(callees queueserv_pool) " == *" queueserv_runner "* ]]
	[ -z "$(callees queueserv_runner)" ]
	[ -z "$(callees queueserv_listen)" ]
	[[ " $(callees queueserv_control) " != *" mj_queueserv "* ]]
}

@test "smtp/: TLS calls the session, the session calls no TLS function" {
	no_ring smtp smtp_tls smtp_session
	[[ " $(callees smtp_session) " != *" smtp_tls "* ]]
}

@test "lists/ files call each other without a ring" {
	no_ring lists dkim_sign dkim_copy
	[[ " $(callees dkim_copy) " != *" dkim_sign "* ]]
	[[ " $(callees listconf) " != *" posting "* ]]
}

@test "spool-layout/ files call each other without a ring" {
	no_ring spool-layout spool_state spool_state_read
	[[ " $(callees spool_state_read) " != *" spool_state "* ]]
}

@test "the call-graph check finds a ring" {
	ring_objects
	run sh "$TOP/dev/callgraph.sh" "$d"
	[ "$status" -eq 1 ]
	[[ "$output" == *"a -> b"* ]]
	[[ "$output" == *"loop"* ]]
}

@test "make deps-graph checks each folder's calls and fails on a ring" {
	[ -f "$TOP/queuerun/queuerun.o" ] || skip "not built"
	run make -s -C "$TOP" deps-graph
	[ "$status" -eq 0 ]
	for f in queuerun queueserv smtp lists spool-layout; do
		[[ "$output" == *"$f/ call graph"* ]]
	done
	[[ "$output" != *"loop"* ]]
	ring_objects
	run make -s -C "$TOP" deps-graph CALLGRAPH_DIRS="$d queueserv"
	[ "$status" -ne 0 ]
	[[ "$output" == *"loop"* ]]
	[[ "$output" == *"queueserv/ call graph"* ]]
}

@test "the format check names a file that differs from .clang-format, and passes one that does not" {
	command -v clang-format >/dev/null || skip "no clang-format"
	d="$BATS_TEST_TMPDIR"
	printf 'int\nf(void)\n{\n\treturn 0;\n}\n' >"$d/good.c"
	printf 'int f(void) {  return 0; }\n' >"$d/bad.c"
	cp "$TOP/.clang-format" "$d/"
	run sh "$TOP/t/check-format" "$d/good.c"
	[ "$status" -eq 0 ]
	[ -z "$output" ]
	run sh "$TOP/t/check-format" "$d/good.c" "$d/bad.c"
	[ "$status" -eq 1 ]
	[ "$output" = "check-format: $d/bad.c differs from .clang-format (clang-format -i $d/bad.c)" ]
}

# sections FILE - the sections of mjq.conf a settings table file holds
sections() {
	sed -nE 's/^ *SETTINGS_TABLE\("([a-z_]+)",.*/\1/p' "$1" | tr '\n' ' '
}

@test "common/ keeps only the shared sections of mjq.conf; the list sections live in lists/, [cluster] in cluster/" {
	[ "$(sections "$TOP/common/settings.c")" = "spool lists enqueue queueserv queuerun " ]
	[ "$(sections "$TOP/lists/lists_settings.c")" = "request dkim arc dmarc unsubscribe tlsrpt " ]
	[ "$(sections "$TOP/cluster/cluster_settings.c")" = "cluster " ]
	# and struct settings has no field of theirs
	run -1 grep -nE '^[[:space:]]+[a-z ]+ (dkim|arc|dmarc|unsubscribe|request|tlsrpt|cluster)_[a-z_0-9]+(\[|;)' \
		"$TOP/common/settings.h"
	# the pattern does find such a field (a broken one must not pass)
	run -0 grep -cE '^[[:space:]]+[a-z ]+ (dkim|arc|dmarc|unsubscribe|request|tlsrpt|cluster)_[a-z_0-9]+(\[|;)' \
		"$TOP/lists/lists_settings.h" "$TOP/cluster/cluster_settings.h"
	# the [cluster] table calls nothing (no hiredis, no libcluster):
	# mj_enqueue links its object alone, and of libcluster only it
	[ -z "$(nm -u "$TOP/cluster/cluster_settings.o")" ]
	[ "$(nm "$TOP/enqueue/mj_enqueue" | grep -ci redis)" -eq 0 ]
	nm "$TOP/enqueue/mj_enqueue" | grep -q ' T cluster_settings_part$'
}
