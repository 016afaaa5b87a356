import os, re, sys
root = sys.argv[1] if len(sys.argv) > 1 else '/work/main/code'
crates = []
for dp, dn, fn in os.walk(root):
    dn[:] = [d for d in dn if d not in ('target', 'results', '.git')]
    if 'Cargo.toml' in fn and dp != root:
        crates.append(dp)
crate_dirs = set(crates)
def count(path):
    s = open(path).read().split('\n')
    for i, l in enumerate(s):
        if l.strip() == '#[cfg(test)]' and i + 1 < len(s) and re.match(r'\s*(pub\s+)?mod\s+\w+', s[i + 1]):
            s = s[:i]; break
    code = sum(1 for l in s if l.strip() and not l.strip().startswith('//'))
    return len(s), code
tot = [0, 0]
for c in sorted(crates):
    lines = code = files = 0
    for dp, dn, fn in os.walk(c):
        dn[:] = [d for d in dn if os.path.join(dp, d) not in crate_dirs and d not in ('tests', 'target')]
        rel = os.path.relpath(dp, c)
        if not (rel == '.' or rel.startswith('src') or rel.startswith('benches')):
            continue
        for f in fn:
            if not f.endswith('.rs') or f == 'tests.rs': continue
            if rel == '.' and f != 'build.rs': continue
            a, b = count(os.path.join(dp, f)); lines += a; code += b; files += 1
    print(f'{os.path.relpath(c, root):22} {lines:7} {code:7} {files:4}')
    tot[0] += lines; tot[1] += code
print(f'{"TOTAL":22} {tot[0]:7} {tot[1]:7}')
