#!/bin/sh
# b710-chat.sh — what cross-session chat costs in the opencode core, timed
# from the plugin's side (one `thatch opencode` on a pipe per "opencode
# process", one JSON line per request), on a directory of 50 sessions and
# an inbox that grows to 1,700 messages:
#   send        a thatch_chat_send from a hosted session (round trip)
#   tick        the poller's tick hosting 10 sessions: 10 heartbeats and
#               the delivery checks, nothing to deliver
#   wake        an idle status with one new message: claim + wake prompt
#   read        thatch_chat_read of one message
#   broadcast   to 50 participants (50 rows in one transaction)
# Numbers: bench/README.md.
set -eu
cd "$(dirname "$0")/.."
make -s -j2 thatch
T=$(mktemp -d /tmp/thatch-b710.XXXXXX)
trap 'rm -rf "$T"' EXIT
cp thatch "$T/thatch"	# immune to a rebuild while it runs
export HOME=$T/home XDG_CONFIG_HOME=$T/home/.config XDG_CACHE_HOME=$T/home/.cache
export THATCH_DB_PATH=$T/thatch.db TMPDIR=$T THATCH_WARMUP=0
export THATCH_CHAT_WAKE_CAP=100	# every wake measured delivers
mkdir -p "$HOME" "$T/proj"
git -C "$T/proj" init -q
cd "$T/proj"
python3 - "$T/thatch" <<'PY'
import json, statistics, subprocess, sys, time
exe = sys.argv[1]

def spawn():
    return subprocess.Popen([exe, "opencode"], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, text=True, bufsize=1)

def ask(p, req):
    t = time.perf_counter()
    p.stdin.write(json.dumps(req) + "\n")
    p.stdin.flush()
    res = json.loads(p.stdout.readline())
    return (time.perf_counter() - t) * 1e3, res

def show(name, xs):
    xs = sorted(xs)
    print(f"| {name} | {statistics.median(xs):.2f} ms | {xs[0]:.2f} ms |"
          f" {xs[int(len(xs) * 0.9)]:.2f} ms | {len(xs)} |")

def ev(p, typ, props):
    return ask(p, {"id": 1, "op": "event", "event": {"type": typ, "properties": props}})

def tool(p, name, sid, args):
    return ask(p, {"id": 1, "op": "tool", "name": "thatch_" + name,
                   "sessionID": sid, "args": args})

a, b = spawn(), spawn()
for p in (a, b):
    ask(p, {"id": 1, "op": "init"})
for i in range(40):	# registered elsewhere, and quiet
    ev(a, "session.created", {"info": {"id": f"x{i}", "title": "New session"}})
hosted = [f"s{i}" for i in range(10)]
for s in hosted:
    ev(b, "session.created", {"info": {"id": s, "title": f"Work on part {s}"}})
ev(a, "session.created", {"info": {"id": "me", "title": "The sender"}})
names = {}
for s in hosted:
    names[s] = tool(b, "chat_status", s, {})[1]["output"].split()[3].rstrip(":")
send, wake, read, tick = [], [], [], []
for i in range(200):
    s = hosted[i % 10]
    send.append(tool(a, "chat_send", "me", {"to": names[s], "body": f"message {i}"})[0])
    ask(a, {"id": 1, "op": "after", "tool": "thatch_chat_send", "sessionID": "me", "args": {}, "output": {}})
    ms, res = ev(b, "session.status", {"sessionID": s, "status": {"type": "idle"}})
    assert any(x.get("do") == "prompt" for x in res["actions"]), res
    wake.append(ms)
    read.append(tool(b, "chat_read", s, {})[0])
    ask(b, {"id": 1, "op": "after", "tool": "thatch_chat_read", "sessionID": s, "args": {}, "output": {}})
    tick.append(ask(b, {"id": 1, "op": "tick"})[0])
bc = []
for i in range(30):
    bc.append(tool(a, "chat_broadcast", "me", {"body": f"all hands {i}"})[0])
    ask(a, {"id": 1, "op": "after", "tool": "thatch_chat_broadcast", "sessionID": "me", "args": {}, "output": {}})
print("| step | median | min | p90 | runs |\n| --- | --- | --- | --- | --- |")
show("send", send)
show("wake: idle status, claim, prompt", wake)
show("read one message", read)
show("tick: 10 hosted sessions", tick)
show("broadcast to 50 participants", bc)
for p in (a, b):
    p.stdin.close(); p.wait()
PY
