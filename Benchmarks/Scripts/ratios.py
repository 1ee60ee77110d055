#!/usr/bin/env python3
"""Turns one `swift package benchmark` text report into the README table.

Benchmarks are named "scenario / system". For each scenario the median
(p50) wall-clock time of every system is divided by the hand-written
median of the same run, so ratios never mix numbers taken at different
times. Mallocs are the p50 of "Malloc (total)" per operation.

Usage: swift package benchmark --no-progress | tee run.txt
       python3 Scripts/ratios.py run.txt
       python3 Scripts/ratios.py run1.txt run2.txt run3.txt   # one column pair per run
"""
import re
import sys

HEADER = re.compile(r"^(\d+ [^/│]+?) / (.+?)\s*$")


def p50(row):
    cells = [c.strip() for c in row.split("│")[1:-1]]
    # Metric │ p0 │ p25 │ p50 │ …
    return float(cells[3].replace(",", "").replace("K", "e3").replace("M", "e6"))


def parse(text):
    results = {}
    current = None
    for line in text.splitlines():
        line = line.rstrip()
        match = HEADER.match(line)
        if match and "│" not in line:
            current = (match.group(1).strip(), match.group(2).strip())
            results[current] = {}
            continue
        if current is None or "│" not in line:
            continue
        if "Time (wall clock)" in line:
            unit = re.search(r"\((ns|μs|us|ms)\)", line)
            scale = {"ns": 1, "μs": 1e3, "us": 1e3, "ms": 1e6}[unit.group(1) if unit else "ns"]
            results[current]["ns"] = p50(line) * scale
        elif "Malloc (total)" in line:
            results[current]["mallocs"] = p50(line)
    return results


def main():
    """One run: ns, ratio and mallocs. Several runs (one file each): ns and
    ratio per run, each ratio against the hand-written median of its own
    run, and the mallocs of the first."""
    paths = sys.argv[1:]
    runs = [parse(open(path, encoding="utf-8").read()) for path in paths] if paths else [parse(sys.stdin.read())]
    scenarios, keys = [], []
    for key in runs[0]:
        keys.append(key)
        if key[0] not in scenarios:
            scenarios.append(key[0])
    # The report sorts names as text ("10 …" before "2 …"); by number here.
    scenarios.sort(key=lambda scenario: int(scenario.split()[0]))
    if len(runs) == 1:
        print("| scenario | system | ns/op (p50) | × hand-written | mallocs/op (p50) |")
        print("| --- | --- | ---: | ---: | ---: |")
    else:
        heads = " | ".join(f"run {n} ns/op | run {n} × hand" for n in range(1, len(runs) + 1))
        print(f"| scenario | system | {heads} | mallocs/op |")
        print("| --- | --- | " + " | ".join("---: | ---:" for _ in runs) + " | ---: |")
    for scenario in scenarios:
        for key in [k for k in keys if k[0] == scenario]:
            cells = []
            for run in runs:
                base = run.get((scenario, "hand-written"), {}).get("ns")
                ns = run.get(key, {}).get("ns")
                cells.append(f"{ns:,.0f}" if ns is not None else "–")
                cells.append(f"{ns / base:.2f}" if ns is not None and base else "–")
            mallocs = runs[0][key].get("mallocs")
            cells.append(f"{mallocs:g}" if mallocs is not None else "–")
            print(f"| {scenario} | {key[1]} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
