#!/usr/bin/python3
# mj_tlsrptcheck.py - a TLS-RPT report message (RFC 8460) read with
# Python's email and json packages, not mjq's code, for t/230-mta-sts.bats.
#
#   mj_tlsrptcheck.py MESSAGE
#
# Prints the facts a test compares, one a line:
#   header NAME: VALUE        TLS-Report-Domain, TLS-Report-Submitter,
#                             Subject, the report-type of Content-Type
#   part TYPE                 each MIME part's type
#   report ORG | CONTACT | ID | START | END
#   policy TYPE DOMAIN ok=N failed=N mx=A,B string=L1|L2
#   failure RESULT mx=HOST ip=RIP from=SIP count=N [reason=CODE]
#                             (a field the report leaves out: "-"; the
#                             reason only when failure-reason-code is
#                             there)
# Exit 1 when the message is not a multipart/report with exactly one
# application/tlsrpt+json part holding valid JSON.
import email
import email.policy
import json
import sys


def main():
    with open(sys.argv[1], "rb") as f:
        msg = email.message_from_binary_file(f, policy=email.policy.default)
    for name in ("TLS-Report-Domain", "TLS-Report-Submitter", "Subject"):
        print("header %s: %s" % (name, msg[name]))
    if msg.get_content_type() != "multipart/report":
        return 1
    print("header report-type: %s" % msg.get_param("report-type"))
    reports = []
    for part in msg.iter_parts():
        print("part %s" % part.get_content_type())
        if part.get_content_type() == "application/tlsrpt+json":
            reports.append(part.get_payload(decode=True))
    if len(reports) != 1:
        return 1
    r = json.loads(reports[0].decode("ascii"))
    d = r["date-range"]
    print("report %s | %s | %s | %s | %s" % (
        r["organization-name"], r["contact-info"], r["report-id"],
        d["start-datetime"], d["end-datetime"]))
    for p in r["policies"]:
        pol, s = p["policy"], p["summary"]
        print("policy %s %s ok=%d failed=%d mx=%s string=%s" % (
            pol["policy-type"], pol["policy-domain"],
            s["total-successful-session-count"],
            s["total-failure-session-count"],
            ",".join(pol.get("mx-host", [])),
            "|".join(pol.get("policy-string", []))))
        for f in p.get("failure-details", []):
            print("failure %s mx=%s ip=%s from=%s count=%d%s" % (
                f["result-type"], f.get("receiving-mx-hostname", "-"),
                f.get("receiving-ip", "-"), f.get("sending-mta-ip", "-"),
                f["failed-session-count"],
                " reason=" + f["failure-reason-code"]
                if "failure-reason-code" in f else ""))
    return 0


sys.exit(main())
