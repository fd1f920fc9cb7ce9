#!/usr/bin/env bats
# The source layout: includes point only down the layers (programs ->
# queuerun/ -> deliver/ queuectl/ -> sched/ smtp/ lists/ -> spool-layout/
# -> common/), a library is entered through its public header, and the
# runner's files call each other without a ring (scripts/deps-graph.sh,
# scripts/callgraph.sh; `make deps-graph` prints both).

TOP="$BATS_TEST_DIRNAME/.."

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
	run sh "$TOP/scripts/deps-graph.sh" "$TOP"
	[ "$status" -eq 0 ]
	[[ "$output" == *"every arrow points down"* ]]
	[[ "$output" == *"queuerun -> "*"spool-layout"* ]]
	[[ "$output" != *"upward include"* ]]
}

@test "a downward tree passes the include check" {
	fake_tree
	run sh "$TOP/scripts/deps-graph.sh" "$T"
	[ "$status" -eq 0 ]
	[[ "$output" == *"lists -> spool-layout(1)"* ]]
	[[ "$output" == *"each library entered through its public header"* ]]
}

@test "lists/ including a queuerun/ header fails the include check" {
	fake_tree
	printf '#include "walk.h"\n' >"$T/lists/addr_set.c"
	run sh "$TOP/scripts/deps-graph.sh" "$T"
	[ "$status" -eq 1 ]
	[[ "$output" == *"upward include: lists/addr_set.c:1: lists/ includes queuerun/walk.h"* ]]
}

@test "another part including a library's private header fails the include check" {
	fake_tree
	printf '#include "listconf.h"\n' >"$T/queuerun/walk.c"
	run sh "$TOP/scripts/deps-graph.sh" "$T"
	[ "$status" -eq 1 ]
	[[ "$output" == *"private header: queuerun/walk.c:1: queuerun/ includes lists/listconf.h, not lists.h"* ]]
	[[ "$output" != *"every arrow points down"* ]]
}

@test "common/ including a spool-layout/ header fails the include check" {
	fake_tree
	printf '#include <string.h>\n#include "spool_path.h"\n' >"$T/common/io.c"
	run sh "$TOP/scripts/deps-graph.sh" "$T"
	[ "$status" -eq 1 ]
	[[ "$output" == *"upward include: common/io.c:2: common/ includes spool-layout/spool_path.h"* ]]
}

@test "sideways between libraries fails the include check" {
	fake_tree
	mkdir -p "$T/sched"
	printf '#include "listconf.h"\n' >"$T/sched/sched_core.c"
	run sh "$TOP/scripts/deps-graph.sh" "$T"
	[ "$status" -eq 1 ]
	[[ "$output" == *"upward include: sched/sched_core.c:1: sched/ includes lists/listconf.h"* ]]
}

@test "the runner's files call each other without a ring" {
	[ -f "$TOP/queuerun/queuerun.o" ] || skip "not built"
	run sh "$TOP/scripts/callgraph.sh" "$TOP/queuerun"
	[ "$status" -eq 0 ]
	[[ "$output" == *"queuerun -> "*"walk"* ]]
	[ "${lines[-1]}" = "no cycles" ]
}

@test "the call-graph check finds a ring" {
	d="$BATS_TEST_TMPDIR/ring"
	mkdir -p "$d"
	printf 'void b(void);\nvoid a(void);\nvoid a(void) { b(); }\n' >"$d/a.c"
	printf 'void a(void);\nvoid b(void);\nvoid b(void) { a(); }\n' >"$d/b.c"
	cc -c -o "$d/a.o" "$d/a.c"
	cc -c -o "$d/b.o" "$d/b.c"
	run sh "$TOP/scripts/callgraph.sh" "$d"
	[ "$status" -eq 1 ]
	[[ "$output" == *"a -> b"* ]]
	[[ "$output" == *"loop"* ]]
}
