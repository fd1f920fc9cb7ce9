# commit-order.awk - check an `strace -f` log of one mj_enqueue against the
# commit protocol of spool-layout/README (states 1-6): the tmp file is
# created with O_EXCL, written, fsynced, linked to its final name, the
# final directory is fsynced, the tmp name unlinked, and only then does
# the process exit 0.  Prints the steps seen, or what is out of order.

function fail(why) { print "commit order broken: " why " (line " NR ")"; bad = 1; exit 1 }
function quoted(s, n,   i, parts) {
	# the n-th "..." argument of a strace line
	split(s, parts, "\"")
	return parts[2 * n]
}
function step(name) { seen = seen (seen == "" ? "" : " ") name }

/openat\(.*O_EXCL/ && /\/tmp\// {
	if (state != 0) fail("second tmp file")
	tmp = quoted($0, 1); tmpfd = $NF; state = 1; step("open"); next
}
/ write\(/ || /^write\(/ {
	match($0, /write\([0-9]+/); fd = substr($0, RSTART + 6, RLENGTH - 6)
	if (fd != tmpfd) next
	if (state != 1 && state != 2) fail("write to the tmp file after fsync")
	if (state == 1) step("write")
	state = 2; next
}
/fsync\(/ {
	match($0, /fsync\([0-9]+/); fd = substr($0, RSTART + 6, RLENGTH - 6)
	if (state == 2 && fd == tmpfd) { state = 3; step("fsync"); next }
	if (state == 4 && fd == dirfd) { state = 5; step("fsync-dir"); next }
	next
}
/link(at)?\(/ && !/unlink/ {
	if ($0 ~ /= -1 /) next	# ENOENT: the directory is made, then again
	if (state != 3) fail("link before the data is synced")
	if (quoted($0, 1) != tmp) fail("link of another file")
	final = quoted($0, 2); dir = final; sub(/\/[^\/]*$/, "", dir)
	if (final !~ /\/QUEUE\//) fail("final name outside QUEUE/")
	state = 4; step("link"); next
}
/openat\(.*O_DIRECTORY/ {
	if (state == 4 && quoted($0, 1) == dir) dirfd = $NF
	next
}
/unlink(at)?\(/ {
	if (quoted($0, 1) == tmp) {
		if (state != 5) fail("tmp name removed before the directory is synced")
		state = 6; step("unlink")
	}
	next
}
/exit_group\(/ {
	if ($0 !~ /exit_group\(0\)/) fail("exit status not 0")
	if (state != 6) fail("exit before the commit is complete")
	state = 7; step("exit0")
}
END {
	if (bad) exit 1
	if (state != 7) { print "commit order broken: stopped in state " state; exit 1 }
	print "commit order ok: " seen
}
