#!/bin/sh
# b700-opencode.sh — what the opencode plugin's core adds, measured the way
# the plugin talks to it (one `thatch opencode` on a pipe, one JSON line
# per hook), on a store of 10,000 memories (random unit vectors) in a git
# repository, with bge-small's exact architecture (random weights):
#   start          spawn + the init answer: what the plugin's load adds
#                  to opencode's start (fresh process each time)
#   after          tool.execute.after, a bash call buffered (round trip)
#   message        chat.message with a new prompt each time (round trip),
#                  and from the core's timing line the embedding and the
#                  three nudges (recall, predictions, behaviors) apart
# Numbers: bench/README.md.
set -eu
cd "$(dirname "$0")/.."
model=$PWD/bench/out/bge-small
[ -f "$model/model.safetensors" ] || bench/random-bert "$model" --shape bge-small
make -s -j2 thatch
T=$(mktemp -d /tmp/thatch-b700.XXXXXX)
trap 'rm -rf "$T"' EXIT
cp thatch "$T/thatch"	# immune to a rebuild while it runs
export HOME=$T/home XDG_CONFIG_HOME=$T/home/.config XDG_CACHE_HOME=$T/home/.cache
export THATCH_DB_PATH=$T/thatch.db TMPDIR=$T THATCH_MODEL=$model
export THATCH_DEBUG=opencode:time
mkdir -p "$HOME" "$T/proj"
git -C "$T/proj" init -q && git -C "$T/proj" remote add origin git@github.com:acme/api.git
"$T/thatch" stores >/dev/null
python3 - "$THATCH_DB_PATH" <<'PY'
import math, random, sqlite3, struct, sys
db = sqlite3.connect(sys.argv[1])
db.execute("INSERT INTO stores (name) VALUES ('acme/api')")
rnd = random.Random(1)
def vec():
    v = [rnd.gauss(0, 1) for _ in range(384)]
    s = math.sqrt(sum(x * x for x in v))
    return struct.pack("<384f", *(x / s for x in v))
db.executemany("INSERT INTO entries (slug, store, label, content, embedding,"
    " model, created_at, updated_at) VALUES (?, 'acme/api', ?, ?, ?,"
    " 'Xenova/bge-small-en-v1.5', '2025-01-01T00:00:00.000Z',"
    " '2025-01-01T00:00:00.000Z')",
    ((f"memory-{n}", f"Memory {n}", f"# Memory {n}\n\nbody {n}", vec())
     for n in range(10000)))
db.commit()
PY
cd "$T/proj"
python3 - "$T/thatch" "$T/thatch.db" <<'PY'
import json, os, re, statistics, subprocess, sys, time
exe, db = sys.argv[1], sys.argv[2]
log = os.path.join(os.path.dirname(db), "debug.log")

def spawn():
    return subprocess.Popen([exe, "opencode"], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, text=True, bufsize=1)

def ask(p, req):
    t = time.perf_counter()
    p.stdin.write(json.dumps(req) + "\n")
    p.stdin.flush()
    json.loads(p.stdout.readline())
    return (time.perf_counter() - t) * 1e3

def show(name, xs):
    xs = sorted(xs)
    print(f"| {name} | {statistics.median(xs):.2f} ms | {xs[0]:.2f} ms |"
          f" {xs[int(len(xs) * 0.9)]:.2f} ms | {len(xs)} |")

print("| step | median | min | p90 | runs |\n| --- | --- | --- | --- | --- |")
starts = []
for i in range(30):
    t = time.perf_counter()
    p = spawn()
    ask(p, {"id": 1, "op": "init", "directory": os.getcwd()})
    starts.append((time.perf_counter() - t) * 1e3)
    p.stdin.close(); p.wait()
show("start: spawn + init", starts)

p = spawn()
ask(p, {"id": 1, "op": "init"})
ask(p, {"id": 2, "op": "message", "sessionID": "w", "parts": [
    {"type": "text", "text": "warm the model up before measuring"}]})
after = [ask(p, {"id": 3, "op": "after", "tool": "bash", "sessionID": "s",
                 "args": {"command": f"git log -{i}"},
                 "output": {"title": "git log", "output": "abc first\n" * 20,
                            "metadata": {}}}) for i in range(300)]
show("after: one bash call buffered", after)
open(log, "w").close()
msgs = [ask(p, {"id": 4, "op": "message", "sessionID": "s", "parts": [
    {"type": "text", "text": f"how do we build and test module {i} here?"}]})
    for i in range(60)]
show("message: round trip", msgs)
emb, nud = [], []
for line in open(log):
    m = re.search(r"embed ([0-9.]+) ms, nudges ([0-9.]+) ms", line)
    if m:
        emb.append(float(m.group(1))); nud.append(float(m.group(2)))
show("message: the embedding (core)", emb)
show("message: the three nudges (core)", nud)
show("message: all but the embedding", [a - b for a, b in zip(msgs, emb)])
p.stdin.close(); p.wait()
PY
