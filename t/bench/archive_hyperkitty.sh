#!/bin/bash
# t/bench/archive_hyperkitty.sh [N] - the web archive's import side by
# side with Mailman 3's HyperKitty in one run, on the same generated mbox
# of N posts (default 10000; t/bench/archive_mbox.py N 1, as
# t/bench/archive.sh makes it).  mj_archive import (its pages and its
# FTS5 index in one step) against HyperKitty's two steps: `django-admin
# hyperkitty_import --no-sync-mailman -l list@example.org MBOX` (the
# database: messages, threads, attachments; it prints that the search
# index is not updated) and `django-admin update_index_one_list
# list@example.org` (the Whoosh index HyperKitty's search reads).
# HyperKitty runs in a private Django project written into the temp dir:
# SQLite, the Whoosh backend of HyperKitty's example settings, no web
# server, no Mailman core.  Each step is timed with /usr/bin/time.
# Prints elapsed and CPU seconds, posts per second, peak RSS, bytes on
# disk of each, and the ratios.  Needs python3, bc and Debian's
# python3-django-hyperkitty and python3-whoosh (dev/deps.sh bench).
set -eu
N=${1:-10000}
TOP=$(cd "$(dirname "$0")/../.." && pwd)
ARC=$TOP/archive/mj_archive
# Debian's modules are in Debian's python3, whatever python3 PATH finds
PY=/usr/bin/python3
if ! command -v django-admin >/dev/null || ! $PY -c 'import importlib.util as u, sys
sys.exit(not all(map(u.find_spec, ("hyperkitty", "haystack", "whoosh"))))' 2>/dev/null; then
	echo "archive_hyperkitty.sh: needs python3-django-hyperkitty and python3-whoosh" >&2
	exit 77
fi
DIR=$(mktemp -d "${TMPDIR:-/tmp}/mjq-archive-hk.XXXXXX")
trap 'rm -rf "$DIR"' EXIT
# shellcheck source=t/bench/archive_setup.bash
. "$TOP/t/bench/archive_setup.bash"
archive_setup "$DIR" "$N" "$TOP"
echo "archive_hyperkitty.sh: $N posts, $(du -m "$DIR/posts.mbox" | cut -f1) MB of mbox"

# HyperKitty's Django project: the apps of its example settings less the
# admin, the web login providers and the debug toolbar, which an import
# does not touch.
mkdir "$DIR/hkproj" "$DIR/hk"
cat >"$DIR/hkproj/hkbench_settings.py" <<'EOF'
import os
B = os.environ["HK_DIR"]
SECRET_KEY = "bench"
DEBUG = False
SITE_ID = 1
USE_TZ = True
TIME_ZONE = "UTC"
DEFAULT_AUTO_FIELD = "django.db.models.AutoField"
INSTALLED_APPS = ("hyperkitty", "django_mailman3",
    "django.contrib.auth", "django.contrib.contenttypes",
    "django.contrib.sessions", "django.contrib.sites",
    "django.contrib.messages", "django.contrib.staticfiles",
    "rest_framework", "django_gravatar", "compressor", "haystack",
    "django_extensions", "django_q", "allauth", "allauth.account",
    "allauth.socialaccount")
DATABASES = {"default": {"ENGINE": "django.db.backends.sqlite3",
    "NAME": os.path.join(B, "hyperkitty.db")}}
HAYSTACK_CONNECTIONS = {"default": {
    "ENGINE": "haystack.backends.whoosh_backend.WhooshEngine",
    "PATH": os.path.join(B, "fulltext_index")}}
Q_CLUSTER = {"orm": "default", "sync": True, "timeout": 3600, "retry": 7200}
MAILMAN_REST_API_URL = "http://127.0.0.1:9"
MAILMAN_REST_API_USER = "unused"
MAILMAN_REST_API_PASS = "unused"
MAILMAN_ARCHIVER_KEY = "unused"
STATIC_URL = "/static/"
STATIC_ROOT = os.path.join(B, "static")
COMPRESS_ENABLED = False
TEMPLATES = [{"BACKEND": "django.template.backends.django.DjangoTemplates",
    "APP_DIRS": True, "OPTIONS": {"context_processors": []}}]
EOF
export HK_DIR=$DIR/hk PYTHONPATH=$DIR/hkproj DJANGO_SETTINGS_MODULE=hkbench_settings
django-admin migrate -v0 >"$DIR/migrate.err" 2>&1 || {
	cat "$DIR/migrate.err" >&2
	exit 1
}
hkempty=$(du -sb "$DIR/hk" | cut -f1)

# measure NAME CMD... - elapsed, user+sys seconds and peak RSS of CMD
measure() {
	local name=$1
	shift
	/usr/bin/time -f '%e %U %S %M' -o "$DIR/$name.time" "$@" >"$DIR/$name.out" 2>"$DIR/$name.err" || {
		echo "archive_hyperkitty.sh: $name failed" >&2
		tail -5 "$DIR/$name.err" >&2
		exit 1
	}
	read -r e u s m <"$DIR/$name.time"
	echo "$name $e $(echo "$u + $s" | bc) $m"
}
read -r _ me mc mm < <(measure mjq "$ARC" -C "$DIR/mjq.conf" import example.org list "$DIR/posts.mbox")
read -r _ ie ic im < <(measure hk_import django-admin hyperkitty_import --no-sync-mailman \
	-l list@example.org "$DIR/posts.mbox")
read -r _ xe xc xm < <(measure hk_index django-admin update_index_one_list list@example.org)
# every post in: a failure HyperKitty skipped would flatter it
hkposts=$($PY -c 'import django; django.setup()
from hyperkitty.models import Email
print(Email.objects.filter(mailinglist__name="list@example.org").count())')
[ "$hkposts" -eq "$N" ] || echo "archive_hyperkitty.sh: HyperKitty stored $hkposts of $N posts" >&2
mbytes=$(du -sb "$DIR/www" "$DIR/arch" | awk '{ s += $1 } END { print s }')
hdb=$(du -sb "$DIR/hk/hyperkitty.db" | cut -f1)
hidx=$(du -sb "$DIR/hk/fulltext_index" | cut -f1)
te=$(echo "$ie + $xe" | bc)
tc=$(echo "$ic + $xc" | bc)
tm=$((im > xm ? im : xm))
row() {
	local rate=n/a
	[ "$(echo "$2 > 0" | bc)" = 1 ] && rate=$(printf '%.0f' "$(echo "$N / $2" | bc -l)")
	printf '%-14s %9s %9s %10s %12s %8s\n' "$1" "$2" "$3" "$rate" "$4" "$5"
}
printf '%-14s %9s %9s %10s %12s %8s\n' "" elapsed cpu posts/s bytes rss_kb
row mjq "$me" "$mc" "$mbytes" "$mm"
row hk_import "$ie" "$ic" "$hdb" "$im"
row hk_index "$xe" "$xc" "$hidx" "$xm"
row hk_total "$te" "$tc" "$((hdb + hidx))" "$tm"
echo "(HyperKitty's bytes: its SQLite database, $hkempty of them before the import, and its Whoosh index; it renders pages on request, so none are on disk)"
# ratio A B - A / B to one decimal, or "n/a" when B rounds to nothing
ratio() {
	if [ "$(echo "$2 > 0" | bc)" = 1 ]; then
		printf '%.1fx' "$(echo "$1 / $2" | bc -l)"
	else
		echo n/a
	fi
}
echo "import, elapsed: mjq is $(ratio "$ie" "$me") faster than hyperkitty_import, $(ratio "$te" "$me") than import + index"
echo "import, CPU: mjq uses $(ratio "$ic" "$mc") less than hyperkitty_import, $(ratio "$tc" "$mc") less than import + index"
