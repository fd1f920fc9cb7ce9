#!/usr/bin/python3
# mj_digestcheck.py - read a digest with Python's email package, not
# mjq's code, for t/89-digest.bats.
#
#   mj_digestcheck.py MESSAGE
#
# Prints the digest's Subject, then one line per post in it: "From |
# Subject".  A MIME digest must be multipart/digest whose first part is
# the text/plain table of contents and whose other parts are
# message/rfc822; a plain one text/plain in RFC 1153's layout (the table
# of contents, a line of 70 hyphens, posts separated by 30, the
# trailer).  Each post listed in the table of contents in order.  Exit
# 1, with the reason, when the digest is not so.
import email
import email.policy
import re
import sys


def fail(why):
    print("bad digest: " + why)
    sys.exit(1)


def toc(text):
    """the subjects of the table of contents"""
    if "Today's Topics:" not in text:
        fail("no table of contents")
    body = text.split("Today's Topics:", 1)[1]
    return re.findall(r"^ *\d+\. (.*) \(.*\)$", body, re.M)


def mime(msg):
    parts = msg.get_payload()
    if not parts or parts[0].get_content_type() != "text/plain":
        fail("the first part is not the text/plain table of contents")
    posts = []
    for p in parts[1:]:
        if p.get_content_type() != "message/rfc822":
            fail("a part is " + p.get_content_type())
        inner = p.get_payload()[0]
        posts.append((str(inner["From"]), str(inner["Subject"])))
    return toc(parts[0].get_content()), posts


def plain(msg):
    text = msg.get_content()
    head, sep, rest = text.partition("\n" + "-" * 70 + "\n\n")
    if not sep:
        fail("no line of 70 hyphens after the table of contents")
    chunks = rest.split("\n------------------------------\n\n")
    if not chunks[-1].startswith("End of "):
        fail("no trailer")
    posts = []
    for c in chunks[:-1]:
        h = email.message_from_string(c, policy=email.policy.default)
        posts.append((str(h["From"]), str(h["Subject"])))
    return toc(head), posts


def main():
    with open(sys.argv[1], "rb") as f:
        msg = email.message_from_binary_file(f, policy=email.policy.default)
    ct = msg.get_content_type()
    if ct == "multipart/digest":
        subjects, posts = mime(msg)
    elif ct == "text/plain":
        subjects, posts = plain(msg)
    else:
        fail("content type " + ct)
    if subjects != [s for _, s in posts]:
        fail("the table of contents does not list the posts: %r %r"
             % (subjects, posts))
    print(msg["Subject"])
    for frm, subj in posts:
        print("%s | %s" % (frm, subj))


main()
