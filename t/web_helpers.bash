# web_helpers.bash - a real lighttpd on a free loopback port running
# mjq's CGI programs, shared by the tests of mj_unsubscribe (t/770) and
# mj_listweb (t/900).

# web_start PROGRAM... - lighttpd serving each PROGRAM (a path) as CGI
# at /cgi-bin/<its name>, with MJQ_CONF=$CONF; sets WEB_ROOT (the site's
# http://127.0.0.1:port), WEB_DIR and WEB_PID
web_start() {
	local d=$BATS_TEST_TMPDIR/www port p assign=""
	mkdir -p "$d/root/cgi-bin"
	for p in "$@"; do
		ln -s "$p" "$d/root/cgi-bin/${p##*/}"
		assign="$assign${assign:+, }\"/${p##*/}\" => \"\""
	done
	echo ok >"$d/root/static.txt"
	port=$(free_port)
	cat >"$d/lighttpd.conf" <<-CONF
	server.document-root = "$d/root"
	server.bind = "127.0.0.1"
	server.port = $port
	server.errorlog = "$d/error.log"
	server.modules = ("mod_cgi", "mod_setenv")
	cgi.assign = ($assign)
	setenv.add-environment = ("MJQ_CONF" => "$CONF")
	CONF
	lighttpd -D -f "$d/lighttpd.conf" 2>"$d/stderr" &
	WEB_PID=$!
	WEB_DIR=$d
	WEB_ROOT=http://127.0.0.1:$port
	wait_for 5 curl -s -o /dev/null "$WEB_ROOT/static.txt"
}

# web_secret - a one-click secret for the site in $CONF; sets SECRET, KEY
web_secret() {
	SECRET=$BATS_TEST_TMPDIR/unsubscribe.secret
	printf '[unsubscribe]\nsecret_file = %s\n' "$SECRET" >>"$CONF"
	"$TOP/scripts/mjq-unsubsecret" "$SECRET"
	KEY=$(head -1 "$SECRET")
}

# web_mac LIST DOMAIN ADDR ISSUED - a one-click token, by the openssl
# command (not by mjq's code)
web_mac() {
	printf 'mjq-unsub-1\n%s\n%s\n%s\n%s\n' "$1" "$2" "$3" "$4" |
		openssl dgst -sha256 -mac HMAC -macopt "hexkey:$KEY" -r |
		cut -c1-32
}
