#!/usr/bin/env python3
"""Lists functions longer than N lines (default 150) in C++ files: a brace-matching heuristic
over clang-formatted code. A function starts at a line whose code ends a parameter list with `{`
(`) {`, `) const {`, `) override {`, `-> T {`) outside another function body."""
import re, sys
limit = int(sys.argv[1]) if len(sys.argv) > 1 and sys.argv[1].isdigit() else 150
files = [a for a in sys.argv[1:] if not a.isdigit()]
sig = re.compile(r'\)\s*(const)?\s*(noexcept)?\s*(override|final)?\s*(->\s*[\w:<>, ]+)?\s*\{\s*$')
bad = 0
for path in files:
    lines = open(path, encoding='utf-8', errors='replace').read().split('\n')
    depth = 0; in_fn = None
    for i, raw in enumerate(lines):
        line = re.sub(r'//.*', '', raw)
        line = re.sub(r'"(\\.|[^"\\])*"', '""', line)
        line = re.sub(r"'(\\.|[^'\\])*'", "''", line)
        if in_fn is None and sig.search(line) and not re.match(r'\s*(if|for|while|switch|catch)\b', line) and '[' not in line.split('(')[0]:
            in_fn = (i, depth, raw.strip())
        depth += line.count('{') - line.count('}')
        if in_fn is not None and depth <= in_fn[1] and i > in_fn[0]:
            n = i - in_fn[0] + 1
            if n > limit:
                print(f'{path}:{in_fn[0]+1}: {n} lines: {in_fn[2][:90]}'); bad += 1
            in_fn = None
sys.exit(1 if bad else 0)
