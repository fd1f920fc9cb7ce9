#!/usr/bin/python3
"""archive_mbox.py N SEED - an mbox of N posts for t/bench/archive.sh:
threads of realistic shape (a reply quotes and references a recent
post; about a third of posts start a thread), bodies of 200 B to 20 KB,
charsets utf-8 (8bit), iso-8859-1 (quoted-printable) and utf-8 (base64),
one post in 20 HTML-only, one in 25 with an attachment; dates a few
minutes apart from 2024-01-01."""
import base64
import email.utils
import quopri
import random
import sys

n = int(sys.argv[1])
rnd = random.Random(int(sys.argv[2]) if len(sys.argv) > 2 else 1)
words = ("list archive thread message reply subject mail server queue "
         "runner digest moderation bounce delivery scheduler spool "
         "patch review release build test commit branch café naïve "
         "straße").split()
out = sys.stdout.buffer
posts = []  # (msgid, subject, refs)
t = 1704067200
for i in range(n):
    t += rnd.randint(30, 900)
    mid = "b%d.%d@bench.test" % (i, rnd.randint(0, 10**9))
    refs = []
    if posts and rnd.random() < 0.66:
        p = posts[max(0, len(posts) - rnd.randint(1, 200))]
        refs = (p[2] + [p[0]])[-10:]
        subject = p[1] if p[1].startswith("Re: ") else "Re: " + p[1]
    else:
        subject = " ".join(rnd.choice(words) for _ in range(rnd.randint(3, 8)))
    posts.append((mid, subject, refs))
    size = int(min(20000, max(200, rnd.lognormvariate(7, 1))))
    lines = []
    if refs:
        lines += ["> " + " ".join(rnd.choice(words) for _ in range(10))
                  for _ in range(rnd.randint(1, 6))]
    while sum(len(x) + 1 for x in lines) < size:
        lines.append(" ".join(rnd.choice(words) for _ in range(12)))
    body = "\n".join(lines) + "\n"
    who = rnd.randint(1, 500)
    head = ("From: User %d <user%d@bench.test>\nTo: list@example.org\n"
            "Subject: %s\nDate: %s\nMessage-ID: <%s>\n" %
            (who, who, subject, email.utils.formatdate(t), mid))
    if refs:
        head += ("References: %s\nIn-Reply-To: <%s>\n" %
                 (" ".join("<%s>" % r for r in refs), refs[-1]))
    kind = rnd.random()
    if i % 20 == 7:
        part = ("MIME-Version: 1.0\nContent-Type: text/html; charset=utf-8\n"
                "\n<html><body><p>" + body.replace("\n", "</p>\n<p>") +
                "</p></body></html>\n").encode()
        text = head.encode() + part
    elif kind < 0.2:
        qp = quopri.encodestring(body.encode("iso-8859-1", "replace"))
        text = (head + "MIME-Version: 1.0\nContent-Type: text/plain; "
                "charset=iso-8859-1\nContent-Transfer-Encoding: "
                "quoted-printable\n\n").encode() + qp
    elif kind < 0.3:
        b64 = base64.encodebytes(body.encode())
        text = (head + "MIME-Version: 1.0\nContent-Type: text/plain; "
                "charset=utf-8\nContent-Transfer-Encoding: base64\n\n"
                ).encode() + b64
    else:
        text = (head + "MIME-Version: 1.0\nContent-Type: text/plain; "
                "charset=utf-8\nContent-Transfer-Encoding: 8bit\n\n"
                + body).encode()
    if i % 25 == 3:
        att = base64.encodebytes(bytes(rnd.getrandbits(8) for _ in range(3000)))
        hdr, _, bod = text.partition(b"\n\n")
        hdr = b"\n".join(l for l in hdr.split(b"\n")
                         if not l.startswith((b"MIME-Version", b"Content-")))
        text = (hdr + b"\nMIME-Version: 1.0\nContent-Type: multipart/mixed; "
                b"boundary=\"bb\"\n\n--bb\nContent-Type: text/plain; "
                b"charset=utf-8\n\n" + body.encode() + b"\n--bb\n"
                b"Content-Type: application/octet-stream; name=\"data.bin\"\n"
                b"Content-Disposition: attachment; filename=\"data.bin\"\n"
                b"Content-Transfer-Encoding: base64\n\n" + att + b"--bb--\n")
    out.write(b"From user%d@bench.test %s\n" %
              (who, email.utils.formatdate(t)[:-6].encode()))
    for line in text.split(b"\n"):
        if line.lstrip(b">").startswith(b"From "):
            line = b">" + line
        out.write(line + b"\n")
    out.write(b"\n")
