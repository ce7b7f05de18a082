#!/usr/bin/env python3
"""Prints scripts/bench-peer.sh's report from its raw.jsonl.

Usage: bench-peer-table.py RAW.jsonl CPU-LINE VERSION-LINE

Every figure is a median over the rounds with the rounds' min–max beside
it; a row takes each side at its own best thread count (the highest
median), named after the @. Ratios are isagi's median over llama.cpp's.
"""
import json
import statistics
import sys
from collections import defaultdict


def load(path):
    rows = []
    with open(path) as f:
        for line in f:
            d = json.loads(line)
            if "error" in d:
                print(f"<!-- {d['section']} {d['model']} {d['side']} t={d['t']} p={d['p']}: {d['error']} -->")
                continue
            rows.append(d)
    return rows


def stats(vals):
    vals = [v for v in vals if v]
    if not vals:
        return None
    return statistics.median(vals), min(vals), max(vals)


def best(rows, key):
    """The thread count with the highest median of key, and its stats."""
    by_t = defaultdict(list)
    for r in rows:
        if key in r:
            by_t[r["t"]].append(r[key])
    top = None
    for t, vals in by_t.items():
        s = stats(vals)
        if s and (top is None or s[0] > top[1][0]):
            top = (t, s)
    return top


def fmt(b, digits=0):
    if b is None:
        return "–"
    t, (med, lo, hi) = b
    return f"{med:.{digits}f} ({lo:.{digits}f}–{hi:.{digits}f}) @{t}"


def ratio(a, b):
    if a is None or b is None:
        return "–"
    return f"**{a[1][0] / b[1][0]:.2f}**"


def main():
    rows = load(sys.argv[1])
    cpu, version = sys.argv[2], sys.argv[3]
    print(f"CPU: {cpu}  ")
    print(f"{version}  ")
    kernels = {r["kernels"] for r in rows if r.get("kernels")}
    if kernels:
        print(f"isagi kernels: {', '.join(sorted(kernels))}  ")
    prefill = {r["prefill_kernels"] for r in rows if r.get("prefill_kernels")}
    if prefill:
        print(f"isagi prefill kernels: {', '.join(sorted(prefill))}")
    print()
    sel = defaultdict(list)
    for r in rows:
        sel[(r["section"], r["model"], r["side"], r["p"])].append(r)

    types = [r for r in rows if r["section"] == "types"]
    if types:
        models = list(dict.fromkeys(r["model"] for r in types))
        ps = sorted({r["p"] for r in types if r["side"] == "isagi"})
        tgp = ps[0]
        head = "| model |"
        for p in ps:
            head += f" prefill{p} isagi | llama.cpp | ratio |"
        head += " decode isagi | llama.cpp | ratio |"
        print("### Prefill and decode by type (tok/s)\n")
        print(head)
        print("|---|" + "---:|" * (3 * len(ps) + 3))
        for m in models:
            line = f"| {m} |"
            for p in ps:
                i = best(sel[("types", m, "isagi", p)], "pp")
                ll = best(sel[("types", m, "llama.cpp", p)], "pp")
                line += f" {fmt(i)} | {fmt(ll)} | {ratio(i, ll)} |"
            i = best(sel[("types", m, "isagi", tgp)], "tg")
            ll = best(sel[("types", m, "llama.cpp", 0)], "tg")
            line += f" {fmt(i, 1)} | {fmt(ll, 1)} | {ratio(i, ll)} |"
            print(line)
        print()

    big = [r for r in rows if r["section"] == "big"]
    if big:
        print("### 3B and 8B shapes: decode against the memory roofline\n")
        print("| model | weights MB/token | decode isagi | llama.cpp | ratio | isagi % of triad | llama.cpp % of triad | prefill64 isagi | llama.cpp | ratio |")
        print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
        for m in dict.fromkeys(r["model"] for r in big):
            iso = [r for r in big if r["model"] == m and r["side"] == "isagi"]
            lls = [r for r in big if r["model"] == m and r["side"] == "llama.cpp"]
            if not iso:
                continue
            wmb = iso[0]["weight_mb"]
            triad = stats([r["triad"] for r in iso])
            i, ll = best(iso, "tg"), best(lls, "tg")
            pct = lambda b: "–" if b is None or not triad else f"{100 * b[1][0] * wmb / 1e3 / triad[0]:.0f}%"
            ip, lp = best(iso, "pp"), best(lls, "pp")
            print(f"| {m} | {wmb:.0f} | {fmt(i, 2)} | {fmt(ll, 2)} | {ratio(i, ll)} | {pct(i)} | {pct(ll)} | {fmt(ip, 1)} | {fmt(lp, 1)} | {ratio(ip, lp)} |")
        if any(r["triad"] for r in big if r["side"] == "isagi"):
            t = stats([r["triad"] for r in big if r["side"] == "isagi"])
            print(f"\nSTREAM triad (isagi bench's probe, same run): {t[0]:.1f} GB/s ({t[1]:.1f}–{t[2]:.1f}).")
            rd = stats([r.get("read", 0) for r in big if r["side"] == "isagi" and r.get("read")])
            if rd:
                print(f"Read-only stream (the same probe): {rd[0]:.1f} GB/s ({rd[1]:.1f}–{rd[2]:.1f}).")
        print()

    depth = [r for r in rows if r["section"] == "depth"]
    if depth:
        m = depth[0]["model"]
        kvts = list(dict.fromkeys(r.get("kvt", "f32") for r in depth if r["side"] == "isagi"))
        kvb = {r.get("kvt", "f32"): r.get("kv") for r in depth if r["side"] == "isagi" and r.get("kv")}
        print(f"### Long context: {m}, prefill of D tokens, then decode at depth D (tok/s)\n")
        print("isagi's KV cache: " + ", ".join(f"{k} {kvb.get(k, '?')} bytes a token" for k in kvts)
              + "; llama.cpp's is f16 (its default).\n")
        head = "| depth D |" + "".join(f" prefill isagi {k} |" for k in kvts) + " llama.cpp | ratio |"
        head += "".join(f" decode isagi {k} |" for k in kvts) + " llama.cpp | ratio |"
        print(head)
        print("|---:|" + "---:|" * (2 * len(kvts) + 4))
        for d in sorted({r["p"] for r in depth}):
            ll = sel[("depth", m, "llama.cpp", d)]
            iso = {k: [r for r in sel[("depth", m, "isagi", d)] if r.get("kvt", "f32") == k] for k in kvts}
            lp, lt = best(ll, "pp"), best(ll, "tg")
            ips = {k: best(v, "pp") for k, v in iso.items()}
            its = {k: best(v, "tg") for k, v in iso.items()}
            # The ratio takes isagi's best cache type for each figure.
            top = lambda bs: max((b for b in bs.values() if b), key=lambda b: b[1][0], default=None)
            line = f"| {d} |" + "".join(f" {fmt(ips[k])} |" for k in kvts) + f" {fmt(lp)} | {ratio(top(ips), lp)} |"
            line += "".join(f" {fmt(its[k], 1)} |" for k in kvts) + f" {fmt(lt, 1)} | {ratio(top(its), lt)} |"
            print(line)
        print("\nThe ratios take isagi's faster cache type.\n")

    cont = [r for r in rows if r["section"] == "contention"]
    if cont:
        m = cont[0]["model"]
        print(f"### Under contention: {m} decode with one busy process on the machine (tok/s)\n")
        print("| side | 1 thread | 2 threads | 2 ÷ 1 | 2-thread steps run on one thread |")
        print("|---|---:|---:|---:|---:|")
        # isagi's pool times its decode steps on both threads and on one
        # and keeps the faster; "pinned" is --pin-threads, the choice off.
        for side, pinned, label in (("isagi", False, "isagi"), ("isagi", True, "isagi --pin-threads"), ("llama.cpp", False, "llama.cpp")):
            mine = [r for r in cont if r["side"] == side and bool(r.get("pinned")) == pinned]
            one = stats([r.get("tg") for r in cont if r["side"] == side and r["t"] == 1 and not r.get("pinned")])
            two = stats([r.get("tg") for r in mine if r["t"] == 2])
            f = lambda s: "–" if s is None else f"{s[0]:.1f} ({s[1]:.1f}–{s[2]:.1f})"
            rt = "–" if not one or not two else f"**{two[0] / one[0]:.2f}**"
            solo = sum(r.get("solo_steps", 0) for r in mine if r["t"] == 2)
            steps = solo + sum(r.get("parallel_steps", 0) for r in mine if r["t"] == 2)
            share = f"{solo} of {steps}" if steps else "–"
            print(f"| {label} | {f(one) if not pinned else '–'} | {f(two)} | {rt} | {share} |")
        print()


if __name__ == "__main__":
    main()
