# t/data/map-lengths.awk - from `strace -f -y -e trace=mmap,munmap`, check
# that every mapping of a file under PREFIX (awk -v prefix=DIR) or of a
# memfd is unmapped with the address and length it was mapped with, and
# that no munmap reaches into such a mapping from elsewhere: an munmap
# longer than its mapping takes a neighbour's pages, which no sanitizer
# sees.  Prints each bad call, then "maps=N memfd=N unmaps=N bad=N";
# exits 1 on a bad call or when nothing was mapped (the check would
# prove nothing).
function hex(s,    i, c, v) {
	v = 0
	s = tolower(substr(s, 3))
	for (i = 1; i <= length(s); i++) {
		c = index("0123456789abcdef", substr(s, i, 1)) - 1
		v = v * 16 + c
	}
	return v
}
function bad(what) {
	nbad++
	print "bad: " what ": " $0
}
{
	pid = $1
	# a call cut by another thread's: keep its start for the resumed line
	if ($0 ~ /<unfinished \.\.\.>$/) {
		sub(/ *<unfinished \.\.\.>$/, "")
		held[pid] = $0
		next
	}
	if ($0 ~ /<\.\.\. (mmap|munmap) resumed>/ && (pid in held)) {
		rest = $0
		sub(/^.*<\.\.\. (mmap|munmap) resumed> */, "", rest)
		$0 = held[pid] rest
		delete held[pid]
	}
}
/(^|[ ])mmap\(/ && match($0, /mmap\([^,]*, [0-9]+, [^,]*, [^,]*, [0-9]+<[^>]*>/) {
	call = substr($0, RSTART, RLENGTH)
	split(call, f, ", ")
	len = f[2] + 0
	path = f[5]
	sub(/^[0-9]+</, "", path)
	sub(/>$/, "", path)
	# a memfd's name reads "/memfd:NAME (deleted)"
	if (path ~ /^\/?memfd:/)
		nmemfd++
	else if (index(path, prefix) != 1)
		next
	if (!match($0, /= 0x[0-9a-f]+$/))
		next
	# keyed by the address as printed: a number this large would be
	# made a subscript through CONVFMT ("%.6g") by some awks
	addr = substr($0, RSTART + 2)
	start[addr] = len
	at[addr] = hex(addr)
	nmaps++
	next
}
/(^|[ ])munmap\(0x[0-9a-f]+, [0-9]+\) += 0/ {
	match($0, /munmap\(0x[0-9a-f]+, [0-9]+/)
	split(substr($0, RSTART + 7, RLENGTH - 7), f, ", ")
	len = f[2] + 0
	if (f[1] in start) {
		if (start[f[1]] != len)
			bad("mapped " start[f[1]] " bytes, unmapped " len)
		delete start[f[1]]
		nunmaps++
		next
	}
	a = hex(f[1])
	for (b in start)
		if (a < at[b] + start[b] && at[b] < a + len)
			bad("reaches into a mapping of " start[b] " bytes")
}
END {
	printf "maps=%d memfd=%d unmaps=%d bad=%d\n", nmaps, nmemfd, nunmaps,
	    nbad
	exit (nbad > 0 || nmaps == 0) ? 1 : 0
}
