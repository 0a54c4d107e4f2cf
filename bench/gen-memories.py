#!/usr/bin/env python3
"""gen-memories.py — realistic coding-agent memories for the recall-at-scale
benchmark (bench/b800-scale.sh, issue 28).

  gen-memories.py N STORE [SEED]
	print a JSONL export (docs/export.md) of N memories in STORE, without
	vectors, for `thatch import` to embed with the model in effect (the
	real write path). Each memory is 200-600 characters of the kind an
	agent saves: a build or test command, an env var and its effect, a
	path and what lives there, a gotcha with an error message, written
	from a few hundred paths, commands, env vars and error strings, so
	that labels are distinct and contents share the vocabulary real
	stores share (common words everywhere, identifiers in a few).

  gen-memories.py grow DB N STORE [SEED]
	print a JSONL export of N more memories (labels from N on) whose
	vectors are mixes of three of DB's, normalised, with DB's model tag,
	for `thatch import` to keep: the random model's cone (every score
	0.93-0.96) at sizes its one-at-a-time embedding would take hours to
	write on a loaded 2-core machine.

  gen-memories.py spread DB DIM [SEED]
	rewrite every embedding of DB with the "spread" synthetic distribution:
	64 topic centres (unit Gaussian), each memory 0.55 * its topic's
	centre + 0.45 * its own Gaussian direction, normalised. Pairwise
	cosines then run from ~0 (other topics) to ~0.6 (same topic), about
	what bge-small gives unrelated vs related texts, instead of the
	random model's 0.93-0.96 for everything.
"""
import json
import math
import random
import sqlite3
import struct
import sys

DIRS = ["src/core", "src/api", "src/web/components", "internal/auth",
        "pkg/storage", "scripts", "tests/e2e", "services/billing",
        "cmd/server", "lib/utils", "app/models", "config", "deploy/k8s",
        "packages/ui/src", "crates/engine/src", "docs"]
NAMES = ["session", "cache", "router", "migrate", "payment", "invoice",
         "webhook", "token", "scheduler", "queue", "parser", "indexer",
         "upload", "search", "config", "logger", "metrics", "retry",
         "auth", "user", "billing", "export", "import", "sync", "render"]
EXTS = [".ts", ".go", ".py", ".rs", ".c", ".tsx", ".rb", ".java"]
CMDS = ["make -j4 test", "npm run build", "pnpm test --filter api",
        "go test ./...", "cargo test --workspace", "pytest -x -q",
        "docker compose up -d db", "bundle exec rspec", "yarn lint --fix",
        "./scripts/bootstrap.sh", "kubectl rollout restart deploy/api",
        "terraform plan -out=tfplan", "npx prisma migrate dev",
        "poetry run alembic upgrade head", "gradle :app:check"]
ENVS = ["DATABASE_URL", "REDIS_URL", "NODE_ENV", "LOG_LEVEL", "API_TOKEN",
        "STRIPE_SECRET_KEY", "AWS_REGION", "RUST_LOG", "GOFLAGS",
        "PYTHONPATH", "FEATURE_FLAGS", "SENTRY_DSN", "PORT", "CI",
        "OTEL_EXPORTER_OTLP_ENDPOINT"]
ERRS = ["ECONNREFUSED 127.0.0.1:5432", "ERR_SSL_PROTOCOL_ERROR",
        "TypeError: Cannot read properties of undefined",
        "panic: runtime error: index out of range",
        "ModuleNotFoundError: No module named", "EADDRINUSE :::3000",
        "deadlock detected", "SQLITE_BUSY: database is locked",
        "413 Payload Too Large", "context deadline exceeded"]
KINDS = ["Build", "Test", "Env", "Layout", "Gotcha", "Deploy", "Convention"]
FILL = ["The team decided this after a long debugging session.",
        "Do not change it without talking to the owners first.",
        "This only matters on CI; locally the default works.",
        "Remember to run the migrations before the tests.",
        "The old behaviour is kept for backward compatibility.",
        "It is slower on macOS because of the file watcher.",
        "See the pull request for the discussion and benchmarks.",
        "The staging cluster uses a different value than production."]


def path(r):
    return r.choice(DIRS) + "/" + r.choice(NAMES) + r.choice(EXTS)


def memory(r, i):
    kind = r.choice(KINDS)
    n1, n2 = r.choice(NAMES), r.choice(NAMES)
    label = "%s: %s %s #%d" % (kind, n1, n2, i)
    parts = [
        "In %s the %s module talks to %s through %s." % (
            path(r), n1, n2, path(r)),
        "Run `%s` before pushing; set %s=%s when it fails with \"%s\"." % (
            r.choice(CMDS), r.choice(ENVS), r.choice(["1", "debug", "0",
            "localhost:6379", "eu-west-1"]), r.choice(ERRS)),
        "Tests for this live in %s and need %s set." % (
            path(r), r.choice(ENVS)),
    ]
    body = " ".join(parts)
    want = r.randint(200, 600)
    while len(body) < want - 40:
        body += " " + r.choice(FILL)
    return label, body[:want]


def gen(n, store, seed):
    r = random.Random(seed)
    out = sys.stdout
    out.write('{"type":"thatch-export","version":1}\n')
    out.write(json.dumps({"type": "store", "name": store}) + "\n")
    t = "2026-12-01T10:00:00.000Z"
    for i in range(n):
        label, body = memory(r, i)
        rec = {"type": "memory", "store": store, "label": label,
               "content": "# %s\n\n%s" % (label, body), "branch": None,
               "confidence": 7, "archived": 0, "created_at": t,
               "updated_at": t, "recall_count": 0,
               "last_recalled_at": None, "model": None}
        out.write(json.dumps(rec) + "\n")


def unit(v):
    s = math.sqrt(sum(x * x for x in v)) or 1.0
    return [x / s for x in v]


def grow(db, n, store, seed):
    import base64
    r = random.Random(seed)
    con = sqlite3.connect(db)
    rows = list(con.execute("SELECT embedding, model FROM entries "
                            "WHERE embedding IS NOT NULL"))
    dim = len(rows[0][0]) // 4
    vecs = [struct.unpack("<%df" % dim, e) for e, _ in rows]
    out = sys.stdout
    out.write('{"type":"thatch-export","version":1}\n')
    t = "2026-12-01T10:00:00.000Z"
    for i in range(n):
        label, body = memory(r, 100000 + i)
        ws = [r.random() for _ in range(3)]
        v = unit([sum(w * x for w, x in zip(ws, col))
                  for col in zip(*(r.choice(vecs) for _ in range(3)))])
        rec = {"type": "memory", "store": store, "label": label,
               "content": "# %s\n\n%s" % (label, body), "branch": None,
               "confidence": 7, "archived": 0, "created_at": t,
               "updated_at": t, "recall_count": 0,
               "last_recalled_at": None, "model": rows[0][1],
               "embedding": base64.b64encode(
                   struct.pack("<%df" % dim, *v)).decode()}
        out.write(json.dumps(rec) + "\n")


def spread(db, dim, seed):
    r = random.Random(seed)
    centres = [unit([r.gauss(0, 1) for _ in range(dim)]) for _ in range(64)]
    con = sqlite3.connect(db)
    rows = [x[0] for x in con.execute(
        "SELECT rowid FROM entries WHERE embedding IS NOT NULL")]
    for rowid in rows:
        c = centres[r.randrange(64)]
        own = unit([r.gauss(0, 1) for _ in range(dim)])
        v = unit([0.55 * a + 0.45 * b for a, b in zip(c, own)])
        con.execute("UPDATE entries SET embedding = ? WHERE rowid = ?",
                    (struct.pack("<%df" % dim, *v), rowid))
    con.commit()


if __name__ == "__main__":
    a = sys.argv[1:]
    if len(a) >= 4 and a[0] == "grow":
        grow(a[1], int(a[2]), a[3], int(a[4]) if len(a) > 4 else 3)
    elif len(a) >= 3 and a[0] == "spread":
        spread(a[1], int(a[2]), int(a[3]) if len(a) > 3 else 7)
    elif len(a) >= 2:
        gen(int(a[0]), a[1], int(a[2]) if len(a) > 2 else 1)
    else:
        sys.exit(__doc__)
