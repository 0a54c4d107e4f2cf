#!/bin/sh
# b400-hooks.sh — latency of the hook commands as Claude Code runs them,
# from process start to exit, on a store of 10,000 memories (random
# unit vectors, inserted directly) in a git repository:
#   buffer-batch   a realistic three-call PostToolBatch
#   reminder       session start (hygiene report from a current cache)
#   flush-tools    tier 1 (queued calls), tier 3 without a server (prompt
#                  long enough for the sideband, nobody listening), and
#                  tier 2 through a warm `thatch mcp` on bge-small's exact
#                  architecture (bench/out/bge-small, random weights)
# Each command runs as `sh -c 'exec thatch … <input'`; the same shell
# around /bin/true is measured too, to subtract. Numbers: bench/README.md.
set -eu
cd "$(dirname "$0")/.."
model=$PWD/bench/out/bge-small
[ -f "$model/model.safetensors" ] || bench/random-bert "$model" --shape bge-small
make -s -j2 thatch
T=$(mktemp -d /tmp/thatch-b400.XXXXXX)
trap 'exec 7>&- 2>/dev/null; rm -rf "$T"' EXIT
cp thatch "$T/thatch"	# immune to a rebuild while it runs
B=$T/thatch
export HOME=$T/home XDG_CONFIG_HOME=$T/home/.config XDG_CACHE_HOME=$T/home/.cache
export THATCH_DB_PATH=$T/thatch.db TMPDIR=$T THATCH_MODEL=$model XDG_RUNTIME_DIR=$T/run
mkdir -p "$HOME" "$T/proj"
mkdir -m 700 "$XDG_RUNTIME_DIR"
git -C "$T/proj" init -q && git -C "$T/proj" remote add origin git@github.com:acme/api.git
"$B" stores >/dev/null
# unit vectors, as the model writes them: random bytes would make every
# pair a duplicate candidate and measure nothing real
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
cat >"$T/batch.json" <<'J'
{"session_id":"bench-batch","transcript_path":"/t.jsonl","cwd":"/p","hook_event_name":"PostToolBatch","tool_calls":[{"tool_name":"Read","tool_input":{"file_path":"/repo/src/main.c"},"tool_use_id":"a","tool_response":"int main(void) { return 0; }"},{"tool_name":"Bash","tool_input":{"command":"git log --oneline -5"},"tool_use_id":"b","tool_response":"abc first\ndef second"},{"tool_name":"mcp__other__echo","tool_input":{"text":"x"},"tool_use_id":"c","tool_response":[{"type":"text","text":"x"}]}]}
J
printf '{"session_id":"bench-batch","hook_event_name":"UserPromptSubmit","prompt":"continue with the refactor please"}\n' >"$T/queued.json"
printf '{"session_id":"bench-none","hook_event_name":"UserPromptSubmit","prompt":"how do we build and test this project?"}\n' >"$T/prompt.json"
"$B" buffer-batch <"$T/batch.json"
run() {	# run NAME RUNS: hyperfine over the commands given after them
	name=$1 runs=$2; shift 2
	hyperfine -w 3 -r "$runs" -N --style basic \
	    --export-markdown "$T/$name.md" "$@"
	cat "$T/$name.md"
}
run cold 200 \
    "sh -c 'exec /bin/true <$T/batch.json'" \
    "sh -c 'exec $B buffer-batch <$T/batch.json'" \
    "sh -c 'exec $B flush-tools <$T/queued.json'" \
    "sh -c 'exec $B flush-tools <$T/prompt.json'"
# the first reminder finds no cached hygiene facts and starts the background
# refresher (the duplicate pass, ~1 s); let it finish, then time the
# reminder on a current cache, beside a process that does nothing
for i in 1 2 3; do
	"$B" reminder </dev/null >/dev/null
	flock "$XDG_CACHE_HOME"/thatch/hygiene/*.lock true
done
run reminder 200 \
    "sh -c 'exec /bin/true </dev/null'" \
    "sh -c 'exec $B --version </dev/null'" \
    "sh -c 'exec $B reminder </dev/null'"
mkfifo "$T/in"
"$B" mcp <"$T/in" >/dev/null 2>&1 &
exec 7>"$T/in"
printf '%s\n' '{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"b","version":"1"}}}' >&7
while ! ls "$XDG_RUNTIME_DIR"/thatch-*.sock >/dev/null 2>&1; do sleep 0.05; done
"$B" flush-tools <"$T/prompt.json" >/dev/null	# loads the model
run warm 200 "sh -c 'exec $B flush-tools <$T/prompt.json'"
