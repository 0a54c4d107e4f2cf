#!/usr/bin/env bash
# opencode-sessions.sh WORKDIR — the session-archaeology fixture, made by
# the real thing: the real opencode (npm opencode-ai 1.18.33, offline,
# tests/hosts/fake-openai.py as its model) runs a few scripted sessions and
# leaves its database, WAL included, at
# $XDG_DATA_HOME/opencode/opencode.db. No thatch plugin: the database is
# opencode's alone.
#
#   proj/   "Dig the archive": a bash call (output archaeology-needle-42)
#           and a task child (@general subagent) with its own bash call
#           (child-needle-7); continued by a second run ("more digging")
#   proj/   "Read the notes": an attached file (a file part plus the
#           synthetic text parts opencode adds for it)
#   other/  "Elsewhere": another directory, for list --all
#
# Uses the caller's HOME and XDG_* (tests/e2e/lib.sh); writes WORKDIR/ids
# ("<name> <session id>" lines). Exits 3 when npm cannot install the
# client (the caller skips), 1 when a run fails.
set -u
W=$1
HOSTS=$(cd "$(dirname "$0")" && pwd)
OC=$HOSTS/opencode/node_modules/.bin/opencode
SEED=$HOSTS/opencode/config-seed
{ [ -x "$OC" ] || (cd "$HOSTS/opencode" && npm install --no-audit --no-fund >/dev/null 2>&1); } &&
{ [ -d "$SEED/node_modules/@opencode-ai/plugin" ] || (cd "$SEED" && npm install --no-audit --no-fund >/dev/null 2>&1); } ||
	exit 3
export XDG_DATA_HOME=${XDG_DATA_HOME:-$HOME/.local/share} XDG_STATE_HOME=${XDG_STATE_HOME:-$HOME/.local/state}
export OPENCODE_DISABLE_MODELS_FETCH=1 OPENCODE_DISABLE_AUTOUPDATE=1 \
    OPENCODE_DISABLE_LSP_DOWNLOAD=1 OPENCODE_DISABLE_SHARE=1
unset OPENCODE_DB OPENCODE_CONFIG OPENCODE_CONFIG_DIR OPENCODE_EXPERIMENTAL_BACKGROUND_SUBAGENTS
mkdir -p "$W"
python3 "$HOSTS/fake-openai.py" "$W/port" "$W/requests" &
fake=$!
trap 'kill $fake 2>/dev/null; wait $fake 2>/dev/null' EXIT
for _ in $(seq 200); do [ -f "$W/port" ] && break; sleep 0.05; done
[ -f "$W/port" ] || exit 1
# opencode npm-installs its plugin SDK into the config folder at every
# start; a copy of that install spares the registry round trip
CFG=$XDG_CONFIG_HOME/opencode
mkdir -p "$CFG"
cp "$SEED/package.json" "$SEED/package-lock.json" "$CFG/"
cp -al "$SEED/node_modules" "$CFG/node_modules" 2>/dev/null || cp -a "$SEED/node_modules" "$CFG/node_modules"
cat >"$CFG/opencode.json" <<J
{ "\$schema": "https://opencode.ai/config.json", "model": "fake/mock",
  "provider": { "fake": { "npm": "@ai-sdk/openai-compatible", "name": "Fake",
    "options": { "baseURL": "http://127.0.0.1:$(cat "$W/port")/v1", "apiKey": "dummy" },
    "models": { "mock": { "name": "Mock", "tool_call": true, "limit": { "context": 200000, "output": 8192 } } } } } }
J
run() { timeout 120 "$OC" run "$@" </dev/null >>"$W/run.out" 2>>"$W/run.err"; }
newest() { "$OC" session list --format json 2>/dev/null |
	python3 -c 'import json,sys; print(max(json.load(sys.stdin), key=lambda s: s["updated"])["id"])'; }

mkdir -p "$W/proj" "$W/other"
printf 'The notes say: papyrus-needle-9.\n' >"$W/proj/notes.txt"
cd "$W/proj" || exit 1
run --title "Dig the archive" please dig the archive || exit 1
dig=$(newest) || exit 1
run --session "$dig" more digging || exit 1
run --title "Read the notes" -f notes.txt -- please read the notes || exit 1
notes=$(newest) || exit 1
cd "$W/other" || exit 1
run --title "Elsewhere" hello from elsewhere || exit 1
other=$(newest) || exit 1
printf 'dig %s\nnotes %s\nother %s\n' "$dig" "$notes" "$other" >"$W/ids"
