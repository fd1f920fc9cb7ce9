#!/usr/bin/python3
# mj_arcverify.py - check the ARC chain of a message with python3-dkim's
# arc_verify (dkimpy, Debian's python3-dkim), software that is not mjq's,
# for t/751-arc.bats.
#
#   mj_arcverify.py [-f] MESSAGE KEYDIR...
#
# The public keys come from the <selector>.dns records mjq-dkimkey writes
# in the KEYDIRs (no DNS needed).  Prints "cv=RESULT i=N" (RESULT: what
# arc_verify makes of the whole chain; N: the newest instance), then one
# line per instance, newest first: "i=N as=ok|bad ams=ok|bad cv=CV".
# Exit 0 when the chain passes.  With -f the newest set is one sealed
# cv=fail (RFC 8617 5.1.2: its seal covers its own set only): it is
# checked alone, the older sets taken out, and exit 0 means its seal and
# its message signature both verify.
import re
import sys

import dkim

sys.path.insert(0, __file__.rsplit("/", 1)[0])
from mj_dkimverify import dns_of, records  # noqa: E402


def instance(value):
    m = re.search(rb"(?:^|;)\s*i\s*=\s*(\d+)", value)
    return int(m.group(1)) if m else 0


def newest_alone(msg):
    """msg with only its newest ARC set"""
    head, sep, body = msg.partition(b"\r\n\r\n")
    if not sep:
        head, sep, body = msg.partition(b"\n\n")
    fields = re.split(rb"\r?\n(?![ \t])", head)
    arc = [f for f in fields
           if f.split(b":", 1)[0].strip().lower() in dkim.ARC.ARC_HEADERS]
    top = max(instance(f.split(b":", 1)[1]) for f in arc)
    keep = [f for f in fields
            if f.split(b":", 1)[0].strip().lower() not in dkim.ARC.ARC_HEADERS
            or instance(f.split(b":", 1)[1]) == top]
    nl = b"\r\n" if b"\r\n" in head else b"\n"
    return nl.join(keep) + sep + body


def main():
    args = sys.argv[1:]
    alone = args[:1] == ["-f"]
    if alone:
        args = args[1:]
    if len(args) < 2:
        print("usage: mj_arcverify.py [-f] MESSAGE KEYDIR...",
              file=sys.stderr)
        return 2
    with open(args[0], "rb") as f:
        msg = f.read()
    dnsfunc = dns_of(records(args[1:]))

    if alone:
        msg = newest_alone(msg)
    cv, results, why = dkim.arc_verify(msg, dnsfunc=dnsfunc)
    top = results[0]["instance"] if results else 0
    print("cv=%s i=%d %s" % ((cv or b"terminated").decode(), top, why))
    for r in results:
        print("i=%d as=%s ams=%s cv=%s" % (
            r["instance"], "ok" if r.get("as-valid") else "bad",
            "ok" if r.get("ams-valid") else "bad", r["cv"].decode()))
    if alone:
        r = results[0] if results else {}
        return 0 if r.get("as-valid") and r.get("ams-valid") and \
            r.get("cv") == b"fail" else 1
    return 0 if cv == dkim.CV_Pass else 1


if __name__ == "__main__":
    sys.exit(main())
