# t/bench/archive_setup.bash - sourced by the archive benchmarks: in DIR,
# the generated mbox of N posts (archive_mbox.py N 1, the same in every
# benchmark that compares on it) and an mjq tree whose list
# example.org/list archives into DIR/arch and DIR/www (DIR/mjq.conf).

# archive_setup DIR N TOP
archive_setup() {
	local dir=$1 n=$2 top=$3
	python3 "$top/t/bench/archive_mbox.py" "$n" 1 >"$dir/posts.mbox"
	mkdir -p "$dir/spool/tmp" "$dir/lists/example.org/list"
	: >"$dir/lists/example.org/list/subscribers"
	# shellcheck disable=SC2016 # $LIST is mjq's, not the shell's
	printf '[list]\narchive_web = yes\narchive_url = https://arch.example.org/$LIST/\n' \
		>"$dir/lists/example.org/list/config"
	printf '[spool]\ndir = %s/spool\n[lists]\ndir = %s/lists\n[archive]\ndir = %s/arch\npublic_dir = %s/www\n' \
		"$dir" "$dir" "$dir" "$dir" >"$dir/mjq.conf"
}
