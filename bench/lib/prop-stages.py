#!/usr/bin/env python3
"""prop-stages.py LABEL=GLOB [LABEL=GLOB]: per-stage p50/p90/p99 of grant -> enforced from the timelines that
GrantEnforced writes with STAGES=1 (one line per op: op grant t0 ce_time produced seen flip api bytes, wall-clock
micros; see bench/java/GrantEnforced.java). With two labels (BEFORE's side first), the last column is the
ratio of the second's p99 to the first's.

Stages, in series (each op's stages add up to its total):
  1 HTTP in       call start -> grant-service stamped the change (ce_time; before its transaction)
  2 tx + relay    ce_time -> snapshot record produced (Kafka CreateTime, ms resolution: +-1 ms per op)
                  = the transaction's round trips, COMMIT, the relay's wake-up, lock+read, signing, send
  3 Kafka         produced -> a read_committed bystander consumer had it (acks=all, the fetch long-poll)
  4 gate + probe  bystander had it -> the probe saw the gate's answer flip (the gate's own fetch, apply,
                  the probe's next create; negative when the gate fetched it before the bystander)
"""
import glob
import sys

STAGES = [
    ("1 HTTP in (call -> ce_time)", lambda r: r["ce"] - r["t0"]),
    ("2 tx + relay (ce_time -> produced)", lambda r: r["produced"] - r["ce"]),
    ("3 Kafka (produced -> consumed)", lambda r: r["seen"] - r["produced"]),
    ("4 gate + probe (consumed -> flip)", lambda r: r["flip"] - r["seen"]),
    ("total call -> flip", lambda r: r["flip"] - r["t0"]),
    ("API answer (wait=5s)", lambda r: r["api"] - r["t0"]),
]


def rows(pattern):
    out = []
    for f in sorted(glob.glob(pattern)):
        for line in open(f):
            if line.startswith("#") or not line.strip():
                continue
            v = line.split()
            out.append(dict(grant=v[1] == "true", t0=int(v[2]), ce=int(v[3]), produced=int(v[4]), seen=int(v[5]),
                            flip=int(v[6]), api=int(v[7]), bytes=int(v[8])))
    return out


def pct(xs, p):
    # nearest rank, as bench/java/Bench.percentile
    xs = sorted(xs)
    i = max(0, min(len(xs) - 1, -(-p * len(xs) // 100) - 1))
    return xs[i]


def stats(rs):
    res = {}
    for name, f in STAGES:
        xs = [f(r) / 1000.0 for r in rs]
        res[name] = (len(xs), pct(xs, 50), pct(xs, 90), pct(xs, 99), sum(xs) / len(xs)) if xs else None
    return res


sides = []
for arg in sys.argv[1:]:
    label, pattern = arg.split("=", 1)
    rs = rows(pattern)
    if not rs:
        sys.exit("no timelines match " + pattern)
    sides.append((label, rs, stats(rs)))

for label, rs, st in sides:
    size = sum(r["bytes"] for r in rs) / len(rs)
    print(f"### {label}: {len(rs)} ops, snapshot record value {size:.0f} B")
    print("| stage (ms) | n | p50 | p90 | p99 | mean |")
    print("|---|---|---|---|---|---|")
    for name, _ in STAGES:
        n, p50, p90, p99, mean = st[name]
        print(f"| {name} | {n} | {p50:.2f} | {p90:.2f} | {p99:.2f} | {mean:.2f} |")
    print()
if len(sides) == 2:
    (a, _, sa), (b, _, sb) = sides
    print(f"### {b} / {a}, per stage")
    print(f"| stage | {a} p50 | {b} p50 | {a} p99 | {b} p99 | p99 {b}/{a} |")
    print("|---|---|---|---|---|---|")
    for name, _ in STAGES:
        pa, pb = sa[name], sb[name]
        ratio = pb[3] / pa[3] if pa[3] > 0 else float("nan")
        print(f"| {name} | {pa[1]:.2f} | {pb[1]:.2f} | {pa[3]:.2f} | {pb[3]:.2f} | {ratio:.2f} |")
