#!/usr/bin/env python3
"""burst.py — the load t1010-concurrency-crash.sh puts on one database.

Each `thatch mcp` server gets its whole burst of memory_remember calls
written to its stdin at once (pipelined, as a busy host would send them),
so that the servers write as fast as they can, side by side; a call is
*acknowledged* when its answer says "[saved] <store> :: <label>". Counts
and seeds are fixed, so every run does the same work; only the
interleaving is left to the machine, and the checks hold for any.

    burst.py write WRITERS CALLS SEEDS   writers, CLI readers and forgets at once
    burst.py crash ROUNDS SERVERS CALLS  kill -9 every server mid-burst, ROUNDS times
    burst.py hooks ROUNDS HOOKS KB       buffer-batch hooks killed mid-write

Each mode prints one JSON object of what happened (acknowledged labels,
failures, counts) for the script to check; nothing is judged here.
"""
import json, os, random, re, signal, subprocess, sys, threading, time

BIN = os.environ["THATCH_BIN"]
STORE = "c"
INIT = {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
    "protocolVersion": "2025-11-25", "capabilities": {},
    "clientInfo": {"name": "burst", "version": "1"}}}


def remember(i, label):
    return {"jsonrpc": "2.0", "id": i, "method": "tools/call", "params": {
        "name": "memory_remember", "arguments": {
            "label": label, "store": STORE,
            "content": f"{label}: written under load, number {i}"}}}


class Server:
    """One `thatch mcp` with its burst of remembers already on its stdin."""

    def __init__(self, labels):
        self.labels = labels
        self.acked = []
        self.proc = subprocess.Popen([BIN, "mcp"], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL)
        lines = [INIT] + [remember(i + 1, l) for i, l in enumerate(labels)]
        payload = "".join(json.dumps(m) + "\n" for m in lines).encode()
        # a thread writes, so that a full stdout pipe cannot stall stdin
        self.feeder = threading.Thread(target=self._feed, args=(payload,))
        self.feeder.start()

    def _feed(self, payload):
        try:
            self.proc.stdin.write(payload)
            self.proc.stdin.close()
        except (BrokenPipeError, ValueError):
            pass	# killed mid-burst

    def answers(self):
        """Yield each acknowledged label as its answer arrives."""
        for line in self.proc.stdout:
            try:
                msg = json.loads(line)
                text = msg["result"]["content"][0]["text"]
                label = self.labels[msg["id"] - 1]
            except (ValueError, KeyError, IndexError, TypeError):
                continue
            if text.startswith(f"[saved] {STORE} :: {label}"):
                self.acked.append(label)
                yield label

    def finish(self):
        for _ in self.answers():
            pass
        self.feeder.join()
        return self.proc.wait()


def cli(*args):
    """Run thatch ARGS: (exit status, stdout, stderr)."""
    p = subprocess.run([BIN, *args], capture_output=True, text=True)
    return p.returncode, p.stdout, p.stderr


def stored_labels():
    rc, out, err = cli("list", STORE)
    if rc != 0:
        sys.exit(f"burst.py: thatch list failed: {err.strip()}")
    return {m.group(1) for m in re.finditer(
        rf"^\[{STORE}\] (.*) \(\S+\)$", out, re.M)}


def write(writers, calls, seeds):
    """writers servers x calls remembers; CLI readers and forgets beside."""
    seed_labels = [f"seed {i}" for i in range(seeds)]
    Server(seed_labels).finish()
    servers = [Server([f"w{w} m{i}" for i in range(calls)])
               for w in range(writers)]
    collectors = [threading.Thread(target=s.finish) for s in servers]
    for t in collectors:
        t.start()
    busy = lambda: any(t.is_alive() for t in collectors)
    failures, runs, forgotten = [], [0], []

    def reader(rng):
        while busy():
            # writer 0's labels may be forgotten meanwhile: show others'
            done = [l for s in servers[1:] for l in s.acked[:]]
            args = [("list", STORE), ("search", "written under load", STORE),
                    ("show", rng.choice(done) if done else "seed 0", STORE)]
            for a in args:
                rc, out, err = cli(*a)
                runs[0] += 1
                if rc != 0 or not out:
                    failures.append(f"thatch {' '.join(a)}: exit {rc}: "
                                    f"{err.strip()[:200]}")

    def forgetter():
        # the seeds, then every 25th of writer 0's once it is saved
        later = [f"w0 m{i}" for i in range(0, calls, 25)]
        for label in seed_labels + later:
            while label not in servers[0].acked and label in later:
                if not collectors[0].is_alive():
                    break	# never saved: "acked" tells
                time.sleep(0.005)
            if label in later and label not in servers[0].acked:
                continue
            rc, out, err = cli("forget", label, STORE)
            if rc == 0 and out.startswith(f"[forgotten] {STORE} :: "):
                forgotten.append(label)
            else:
                failures.append(f"thatch forget {label}: exit {rc}: "
                                f"{out.strip()[:100]} {err.strip()[:200]}")

    helpers = [threading.Thread(target=reader, args=(random.Random(k),))
               for k in range(2)] + [threading.Thread(target=forgetter)]
    for t in helpers:
        t.start()
    for t in collectors + helpers:
        t.join()
    acked = [l for s in servers for l in s.acked]
    have = stored_labels()
    return {"acked": len(acked), "forgotten": len(forgotten),
            "forgotten_seeds": len([l for l in forgotten if l in seed_labels]),
            "lost": sorted(set(acked) - set(forgotten) - have)[:5],
            "forgotten_but_present": sorted(set(forgotten) & have)[:5],
            "cli_runs": runs[0], "cli_failures": failures[:5],
            "exits": [s.proc.returncode for s in servers]}


def crash(rounds, servers, calls):
    """Each round: servers bursts; kill -9 them all once some are saved."""
    rng = random.Random(1010)
    acked, bad, unkilled = [], [], 0
    db = os.environ["THATCH_DB_PATH"]
    for r in range(rounds):
        group = [Server([f"r{r} s{k} m{i}" for i in range(calls)])
                 for k in range(servers)]
        # kill once this many are saved in all: mid-burst by construction
        target = rng.randrange(5, calls * servers // 2)
        seen = [0]
        lock = threading.Lock()
        go = threading.Event()

        def collect(s):
            for _ in s.answers():
                with lock:
                    seen[0] += 1
                    if seen[0] >= target:
                        go.set()
        ts = [threading.Thread(target=collect, args=(s,)) for s in group]
        for t in ts:
            t.start()
        if not go.wait(60):
            bad.append(f"round {r}: fewer than {target} saves in 60 s")
        for s in group:
            s.proc.send_signal(signal.SIGKILL)
        killed = 0
        for s, t in zip(group, ts):
            t.join()	# the answers already in the pipe count too
            s.feeder.join()
            killed += s.proc.wait() == -signal.SIGKILL
            acked += s.acked
        unkilled += killed == 0
        p = subprocess.run(["sqlite3", db, "PRAGMA integrity_check"],
                           capture_output=True, text=True)
        if p.stdout.strip() != "ok":
            bad.append(f"round {r}: integrity_check: "
                       f"{(p.stdout + p.stderr).strip()[:300]}")
    have = stored_labels()
    return {"acked": len(acked), "lost": sorted(set(acked) - have)[:5],
            "integrity": bad[:5], "rounds_nothing_killed": unkilled,
            "unacked_stored": len(have - set(acked))}


def hooks(rounds, n, kb):
    """n buffer-batch hooks at a time, each killed after a seeded delay;
    then one more that lives per session, which must not glue its record
    onto whatever a killed one left."""
    rng = random.Random(1011)
    procs = 0
    for r in range(rounds):
        group = []
        for k in range(n):
            # the first of each round lives, so that lines get written
            delay = rng.uniform(0, 0.02) if k else None
            group.append((hook(k, r, kb), delay))
        start = time.monotonic()
        for p, delay in sorted(group[1:], key=lambda g: g[1]):
            time.sleep(max(0, start + delay - time.monotonic()))
            p.send_signal(signal.SIGKILL)
        for p, _ in group:
            p.wait()
            procs += 1
    for k in range(n):
        hook(k, rounds, 1).wait()
    qdir = os.path.join(os.environ["XDG_CACHE_HOME"], "thatch", "queue")
    lines, torn = 0, []
    for name in sorted(os.listdir(qdir)) if os.path.isdir(qdir) else []:
        if not name.endswith(".jsonl"):
            continue
        with open(os.path.join(qdir, name), "rb") as f:
            for no, line in enumerate(f, 1):
                lines += 1
                try:
                    json.loads(line)
                except ValueError:
                    torn.append(f"{name}:{no}: {line[:80]!r}...")
    return {"hooks": procs, "lines": lines, "torn": torn[:5]}


def hook(k, r, kb):
    """Start buffer-batch for session crash-K with two calls of KB each
    (a string response, as of a failed call, and an object one)."""
    big = "x" * (kb * 1024)
    calls = [{"tool_name": "Bash", "tool_use_id": f"t{r}-{k}-{j}",
              "tool_input": {"command": f"make round {r} hook {k}"},
              "tool_response": big if j % 2 else {
                  "stdout": big, "stderr": "", "interrupted": False}}
             for j in range(2)]
    # a session per hook: fewer records than the queue's cap
    stdin = json.dumps({"session_id": f"crash-{k}",
                        "hook_event_name": "PostToolBatch",
                        "cwd": os.getcwd(), "tool_calls": calls}).encode()
    p = subprocess.Popen([BIN, "buffer-batch"], stdin=subprocess.PIPE,
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    threading.Thread(target=_give, args=(p, stdin)).start()
    return p


def _give(p, data):
    try:
        p.stdin.write(data)
        p.stdin.close()
    except (BrokenPipeError, ValueError):
        pass


if __name__ == "__main__":
    mode, *nums = sys.argv[1:]
    result = {"write": write, "crash": crash, "hooks": hooks}[mode](
        *map(int, nums))
    print(json.dumps(result, sort_keys=True))
