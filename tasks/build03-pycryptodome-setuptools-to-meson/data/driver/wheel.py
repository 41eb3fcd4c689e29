# Reads the one wheel in DIST as an installer does and prints what the
# distribution promises, compared by meaning rather than by spelling: the
# name and version, the ABI and platform components of its tags (the
# interpreter component is left out), whether RECORD agrees with every
# member's bytes, and the core metadata fields (authors as name and address,
# URLs as a set over Home-page and Project-URL, classifiers as a set,
# Requires-Python as a set of clauses). Run as python3 -I wheel.py DIST.
import base64
import email.parser
import email.utils
import hashlib
import os
import sys
import zipfile

dist = sys.argv[1]
wheels = sorted(f for f in os.listdir(dist) if f.endswith(".whl"))
print("wheels", len(wheels))
if len(wheels) != 1:
    sys.exit(0)
name = wheels[0][:-4]
parts = name.split("-")
print("distribution", parts[0])
print("version", parts[1])
print("filename-abi", parts[-2])
print("filename-platform", parts[-1])

z = zipfile.ZipFile(os.path.join(dist, wheels[0]))
members = z.namelist()
infos = sorted({m.split("/")[0] for m in members if m.split("/")[0].endswith(".dist-info")})
print("dist-info", " ".join(infos))
if len(infos) != 1:
    sys.exit(0)
info = infos[0]

wheel = email.parser.Parser().parsestr(z.read(info + "/WHEEL").decode())
print("root-is-purelib", wheel.get("Root-Is-Purelib"))
tags = wheel.get_all("Tag") or []
print("wheel-tag-abis", " ".join(sorted({t.split("-")[1] for t in tags})))
print("wheel-tag-platforms", " ".join(sorted({t.split("-")[2] for t in tags})))

problems = []
listed = set()
for line in z.read(info + "/RECORD").decode().splitlines():
    if not line.strip():
        continue
    path, digest, size = line.rsplit(",", 2)
    listed.add(path)
    if path == info + "/RECORD":
        continue
    if path not in members:
        problems.append("listed, not in the wheel: " + path)
        continue
    data = z.read(path)
    alg, _, want = digest.partition("=")
    got = base64.urlsafe_b64encode(hashlib.new(alg, data).digest()).rstrip(b"=").decode()
    if got != want or str(len(data)) != size:
        problems.append("digest or size differs: " + path)
for m in members:
    if m not in listed and not m.endswith("/"):
        problems.append("in the wheel, not listed: " + m)
print("record", "consistent" if not problems else "%d problem(s)" % len(problems))
for p in sorted(problems):
    print("  " + p)

meta = email.parser.Parser().parsestr(z.read(info + "/METADATA").decode("utf-8"))
for field in ("Name", "Version", "Summary", "License"):
    print("meta-" + field.lower(), meta.get(field))
rp = meta.get("Requires-Python") or ""
print("meta-requires-python", " ".join(sorted(c.replace(" ", "") for c in rp.split(",") if c.strip())))
names, addrs = set(), set()
for field in ("Author", "Maintainer"):
    for v in meta.get_all(field) or []:
        names.update(n.strip() for n in v.split(",") if n.strip())
for field in ("Author-email", "Maintainer-email"):
    for v in meta.get_all(field) or []:
        for n, a in email.utils.getaddresses([v]):
            if n:
                names.add(n)
            if a:
                addrs.add(a)
print("meta-author-names", "; ".join(sorted(names)))
print("meta-author-addresses", "; ".join(sorted(addrs)))
urls = set()
if meta.get("Home-page"):
    urls.add(meta.get("Home-page").rstrip("/"))
for v in meta.get_all("Project-URL") or []:
    urls.add(v.split(",", 1)[1].strip().rstrip("/"))
for u in sorted(urls):
    print("meta-url", u)
for c in sorted(set(meta.get_all("Classifier") or [])):
    print("meta-classifier", c)
for r in sorted(meta.get_all("Requires-Dist") or []):
    print("meta-requires-dist", r)
