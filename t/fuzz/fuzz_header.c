/*
 * fuzz_header - libFuzzer target: the runner's header handling.
 *
 * Any bytes as a stored message.  header_end must point inside
 * the text; header_return_path must fill no more than it is given (the
 * size comes from the first input byte) and NUL-terminate; the header a
 * list post is delivered with (post_compose, the list options taken
 * from the second byte) must carry exactly one of each list header,
 * none of the poster's, and the body byte for byte (or, wrapped for
 * DMARC, the whole post inside), and a munged From only once; text_file_plain
 * must drop at most the leading Return-Path.  The delivered text lives
 * in a memfd, read back here.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "lists.h"
#include "listfn.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* fuzz_read - the delivered text of m (malloc'd), closing its memfd */
static char *
fuzz_read(struct listfn_msg *m)
{
	char *buf;

	if ((buf = malloc((size_t)m->datasize + 1)) == NULL)
		abort();
	if (pread(m->datafd, buf, (size_t)m->datasize, 0) != m->datasize)
		abort();
	buf[m->datasize] = '\0';
	close(m->datafd);
	m->datafd = -1;
	return buf;
}

/* fuzz_count - header lines (up to the first empty line) named name */
static int
fuzz_count(const char *text, size_t len, const char *name)
{
	const char *p = text, *end = text + len, *nl;
	size_t k = strlen(name);
	int n = 0;

	while (p < end && *p != '\n') {
		if ((size_t)(end - p) > k && strncasecmp(p, name, k) == 0 &&
		    p[k] == ':')
			n++;
		if ((nl = memchr(p, '\n', (size_t)(end - p))) == NULL)
			break;
		p = nl + 1;
	}
	return n;
}

/* fuzz_list - post_compose and its invariants */
static void
fuzz_list(const char *text, size_t len, unsigned opt)
{
	static const char *const reply_to[] = {
	    "", "none", "list", "owner@example.org"};
	static const char *const prefix[] = {
	    "", "[$LIST]", "$LIST$LIST:", "Re:"};
	/* The list's own headers replace the poster's; X-Loop is added
	 * beside those of other lists, which stay for their loop checks. */
	static const char *const mine[] = {"List-Id", "List-Post", "List-Help",
	    "List-Unsubscribe", "List-Subscribe", "List-Owner", "Precedence"};
	static struct listfn_msg m;
	struct post_texts none = {NULL, NULL, NULL};
	struct listconf lc;
	const char *hend = header_end(text, len);
	size_t blen = (size_t)(text + len - hend), hlen, i;
	char *out, addr[SPOOL_ADDR_MAX + 1], name[256];
	int poster;

	memset(&lc, 0, sizeof(lc));
	strlcpy(lc.reply_to, reply_to[opt & 3], sizeof(lc.reply_to));
	strlcpy(lc.subject_prefix, prefix[(opt >> 2) & 3],
	    sizeof(lc.subject_prefix));
	/* DMARC mitigation: none, munge (as munge_if_strict resolves to
	 * when the poster's domain is strict), munge, wrap */
	lc.dmarc_mitigation = (int)((opt >> 4) & 3);
	poster = dmarc_from(text, (size_t)(hend - text), addr, sizeof(addr),
		     name, sizeof(name)) == 0;
	strlcpy(m.list, "mylist", sizeof(m.list));
	strlcpy(m.domain, "example.org", sizeof(m.domain));
	m.datafd = -1;
	if (post_compose(&m, &lc, &none, text, len) == -1)
		return;
	out = fuzz_read(&m);
	if (lc.dmarc_mitigation == DMARC_MIT_WRAP && poster) {
		/* the post travels whole inside; the outer header ends at
		 * the first empty line */
		hlen = (size_t)(header_end(out, (size_t)m.datasize) - out);
		if (blen > 0 &&
		    memmem(out, (size_t)m.datasize, hend, blen) == NULL)
			abort();
	} else {
		hlen = (size_t)m.datasize - blen;
		if ((size_t)m.datasize < blen ||
		    memcmp(out + m.datasize - blen, hend, blen) != 0)
			abort(); /* the body is delivered as it came */
	}
	for (i = 0; i < sizeof(mine) / sizeof(mine[0]); i++)
		if (fuzz_count(out, hlen, mine[i]) != 1)
			abort();
	if (fuzz_count(out, hlen, "Return-Path") != 0 ||
	    fuzz_count(out, hlen, "X-Loop") < 1)
		abort();
	/* A list that sets Reply-To replaces the poster's. */
	if (lc.reply_to[0] != '\0' && strcmp(lc.reply_to, "none") != 0 &&
	    fuzz_count(out, hlen, "Reply-To") != 1)
		abort();
	/* A munged post has one From, the list's. */
	if (lc.dmarc_mitigation != DMARC_MIT_NONE && poster &&
	    (fuzz_count(out, hlen, "From") != 1 ||
		memmem(out, hlen, " <mylist@example.org>\n", 22) == NULL))
		abort();
	free(out);
}

/* fuzz_plain - text_file_plain: a suffix of the text, Return-Path out */
static void
fuzz_plain(const char *text, size_t len)
{
	static struct listfn_msg m;
	char *out;

	m.datafd = -1;
	if (text_file_plain(&m, text, len) == -1)
		return;
	out = fuzz_read(&m);
	if ((size_t)m.datasize > len ||
	    memcmp(out, text + len - m.datasize, (size_t)m.datasize) != 0)
		abort();
	free(out);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *text, *hend;
	char *out;
	size_t len, outlen;
	unsigned opt;

	if (size < 2)
		return 0;
	outlen = data[0] == 0 ? 1 : data[0];
	opt = data[1];
	text = (const char *)data + 2;
	len = size - 2;
	hend = header_end(text, len);
	if (hend < text || hend > text + len)
		abort();
	if ((out = malloc(outlen)) == NULL)
		return 0;
	if (header_return_path(text, len, out, outlen) == 0) {
		if (strlen(out) >= outlen)
			abort();
	} else if (out[0] != '\0')
		abort();
	free(out);
	fuzz_list(text, len, opt);
	fuzz_plain(text, len);
	return 0;
}
