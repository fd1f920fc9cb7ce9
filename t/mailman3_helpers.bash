# shellcheck shell=bash
# Debian's Mailman 3 as a peer, for t/47-import.bats and
# t/bench/members.sh: its own SQLite database and var dir under a
# directory of the caller's, run as nobody (not root), no REST server
# and no runners (the commands write the database themselves), no MTA
# (NullMTA) and no archiver.

# mm3_setup DIR - a Mailman 3 instance in DIR (made and given to nobody;
# DIR's parents must let nobody through); sets MM3_CFG
mm3_setup() {
	mkdir -p "$1/var/data" || return 1
	MM3_CFG=$1/mailman.cfg
	cat >"$MM3_CFG" <<-CFG
		[mailman]
		layout: mjqtest
		site_owner: owner@example.org
		[paths.mjqtest]
		var_dir: $1/var
		[database]
		class: mailman.database.sqlite.SQLiteDatabase
		url: sqlite:///$1/var/data/mailman.db
		[mta]
		incoming: mailman.mta.null.NullMTA
		[archiver.prototype]
		enable: no
	CFG
	chown -R nobody:nogroup "$1"
}

# mm3 ARG... - the mailman command as nobody, on the instance of mm3_setup
mm3() {
	runuser -u nobody -- mailman -C "$MM3_CFG" "$@"
}
