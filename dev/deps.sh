#!/bin/sh
# dev/deps.sh - make sure the Debian packages mjq needs are installed.
#
#   sh dev/deps.sh build   compiler, libbsd, inih, OpenSSL, libpsl, libcurl,
#                              hiredis (the [cluster] limits shared in Redis),
#                              libsqlite3 (mj_archive's index, with FTS5),
#                              libxml2 (HTML posts read as text: the archive,
#                              a list's convert_html)
#   sh dev/deps.sh test    build + bats, postfix (smtp-sink), strace,
#                              python3-dkim (the independent verifier),
#                              debhelper and dpkg-dev (the .deb test),
#                              clang-format (t/check-format), redis-server
#                              (the private Redis of t/540-cluster.bats),
#                              what Exim, OpenSMTPD and Sendmail need beside
#                              their own packages (t/811-813 unpack those in a
#                              private host: they conflict with Postfix),
#                              sqlite3 (t/910-archive.bats reads the index),
#                              chromium-driver, python3-selenium and tidy
#                              (t/900-pages.bats), the peers t/840 and t/722
#                              run (python3-flufl.bounce, mhonarc, mlmmj,
#                              mailman3, python3-django-hyperkitty)
#   sh dev/deps.sh bench   test + what the benchmarks compare against
#                              (ab from apache2-utils: t/bench/oneclick.sh
#                              pages)
#   sh dev/deps.sh fuzz    build + clang and its libFuzzer runtime
#   sh dev/deps.sh deb     build + debhelper, dpkg-dev (make deb)
#
# As root it installs what is missing with apt-get; otherwise it prints the
# exact command to run and fails.
set -eu

build="gcc make libc6-dev pkg-config libbsd-dev libinih-dev libssl-dev libpsl-dev libcurl4-openssl-dev libhiredis-dev libsqlite3-dev libxml2-dev publicsuffix openssl"
deb="$build debhelper dpkg-dev"
test="$build bats bats-assert bats-support postfix strace procps psmisc valgrind
      time curl lighttpd lighttpd-mod-openssl chromium python3-dkim python3-nacl python3-prometheus-client
      debhelper dpkg-dev clang-format redis-server sqlite3
      adduser m4 libidn12 libgnutls-dane0 libnsl2 libpcre2-8-0 libdb5.3
      libevent-2.1-7 libwrap0 libldap-2.5-0 libsasl2-2 liblockfile1
      chromium-driver python3-selenium tidy
      python3-flufl.bounce mhonarc mlmmj mailman3
      python3-django-hyperkitty python3-whoosh"
# chromium-driver and python3-selenium: t/900-pages.bats drives headless
# Chromium through the list's pages (forms typed in and buttons pressed,
# as a person does), which --dump-dom alone cannot do; tidy (HTML Tidy
# 5) checks that every page it serves is HTML5 without a warning.
# apache2-utils: ab, the load of t/bench/oneclick.sh pages (the CGI
# pages' requests per second beside a static file).
# python3-django-hyperkitty and python3-whoosh: Mailman 3's archive and
# the search backend of its example settings, the peer of
# t/bench/archive_hyperkitty.sh (hyperkitty_import and its Whoosh index
# beside mj_archive import), which t/840 runs at 200 posts: in the test
# group, so that CI runs it rather than skipping it.
# python3-flufl.bounce and mhonarc: the peers of t/bench/bounces.sh and
# archive.sh, which t/840 runs at a small size; mlmmj and mailman3: t/722
# imports a list Debian's mlmmj made and one Debian's Mailman 3 made (on
# SQLite, as nobody), and t/bench/members.sh compares mjq-members with
# mailman addmembers and mlmmj-sub.
bench="$test apache2-utils"
# (t/640 builds the same targets with gcc's sanitizers and no libFuzzer,
# make fuzz-replay: the test group needs no clang.)
fuzz="$build clang libclang-rt-dev"

case "${1:-build}" in
build) want=$build ;;
test) want=$test ;;
bench) want=$bench ;;
fuzz) want=$fuzz ;;
deb) want=$deb ;;
*)
	echo "usage: sh dev/deps.sh build|test|bench|fuzz|deb" >&2
	exit 64
	;;
esac

missing=
for p in $want; do
	if ! dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null |
		grep -q '^install ok installed$'; then
		missing="$missing $p"
	fi
done
[ -z "$missing" ] && exit 0

cmd="apt-get install -y --no-install-recommends$missing"
if [ "$(id -u)" -ne 0 ]; then
	echo "mjq needs these Debian packages:$missing" >&2
	echo "run as root: apt-get update && $cmd" >&2
	exit 1
fi
echo "mjq: installing$missing" >&2
export DEBIAN_FRONTEND=noninteractive
# postfix asks debconf questions; answer them so the install never waits.
echo "postfix postfix/main_mailer_type select No configuration" |
	debconf-set-selections 2>/dev/null || true
apt-get update -qq
# shellcheck disable=SC2086
apt-get install -y -qq --no-install-recommends $missing >/dev/null
