# t/bench/pages.bash - sourced by t/bench/oneclick.sh for
# `oneclick.sh pages [N] [C]`: the web side of one-click and the list's
# pages, under one lighttpd on loopback, side by side with a static
# file of the same size class, with ab (apache2-utils): N requests (default
# 20000), C at a time (default 4), for each of
#   static       a small HTML file lighttpd serves itself
#   unsub GET    mj_unsubscribe's page for a one-click link
#   list GET     mj_listweb's list page (form token made, info read)
#   options GET  mj_listweb's options page (link verified)
#   confirm GET  mj_listweb's confirmation page (token file read)
#   refused POST mj_listweb's subscribe POST without a form token (403:
#                what a flood of forged POSTs costs; nothing queued)
# Each line: requests/s, and the ratio to the static file's.

# pages_bench N C
pages_bench() {
	local n=${1:-20000} c=${2:-4} w=$DIR/pages port t q tok
	mkdir -p "$w/root/cgi-bin" "$w/spool/tmp" "$w/spool/QUEUE" "$w/lists/example.org/mylist"
	ln -s "$TOP/web/mj_listweb" "$w/root/cgi-bin/mj_listweb"
	ln -s "$TOP/unsubscribe/mj_unsubscribe" "$w/root/cgi-bin/mj_unsubscribe"
	printf '<!DOCTYPE html><title>x</title><p>static</p>\n' >"$w/root/static.html"
	"$TOP/scripts/mjq-unsubsecret" "$w/unsubscribe.secret"
	cat >"$w/mjq.conf" <<-CONF
	[spool]
	dir = $w/spool
	[lists]
	dir = $w/lists
	[enqueue]
	start_server = no
	[dkim]
	sign = no
	[unsubscribe]
	secret_file = $w/unsubscribe.secret
	CONF
	echo ann@users.test >"$w/lists/example.org/mylist/subscribers"
	printf '[list]\npages_url = http://x/cgi-bin/mj_listweb\n' >"$w/lists/example.org/mylist/config"
	echo 'A list for the bench.' >"$w/lists/example.org/mylist/info"
	port=$(port_free)
	cat >"$w/lighttpd.conf" <<-CONF
	server.document-root = "$w/root"
	server.bind = "127.0.0.1"
	server.port = $port
	server.errorlog = "$w/error.log"
	server.modules = ("mod_cgi", "mod_setenv")
	cgi.assign = ("/mj_listweb" => "", "/mj_unsubscribe" => "")
	setenv.add-environment = ("MJQ_CONF" => "$w/mjq.conf")
	CONF
	lighttpd -D -f "$w/lighttpd.conf" 2>"$w/lighttpd.stderr" &
	local lpid=$!
	for _ in $(seq 50); do
		curl -s -o /dev/null "http://127.0.0.1:$port/static.html" && break
		sleep 0.1
	done
	t=$(date +%s)
	q="l=mylist%40example.org&a=ann%40users.test&t=$t&s=$(printf 'mjq-unsub-1\nmylist\nexample.org\nann@users.test\n%s\n' "$t" |
		openssl dgst -sha256 -mac HMAC -macopt "hexkey:$(head -1 "$w/unsubscribe.secret")" -r | cut -c1-32)"
	tok=$(printf '%032d' 0 | tr 0 a)
	mkdir -p "$w/spool/state/tokens"
	printf 'action subscribe\ndomain example.org\nlist mylist\naddress ann@users.test\nrequester ann@users.test\n' \
		>"$w/spool/state/tokens/$tok"
	printf 'a=zed%%40users.test' >"$w/post"
	local base=http://127.0.0.1:$port s
	s=$(pages_rps "$n" "$c" "$base/static.html")
	printf 'pages n=%d c=%d cores=%d load %s\n' "$n" "$c" "$CORES" "$(cut -d' ' -f1-3 /proc/loadavg)"
	printf '%-13s %8.0f req/s\n' static "$s"
	pages_line "unsub GET" "$s" "$n" "$c" "$base/cgi-bin/mj_unsubscribe?$q"
	pages_line "list GET" "$s" "$n" "$c" "$base/cgi-bin/mj_listweb?l=mylist%40example.org"
	pages_line "options GET" "$s" "$n" "$c" "$base/cgi-bin/mj_listweb?$q"
	pages_line "confirm GET" "$s" "$n" "$c" "$base/cgi-bin/mj_listweb?l=mylist%40example.org&c=$tok"
	pages_line "refused POST" "$s" "$n" "$c" -p "$w/post" -T application/x-www-form-urlencoded \
		"$base/cgi-bin/mj_listweb?l=mylist%40example.org"
	kill "$lpid"
	wait "$lpid" 2>/dev/null || true
}

# pages_rps N C [AB-ARGS...] URL - ab's requests per second
pages_rps() {
	local n=$1 c=$2
	shift 2
	ab -q -n "$n" -c "$c" "$@" 2>/dev/null | awk '/^Requests per second/ { print $4 }'
}

# pages_line NAME STATIC N C [AB-ARGS...] URL - one line of the table
pages_line() {
	local name=$1 s=$2 r
	shift 2
	r=$(pages_rps "$@")
	printf '%-13s %8.0f req/s  %.3f of static\n' "$name" "$r" "$(awk -v a="$r" -v b="$s" 'BEGIN { print a / b }')"
}
