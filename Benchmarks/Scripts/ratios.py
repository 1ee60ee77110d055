#!/usr/bin/env python3
"""Turns one `swift package benchmark` text report into the README table.

Benchmarks are named "scenario / system". For each scenario the median
(p50) wall-clock time of every system is divided by the hand-written
median of the same run, so ratios never mix numbers taken at different
times. Mallocs are the p50 of "Malloc (total)" per operation.

Usage: swift package benchmark --no-progress | tee run.txt
       python3 Scripts/ratios.py run.txt
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
    text = open(sys.argv[1], encoding="utf-8").read() if len(sys.argv) > 1 else sys.stdin.read()
    results = parse(text)
    scenarios = []
    for scenario, _ in results:
        if scenario not in scenarios:
            scenarios.append(scenario)
    print("| scenario | system | ns/op (p50) | × hand-written | mallocs/op (p50) |")
    print("| --- | --- | ---: | ---: | ---: |")
    for scenario in scenarios:
        systems = [(system, values) for (s, system), values in results.items() if s == scenario]
        base = dict(systems).get("hand-written", {}).get("ns")
        for system, values in systems:
            ns = values.get("ns")
            ratio = f"{ns / base:.2f}" if ns is not None and base else "–"
            ns_text = f"{ns:,.0f}" if ns is not None else "–"
            mallocs = values.get("mallocs")
            mallocs_text = f"{mallocs:g}" if mallocs is not None else "–"
            print(f"| {scenario} | {system} | {ns_text} | {ratio} | {mallocs_text} |")


if __name__ == "__main__":
    main()
