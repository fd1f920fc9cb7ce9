#!/usr/bin/python3
# mj_digestcheck.py - read a digest with Python's email package, not
# mjq's code, for t/790-digest.bats.
#
#   mj_digestcheck.py [-c] [-t] MESSAGE
#
# Prints the digest's Subject, then one line per post in it: "From |
# Subject" (the post's own header fields, their RFC 2047 words decoded
# by Python); with -c, then "--- contents" and each line of the table of
# contents as "subject | author"; with -t, then "--- text" and each
# post's text as a reader sees it (the plain digest's entry; in a MIME
# digest, the post's text/plain part decoded from its charset and
# transfer encoding).  A MIME digest must be multipart/digest whose first part is
# the text/plain table of contents and whose other parts are
# message/rfc822; a plain one text/plain in RFC 1153's layout (the table
# of contents, a line of 70 hyphens, posts separated by 30, the
# trailer).  Each post listed in the table of contents in order, with
# the address of its From.  The list's footer may end either once: a
# last text/plain part of the MIME one, a last entry without a header of
# the plain one; it is printed after "--- footer".  Exit
# 1, with the reason, when the digest is not so.
import email
import email.policy
import re
import sys


def fail(why):
    print("bad digest: " + why)
    sys.exit(1)


def toc(text):
    """(subject, author) of each line of the table of contents"""
    if "Today's Topics:" not in text:
        fail("no table of contents")
    body = text.split("Today's Topics:", 1)[1]
    return re.findall(r"^ *\d+\. (.*) \((.*)\)$", body, re.M)


def entry(h, text):
    """a post's (From, Subject, its address, text)"""
    addrs = [a.addr_spec for a in h["From"].addresses]
    return (str(h["From"]), str(h["Subject"]), addrs, text)


def inner_text(inner):
    """the text of a post in a MIME digest, as a mail reader shows it"""
    body = inner.get_body(preferencelist=("plain",))
    if body is None:
        return ""
    try:
        return body.get_content()
    except LookupError:  # a charset Python does not know either
        return body.get_payload(decode=True).decode("utf-8", "replace")


def mime(msg):
    parts = msg.get_payload()
    if not parts or parts[0].get_content_type() != "text/plain":
        fail("the first part is not the text/plain table of contents")
    posts = []
    footer = None
    if len(parts) > 1 and parts[-1].get_content_type() == "text/plain":
        footer = parts.pop().get_content()
    for p in parts[1:]:
        if p.get_content_type() != "message/rfc822":
            fail("a part is " + p.get_content_type())
        inner = p.get_payload()[0]
        posts.append(entry(inner, inner_text(inner)))
    return toc(parts[0].get_content()), posts, footer


def plain(msg):
    text = msg.get_content()
    head, sep, rest = text.partition("\n" + "-" * 70 + "\n\n")
    if not sep:
        fail("no line of 70 hyphens after the table of contents")
    chunks = rest.split("\n------------------------------\n\n")
    if not chunks[-1].startswith("End of "):
        fail("no trailer")
    posts = []
    footer = None
    if len(chunks) > 1 and not re.match(r"^[A-Za-z-]+:", chunks[-2]):
        footer = chunks.pop(-2)
    for c in chunks[:-1]:
        h = email.message_from_string(c, policy=email.policy.default)
        posts.append(entry(h, c.split("\n\n", 1)[1] if "\n\n" in c else ""))
    return toc(head), posts, footer


def main():
    args = sys.argv[1:]
    contents = args[:1] == ["-c"]
    if contents:
        args = args[1:]
    text = args[:1] == ["-t"]
    if text:
        args = args[1:]
    with open(args[0], "rb") as f:
        msg = email.message_from_binary_file(f, policy=email.policy.default)
    ct = msg.get_content_type()
    if ct == "multipart/digest":
        subjects, posts, footer = mime(msg)
    elif ct == "text/plain":
        subjects, posts, footer = plain(msg)
    else:
        fail("content type " + ct)
    if [s for s, _ in subjects] != [p[1] for p in posts]:
        fail("the table of contents does not list the posts: %r %r"
             % (subjects, posts))
    for (_, author), p in zip(subjects, posts):
        if not p[2] or any(a not in author for a in p[2]):
            fail("the table of contents names %r for a post from %r"
                 % (author, p[0]))
    print(msg["Subject"])
    for p in posts:
        print("%s | %s" % (p[0], p[1]))
    if contents:
        print("--- contents")
        for subject, author in subjects:
            print("%s | %s" % (subject, author))
    if text:
        print("--- text")
        for p in posts:
            print(p[3], end="" if p[3].endswith("\n") else "\n")
    if footer is not None:
        print("--- footer")
        print(footer, end="" if footer.endswith("\n") else "\n")


main()
