# t/private-host.bash - Debian packages for the tests that run another MTA in a
# private host (t/private-host.sh): fetched from Debian's archive with
# apt-get download on first use and kept in $MJQ_DEB_CACHE (t/debs/ of
# the checkout unless set), so that a fresh machine fetches them once per
# checkout and a second run needs no network.  Load after helpers.bash.

MJQ_DEB_CACHE=${MJQ_DEB_CACHE:-$TOP/t/debs}

# debs_fetch PKG... - print the cached .deb of each PKG, one a line,
# downloading the missing ones (under a lock: test files may run at once).
# Fails, saying why on stderr, when Debian's archive cannot be reached.
debs_fetch() {
	local p f missing=()
	mkdir -p "$MJQ_DEB_CACHE" || return 1
	(
		flock 9 || exit 1
		for p in "$@"; do
			compgen -G "$MJQ_DEB_CACHE/${p}_*.deb" >/dev/null ||
				missing+=("$p")
		done
		[ "${#missing[@]}" -eq 0 ] && exit 0
		# apt's sandbox user writes the files; a private directory
		# first, so that no half file is ever in the cache
		local tmp
		tmp=$(mktemp -d "$MJQ_DEB_CACHE/.fetch.XXXXXX") || exit 1
		chmod 0755 "$tmp"
		# apt's package lists may be missing or stale on a fresh
		# machine: read them again once before giving up
		if ! (cd "$tmp" && timeout 300 apt-get -q download "${missing[@]}") \
			>"$tmp/log" 2>&1 &&
			! { timeout 300 apt-get -q update &&
				(cd "$tmp" && timeout 300 apt-get -q download "${missing[@]}"); } \
				>>"$tmp/log" 2>&1; then
			cat "$tmp/log" >&2
			rm -rf "$tmp"
			exit 1
		fi
		mv "$tmp"/*.deb "$MJQ_DEB_CACHE/" && rm -rf "$tmp"
	) 9>"$MJQ_DEB_CACHE/.lock" || return 1
	for p in "$@"; do
		f=$(compgen -G "$MJQ_DEB_CACHE/${p}_*.deb" | sort -V | tail -1)
		[ -n "$f" ] || return 1
		echo "$f"
	done
}

# private_host_start STAGE DEB... - a private copy of this host with the
# packages unpacked (t/private-host.sh); sets HOST_PID, the process to
# enter (host_run) and to kill (private_host_stop).
private_host_start() {
	local stage=$1 upid i
	shift
	unshare --mount --pid --fork --mount-proc \
		sh "$TOP/t/private-host.sh" "$stage" "$@" >"$stage/host.log" 2>&1 &
	upid=$!
	wait_for 60 eval "[ -e '$stage/ready' ] || [ -e '$stage/failed' ]" ||
		return 1
	if [ -e "$stage/failed" ]; then
		cat "$stage/failed" "$stage/host.log" >&2
		return 1
	fi
	# the host's pid 1, unshare's child
	HOST_PID=$(tr -d " " <"/proc/$upid/task/$upid/children")
	[ -n "$HOST_PID" ]
}

# host_run CMD... - run CMD as root in the private host
host_run() {
	nsenter -t "$HOST_PID" -m -p -- "$@"
}

# private_host_stop - end the private host and everything in it
private_host_stop() {
	[ -n "${HOST_PID:-}" ] || return 0
	kill -KILL "$HOST_PID" 2>/dev/null
	wait_for 10 eval "! kill -0 $HOST_PID 2>/dev/null"
}
