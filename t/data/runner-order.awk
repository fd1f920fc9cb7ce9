# runner-order.awk - check an `strace -f` log of one mj_queuerun -1 pass
# against the spool spec's protocols (spool-layout/README): state files
# and generated mail (tmp, write, fsync, link, fsync of the directory,
# unlink of the tmp name; the state file linked before its message),
# moves to BAD/ and HOLD/ (.why, state, message, fsync of the target,
# then the old names, message first), finishing (state synced, message
# unlinked before its state), and new directories made durable in their
# parent before anything is linked into them.  -v spool=DIR names the
# spool.  Prints the steps seen, one
# word each, or what is out of order (same style as commit-order.awk).

function fail(why) { print "runner order broken: " why " (line " NR ")"; bad = 1; exit 1 }
function quoted(s, n,   parts) { split(s, parts, "\""); return parts[2 * n] }
function dirof(p) { sub(/\/[^\/]*$/, "", p); return p }
function base(p) { sub(/.*\//, "", p); return p }
function step(name) { seen = seen (seen == "" ? "" : " ") name }
function fdof(s, call,   m) {
	match(s, call "\\([0-9]+"); return substr(s, RSTART + length(call) + 1, RLENGTH - length(call) - 1)
}
# kind - what a spool name is: state, why, try or msg
function kind(p,   b) {
	b = base(p)
	if (b ~ /\.why$/) return "why"
	if (b ~ /\.try$/) return "try"
	if (b ~ /^\./) return "state"
	return "msg"
}

# A call another thread's cut in two ("<unfinished ...>", then "<...
# NAME resumed>") is read whole, at its end: a failed one is then seen
# to fail.
/<unfinished \.\.\.>$/ { sub(/ *<unfinished \.\.\.>$/, ""); held[$1] = $0; next }
/<\.\.\. [a-z0-9_]+ resumed>/ && ($1 in held) {
	rest = $0; sub(/^.*<\.\.\. [a-z0-9_]+ resumed> */, "", rest)
	$0 = held[$1] rest; delete held[$1]
}
/ = -1 / && !/unlink/ { next }	# failed calls change nothing (EEXIST, ENOENT)

function istmp(p) { return index(p, spool "/tmp/") == 1 }
BEGIN { if (spool == "") { print "usage: awk -v spool=DIR -f runner-order.awk TRACE"; exit 2 } }

/openat\(.*O_EXCL/ && istmp(quoted($0, 1)) {
	fd = $NF; tmpfd[fd] = quoted($0, 1); tmpstate[tmpfd[fd]] = "open"; next
}
/openat\(.*O_DIRECTORY/ && !/O_NONBLOCK/ { dirfd[$NF] = quoted($0, 1); next }
/openat\(.*O_RDWR/ && !/O_CREAT/ { p = quoted($0, 1); if (kind(p) == "state") statefd[$NF] = p; next }
/ write\(/ {
	fd = fdof($0, "write")
	if (fd in tmpfd) {
		if (tmpstate[tmpfd[fd]] != "open" && tmpstate[tmpfd[fd]] != "written")
			fail("write to a tmp file after its fsync")
		tmpstate[tmpfd[fd]] = "written"
	}
	next
}
/pwrite64\(/ {
	fd = fdof($0, "pwrite64")
	if (!(fd in statefd)) next
	unsynced[statefd[fd]] = 1
	if ($0 ~ /"bounced  "/) {
		if (gen_pending) fail("recipient marked bounced before its DSN is committed")
		if (!gen_done) fail("recipient marked bounced without a DSN")
		step("bounced")
	}
	next
}
/fdatasync\(/ { fd = fdof($0, "fdatasync"); if (fd in statefd) delete unsynced[statefd[fd]]; next }
/ fsync\(/ {
	fd = fdof($0, "fsync")
	if (fd in tmpfd) {
		if (tmpstate[tmpfd[fd]] != "written") fail("fsync of an unwritten tmp file")
		tmpstate[tmpfd[fd]] = "synced"; delete tmpfd[fd]; next
	}
	if (!(fd in dirfd)) next
	d = dirfd[fd]
	for (n in newdir) if (dirof(n) == d) delete newdir[n]
	if (d in linked) {
		delete linked[d]; step("fsync-dir")
		if (gen_pending) { gen_pending = 0; gen_done = 1 }
		if (d in moved_to) moved_ok[moved_to[d]] = 1
	}
	if (d in unlinked) { delete unlinked[d]; step("fsync-olddir") }
	next
}
/mkdir\(/ { newdir[quoted($0, 1)] = 1; step("mkdir"); next }
/link(at)?\(/ && !/unlink/ {
	from = quoted($0, 1); to = quoted($0, 2); d = dirof(to)
	for (n in newdir) if (index(d "/", n "/") == 1)
		fail("link into " n " before it is durable in its parent")
	linked[d] = 1
	if (istmp(from)) {
		if (tmpstate[from] != "synced") fail("link of a tmp file before it is synced")
		tmpstate[from] = "linked"; tmpdir[from] = d
		k = kind(to)
		if (k == "state") gen_state[d "/" substr(base(to), 2)] = 1
		if (k == "msg") {
			if (!((to) in gen_state)) fail("generated message linked before its state file")
			gen_pending = 1
		}
		if (k == "why") why_seen[d "/" substr(base(to), 2, length(base(to)) - 5)] = 1
		step("link-" k)
		next
	}
	# a move: link of the old name into another top
	if (to !~ /\/(BAD|HOLD)\//) fail("link of " from " outside BAD/ and HOLD/")
	k = kind(to)
	if (k == "state") mstate[dirof(to) "/" substr(base(to), 2)] = 1
	if (k == "msg") {
		if (!(to in why_seen)) fail("message moved before its .why")
		moved_to[d] = from
	}
	step("move-" k)
	next
}
/unlink(at)?\(/ {
	p = quoted($0, 1)
	if (istmp(p)) {
		if (p in tmpstate) {
			if (tmpstate[p] == "linked" && (tmpdir[p] in linked))
				fail("tmp name removed before the directory is synced")
			tmpstate[p] = "gone"; step("unlink-tmp")
		}
		next
	}
	if ($0 ~ / = -1 /) next
	k = kind(p)
	if (k == "msg") {
		st = dirof(p) "/." base(p)
		for (f in moved_to) if (moved_to[f] == p && !(p in moved_ok))
			fail("old name removed before the target directory is synced")
		if (st in unsynced) fail("message removed while its state file has unsynced updates")
		gone[p] = 1
		unlinked[dirof(p)] = 1
	}
	if (k == "state") {
		m = dirof(p) "/" substr(base(p), 2)
		if (!(m in gone)) fail("state file removed before its message")
		unlinked[dirof(p)] = 1
	}
	step("unlink-" k)
	next
}
/exit_group\(/ {
	if ($0 !~ /exit_group\(0\)/) fail("exit status not 0")
	step("exit0")
}
END {
	if (bad) exit 1
	for (t in tmpstate) if (tmpstate[t] == "linked") { print "runner order broken: tmp name left: " t; exit 1 }
	print "runner order ok: " seen
}
