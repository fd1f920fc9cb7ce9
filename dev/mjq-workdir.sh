# dev/mjq-workdir.sh - sourced by the demo and the benchmarks: a
# private mjq tree under one directory.
#
#   mjq_workdir DIR    makes DIR/spool (tmp/, QUEUE/) and DIR/lists, and
#                      writes DIR/mjq.conf naming them, with the server
#                      not started by mj_enqueue; callers append their
#                      own sections (a section may be given again).

mjq_workdir() {
	mkdir -p "$1/spool/tmp" "$1/spool/QUEUE" "$1/lists"
	printf '[spool]\ndir = %s\n[lists]\ndir = %s\n[enqueue]\nstart_server = no\n' \
		"$1/spool" "$1/lists" >"$1/mjq.conf"
}
