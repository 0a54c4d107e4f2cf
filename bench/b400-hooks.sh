#!/bin/sh
# b400-hooks.sh — latency of the hook commands as Claude Code runs them,
# from process start to exit, on a store of 10,000 memories (random
# vectors, filled with direct SQL) in a git repository:
#   buffer-batch   a realistic three-call PostToolBatch
#   reminder       session start (hygiene report included)
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
export THATCH_DB_PATH=$T/thatch.db TMPDIR=$T THATCH_MODEL=$model
mkdir -p "$HOME" "$T/proj"
git -C "$T/proj" init -q && git -C "$T/proj" remote add origin git@github.com:acme/api.git
"$B" stores >/dev/null
sqlite3 "$THATCH_DB_PATH" "INSERT INTO stores (name) VALUES ('acme/api');
WITH RECURSIVE i(n) AS (SELECT 0 UNION ALL SELECT n + 1 FROM i WHERE n < 9999)
INSERT INTO entries (slug, store, label, content, embedding, model,
  created_at, updated_at)
SELECT 'memory-' || n, 'acme/api', 'Memory ' || n,
  '# Memory ' || n || char(10) || char(10) || hex(randomblob(100)),
  randomblob(1536), 'Xenova/bge-small-en-v1.5',
  '2025-01-01T00:00:00.000Z', '2025-01-01T00:00:00.000Z' FROM i;"
cd "$T/proj"
cat >"$T/batch.json" <<'J'
{"session_id":"bench-batch","transcript_path":"/t.jsonl","cwd":"/p","hook_event_name":"PostToolBatch","tool_calls":[{"tool_name":"Read","tool_input":{"file_path":"/repo/src/main.c"},"tool_use_id":"a","tool_response":"int main(void) { return 0; }"},{"tool_name":"Bash","tool_input":{"command":"git log --oneline -5"},"tool_use_id":"b","tool_response":"abc first\ndef second"},{"tool_name":"mcp__other__echo","tool_input":{"text":"x"},"tool_use_id":"c","tool_response":[{"type":"text","text":"x"}]}]}
J
printf '{"session_id":"bench-batch","hook_event_name":"UserPromptSubmit","prompt":"continue with the refactor please"}\n' >"$T/queued.json"
printf '{"session_id":"bench-none","hook_event_name":"UserPromptSubmit","prompt":"how do we build and test this project?"}\n' >"$T/prompt.json"
"$B" buffer-batch <"$T/batch.json"
run() {	# run NAME: hyperfine over the commands given after it
	name=$1; shift
	hyperfine -w 10 -r 200 -N --style basic --export-markdown "$T/$name.md" "$@"
	cat "$T/$name.md"
}
run cold \
    "sh -c 'exec /bin/true <$T/batch.json'" \
    "sh -c 'exec $B buffer-batch <$T/batch.json'" \
    "sh -c 'exec $B reminder </dev/null'" \
    "sh -c 'exec $B flush-tools <$T/queued.json'" \
    "sh -c 'exec $B flush-tools <$T/prompt.json'"
mkfifo "$T/in"
"$B" mcp <"$T/in" >/dev/null 2>&1 &
exec 7>"$T/in"
printf '%s\n' '{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"b","version":"1"}}}' >&7
while ! ls "$T"/thatch-*.sock >/dev/null 2>&1; do sleep 0.05; done
"$B" flush-tools <"$T/prompt.json" >/dev/null	# loads the model
run warm "sh -c 'exec $B flush-tools <$T/prompt.json'"
