#!/usr/bin/python3
# mj_dkimverify.py - check every DKIM signature of a message with
# python3-dkim (dkimpy, Debian's python3-dkim), software that is not
# mjq's, for t/750-dkim.bats.
#
#   mj_dkimverify.py [-n COUNT] MESSAGE KEYDIR...
#
# The public keys come from the <selector>.dns records mjq-dkimkey writes
# in the KEYDIRs (no DNS needed).  One line per signature:
# "pass|fail a=ALG s=SELECTOR d=DOMAIN"; exit 0 when there are COUNT
# signatures (default: at least one) and all pass, 1 otherwise.
import glob
import re
import sys

import dkim


def records(dirs):
    """name -> TXT text, from the .dns files of dirs"""
    out = {}
    for d in dirs:
        for path in glob.glob(d + "/*.dns"):
            with open(path) as f:
                text = f.read()
            name = text.split()[0].lower().encode()
            out[name] = "".join(re.findall(r'"([^"]*)"', text)).encode()
    return out


def dns_of(keys):
    """the dnsfunc python3-dkim asks for a TXT record: from keys"""
    def dnsfunc(name, timeout=5):
        return keys.get(name.lower() if name.endswith(b".")
                        else name.lower() + b".")
    return dnsfunc


def main():
    args = sys.argv[1:]
    want = None
    if args[:1] == ["-n"]:
        want = int(args[1])
        args = args[2:]
    if len(args) < 2:
        print("usage: mj_dkimverify.py [-n COUNT] MESSAGE KEYDIR...",
              file=sys.stderr)
        return 2
    with open(args[0], "rb") as f:
        msg = f.read()
    dnsfunc = dns_of(records(args[1:]))

    d = dkim.DKIM(msg)
    sigs = [v for k, v in d.headers if k.lower() == b"dkim-signature"]
    ok = len(sigs) > 0 if want is None else len(sigs) == want
    for i, sig in enumerate(sigs):
        tags = dict(re.findall(rb"\b([a-z]+)=([^;]*)", re.sub(rb"\s+", b"", sig)))
        why = ""
        try:
            good = dkim.DKIM(msg).verify(idx=i, dnsfunc=dnsfunc)
        except dkim.DKIMException as e:
            good, why = False, " (%s)" % e
        ok = ok and good
        print("%s a=%s s=%s d=%s%s" % ("pass" if good else "fail",
              tags.get(b"a", b"?").decode(), tags.get(b"s", b"?").decode(),
              tags.get(b"d", b"?").decode(), why))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
