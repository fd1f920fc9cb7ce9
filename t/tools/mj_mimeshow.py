#!/usr/bin/env python3
# mj_mimeshow.py FILE - a delivered message's MIME tree as Python's email
# package reads it (not mjq's parser): one line per part, indented by
# depth, "type charset=... cte=...".  With -t, each text part's decoded
# text follows its line, between "<<<" and ">>>".
import email
import email.policy
import sys


def show(part, depth, text):
    cs = part.get_content_charset() or ""
    cte = (part.get("Content-Transfer-Encoding") or "").lower()
    print("%s%s charset=%s cte=%s" % ("  " * depth, part.get_content_type(), cs, cte))
    if part.is_multipart():
        for sub in part.get_payload():
            show(sub, depth + 1, text)
    elif text and part.get_content_maintype() == "text":
        raw = part.get_payload(decode=True) or b""
        print("<<<")
        sys.stdout.write(raw.decode(cs or "us-ascii", errors="replace").replace("\r\n", "\n"))
        print(">>>")


def main():
    args = sys.argv[1:]
    text = False
    if args and args[0] == "-t":
        text = True
        args = args[1:]
    with open(args[0], "rb") as f:
        msg = email.message_from_binary_file(f, policy=email.policy.compat32)
    show(msg, 0, text)


main()
