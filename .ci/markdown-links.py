#!/usr/bin/env python3
"""Fails when a Markdown file links to a file the repository does not
have, or, unless it follows --external, outside the repository.

    python3 .ci/markdown-links.py README.md --external Benchmarks/README.md Benchmarks/HISTORY.md

A reader of a fresh clone (or of the package offline) must be able to
follow every link of the README; images count as links. Files after
--external may also name the projects they compare with.
"""
import os
import re
import sys

LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)\)")
problems = []
external_allowed = False
for document in sys.argv[1:]:
    if document == "--external":
        external_allowed = True
        continue
    base = os.path.dirname(os.path.abspath(document))
    with open(document, encoding="utf-8") as text:
        for number, line in enumerate(text, start=1):
            for target in LINK.findall(line):
                where = f"{document}:{number}: {target}"
                if re.match(r"^[a-z][a-z0-9+.-]*:", target, re.IGNORECASE):
                    if not external_allowed:
                        problems.append(f"{where}: links outside the repository")
                    continue
                path = target.split("#", 1)[0]
                if path and not os.path.exists(os.path.join(base, path)):
                    problems.append(f"{where}: no such file")
for problem in problems:
    print(problem)
sys.exit(1 if problems else 0)
