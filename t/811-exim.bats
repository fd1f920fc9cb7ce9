#!/usr/bin/env bats
# t/811-exim.bats - the Exim section of docs/mta.md, word for word, on
# Debian's own exim4 (slow: a private host, about half a minute).
#
# Exim and Postfix conflict as installed packages, so Debian's exim4
# packages are fetched with apt-get download (t/private-host.bash caches
# them) and unpacked into a private copy of this host
# (t/private-host.sh: overlays on /etc, /usr and /var in a mount
# namespace of its own), where they sit at their Debian paths.  There
# the test does what the packages' maintainer scripts would (the
# Debian-exim user, its directories, debconf's answers in
# /etc/exim4/update-exim4.conf.conf: a smarthost setup whose smarthost
# is this test's sink, the split configuration) and what an
# administrator does for mjq (make install, a list, its DKIM key); then
# it takes from docs/mta.md the dc_other_hostnames line and the files it
# names under /etc/exim4/, puts them in place unchanged, and runs
# Debian's update-exim4.conf, which builds Exim's configuration from
# Debian's template.  Exim's daemon listens on 127.0.0.2 (127.0.0.1, the
# sink's, must not be its own address, or it would refuse to send the
# bounces there); mj_queuerun delivers the posts to the same sink.
#
# Needs root (namespaces, mounts).  Skips when Debian's archive cannot be
# reached and the packages are not cached.
# slow: Debian's Exim in a private host

load helpers
load smtp_helpers
load private-host

setup_file() {
	mta_host_start 95 exim4-base exim4-config exim4-daemon-light
	[ -z "$MTA_SKIP" ] || return 0
	host_step exim_host_setup
	# the lines of docs/mta.md, unchanged, where it says they go
	exim_doc_lines
	host_run update-exim4.conf
	host_run exim4 -bd -q30m -oX "$MTA_PORT" -oP /run/exim4/exim.pid 3>&-
	mta_listening
}

teardown_file() {
	mta_host_stop
}

# exim_host_setup - run in the private host: Exim as its packages'
# maintainer scripts and debconf leave it
exim_host_setup() {
	adduser --system --group --quiet --home /var/spool/exim4 \
		--no-create-home --disabled-login --force-badname Debian-exim
	install -d -o Debian-exim -g adm -m 2750 /var/log/exim4
	install -d -o Debian-exim -g Debian-exim -m 0750 /run/exim4 \
		/var/spool/exim4 /var/spool/exim4/db /var/spool/exim4/input \
		/var/spool/exim4/msglog
	echo mail.example.org >/etc/mailname
	# debconf's answers: mail sent by smarthost (the sink), Exim's own
	# address 127.0.0.2, the split configuration
	cat >/etc/exim4/update-exim4.conf.conf <<-EOF
	dc_eximconfig_configtype='smarthost'
	dc_other_hostnames=''
	dc_local_interfaces='127.0.0.2'
	dc_readhost=''
	dc_relay_domains=''
	dc_minimaldns='false'
	dc_relay_nets=''
	dc_smarthost='127.0.0.1::$SINK_PORT'
	CFILEMODE='644'
	dc_use_split_config='true'
	dc_hide_mailname=''
	dc_mailname_in_oh='true'
	dc_localdelivery='mail_spool'
	EOF
}

# exim_doc_lines - docs/mta.md's Exim section into the private host: its
# dc_other_hostnames line into update-exim4.conf.conf, each block headed
# by "# /etc/exim4/..." into that file
exim_doc_lines() {
	local d=$STAGE/doc dc path n=0
	doc_blocks Exim "$d"
	dc=$(awk '/^## / { on = /^## Exim/ }
		on && /^    dc_other_hostnames=/ { print substr($0, 5) }' "$TOP/docs/mta.md")
	echo "$dc"
	# the setting and the two files were found
	[ "$(echo "$dc" | wc -l)" -eq 1 ] && [ -n "$dc" ]
	[ "$(grep -c '^/etc/exim4/conf\.d/' "$d/paths")" -eq 2 ]
	host_run sed -i "s/^dc_other_hostnames=.*/$dc/" \
		/etc/exim4/update-exim4.conf.conf
	while read -r path; do
		n=$((n + 1))
		host_run install -m 0644 "$d/$n" "$path"
	done <"$d/paths"
}

setup() {
	mta_host_setup
}

teardown() {
	[ -z "$MTA_SKIP" ] || return 0
	# each test starts with an empty spool and an empty Exim queue
	mjq_spool_clear
	host_run bash -c 'exim4 -bp | awk "\$3 ~ /-.*-/ { print \$3 }" |
		xargs -r exim4 -Mrm >/dev/null'
}

# mainlog - Exim's main log
mainlog() {
	host_run cat /var/log/exim4/mainlog
}

# exim_id TAG - Exim's id of the post with Message-ID <TAG@example.net>
exim_id() {
	mainlog | awk -v id="id=$1@example.net" '$4 == "<=" && $NF == id { print $3 }'
}

# exim_done TAG - Exim has finished with the post: its id and "Completed";
# prints what Exim logged of it, for the reader of a failure
exim_done() {
	local id
	id=$(exim_id "$1")
	[ -n "$id" ] && mainlog | grep -q "^.* $id Completed$" &&
		mainlog | grep " $id "
}

# posted_to_list HOW TAG - the post goes to mylist by HOW, Exim hands it
# to mj_enqueue, the runner sends it to each subscriber once
posted_to_list() {
	post "$2"
	"$1" "$2" mylist@example.org
	wait_for 30 exim_done "$2"
	mainlog | grep -q " $(exim_id "$2") => mylist <mylist@example.org> R=mjq_lists T=mjq_pipe$"
	queued_from_poster list
	list_delivers
}

@test "Exim: a post through the sendmail interface reaches every subscriber once" {
	posted_to_list by_sendmail x1
}

@test "Exim: a post over SMTP reaches every subscriber once" {
	posted_to_list by_smtp x2
}

@test "Exim: owner, request and majordomo mail reach their functions with the poster as sender" {
	local r
	for r in mylist-owner owner-mylist mylist-request majordomo; do
		post "x3$r" "$r@example.org"
		by_smtp "x3$r" "$r@example.org"
		wait_for 30 exim_done "x3$r"
	done
	functions_from_poster
}

@test "Exim: a post to a list that does not exist bounces to the poster with mj_enqueue's line" {
	post x4 gone@example.org
	by_smtp x4 gone@example.org
	wait_for 30 exim_done x4
	mainlog | grep -q " $(exim_id x4) \*\* gone@example.org R=mjq_lists T=mjq_pipe: Child process of mjq_pipe transport returned 67 "
	[ -z "$(queue_files)" ]
	# the bounce, through the smarthost
	bounced_with_line 'mj_enqueue: no such list gone@example.org'
}

@test "Exim: a full spool defers (75); exim4 -qf delivers once there is room" {
	mjq_spool_fill
	post x5
	by_smtp x5 mylist@example.org
	id=
	wait_for 30 eval 'id=$(exim_id x5); [ -n "$id" ] && mainlog | grep " $id [=*][=*] "'
	mainlog | grep -q " $id == mylist@example.org R=mjq_lists T=mjq_pipe defer (0): Child process of mjq_pipe transport returned 75 "
	[ -z "$(queue_files)" ]
	# Exim keeps it
	[ "$(host_run exim4 -bpc)" -eq 1 ]
	host_run rm /var/spool/mjq/filler
	host_run exim4 -qf
	wait_for 30 exim_done x5
	mainlog | grep -q " $id => mylist <mylist@example.org> R=mjq_lists T=mjq_pipe$"
	queued_from_poster list
	list_delivers
}

@test "Exim: the same lines in the single-file configuration (exim4.conf.template)" {
	local d=$STAGE/doc t r
	# the files of the split configuration go; their lines go into the
	# template after "begin transports" and "begin routers"
	t=$(grep -n /transport/ "$d/paths" | cut -d: -f1)
	r=$(grep -n /router/ "$d/paths" | cut -d: -f1)
	[ -n "$t" ] && [ -n "$r" ]
	host_run xargs rm <"$d/paths"
	host_run awk -v t="$d/$t" -v r="$d/$r" '{ print }
		/^begin transports$/ { while ((getline l <t) > 0) print l; print "" }
		/^begin routers$/ { while ((getline l <r) > 0) print l; print "" }' \
		/etc/exim4/exim4.conf.template >"$d/template"
	[ "$(grep -c '^mjq_' "$d/template")" -eq 2 ]
	host_run cp "$d/template" /etc/exim4/exim4.conf.template
	host_run sed -i "s/^dc_use_split_config=.*/dc_use_split_config='false'/" \
		/etc/exim4/update-exim4.conf.conf
	host_run update-exim4.conf
	posted_to_list by_sendmail x6
}
