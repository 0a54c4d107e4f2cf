#!/usr/bin/env bash
# t2810-embed-download.sh — a Hub model is downloaded once into the cache,
# atomically: a 404 or a connection cut half-way leaves nothing behind, and
# no network means one line saying how to fix it.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"

hub=$TEST_DIR/hub
for repo in tiny cut-tiny; do
	mkdir -p "$hub/acme/$repo"
	cp "$THATCH_FIXTURES"/embed/tiny-bert/* "$hub/acme/$repo/"
done
python3 "$here/hub-server.py" "$hub" "$TEST_DIR/port" \
    "$TEST_DIR/requests" &
server=$!
trap 'kill $server 2>/dev/null; rm -rf "$TEST_DIR"' EXIT
wait_for "the test Hub starts" 10 test -s "$TEST_DIR/port"
export HF_ENDPOINT=http://127.0.0.1:$(cat "$TEST_DIR/port")
cache=$XDG_CACHE_HOME/thatch/models
requests() { wc -l <"$TEST_DIR/requests" 2>/dev/null || echo 0; }

out=$(HF_TOKEN=sekrit thatch model pull acme/tiny 2>&1)
expect_contains "model pull reports the cached folder" "$out" \
    "folder:     $cache/acme/tiny"
expect_contains "model pull reports the dimensions" "$out" "dimensions: 32"
for f in config.json vocab.txt model.safetensors; do
	expect_eq "$f is downloaded intact" \
	    "$(cksum <"$THATCH_FIXTURES/embed/tiny-bert/$f")" \
	    "$(cksum <"$cache/acme/tiny/$f" 2>/dev/null)"
done
expect_eq "no temporary files are left in the cache" "" \
    "$(find "$cache" -name '*.part*')"
expect_contains "HF_TOKEN is sent to the Hub" "$(cat "$TEST_DIR/requests")" \
    "Bearer sekrit"
expect_not_contains "tokenizer.json is not fetched when vocab.txt is there" \
    "$(cat "$TEST_DIR/requests")" "tokenizer.json"

before=$(requests)
downloaded=$(THATCH_MODEL=acme/tiny thatch embed "hello world")
expect_eq "a cached model is not downloaded again" "$before" "$(requests)"
expect_eq "the downloaded model embeds like the original folder" \
    "$(thatch embed "hello world")" "$downloaded"

out=$(THATCH_MODEL=acme/nothere thatch embed hi 2>&1)
expect_eq "a model the Hub does not have fails" 1 "$?"
expect_eq "a model the Hub does not have says so, in one line" \
    "[thatch embed] failed: model 'acme/nothere' does not exist on $HF_ENDPOINT, or is private or gated: check the id, or set HF_TOKEN to a token that may read it" \
    "$out"
expect_not_contains "a missing model does not send the user to model pull" \
    "$out" "when online"
expect_eq "a missing model leaves no files in the cache" "" \
    "$(find "$cache/acme/nothere" -type f 2>/dev/null)"
out=$(HF_TOKEN=sekrit thatch model pull acme/nothere 2>&1)
expect_eq "model pull of a missing model fails" 1 "$?"
expect_eq "with a token the Hub's 404 says the model does not exist" \
    "[thatch model] failed: model 'acme/nothere' does not exist on $HF_ENDPOINT: check the id (THATCH_MODEL, or the one given to model pull)" \
    "$out"
mkdir -p "$hub/acme/noweights"
cp "$THATCH_FIXTURES"/embed/tiny-bert/config.json "$THATCH_FIXTURES"/embed/tiny-bert/vocab.txt "$hub/acme/noweights/"
out=$(thatch model pull acme/noweights 2>&1)
expect_eq "a model without safetensors weights fails" 1 "$?"
expect_contains "a model without weights says what is missing" "$out" \
    "model 'acme/noweights' on $HF_ENDPOINT has no model.safetensors"

out=$(THATCH_MODEL=acme/cut-tiny thatch embed hi 2>&1)
expect_eq "a download cut half-way fails" 1 "$?"
expect_contains "the cut is reported on the weights file" "$out" \
    "model.safetensors"
expect_eq "a cut download leaves no partial model in the cache" "" \
    "$(find "$cache/acme/cut-tiny" -name 'model.safetensors*')"

true & wait $!
mkdir -p "$cache/acme/stale"
echo partial >"$cache/acme/stale/model.safetensors.part-$!"
mkdir -p "$hub/acme/stale" && cp "$THATCH_FIXTURES"/embed/tiny-bert/* "$hub/acme/stale/"
expect_ok "a model downloads over a dead download's leftovers" \
    thatch model pull acme/stale
expect_eq "the dead download's partial file is removed" "" \
    "$(find "$cache/acme/stale" -name '*.part*')"

export HF_HOME=$TEST_DIR/hf-home
expect_ok "HF_HOME holds downloads when set" thatch model pull acme/tiny
expect_ok "the model lands in HF_HOME" test -f "$HF_HOME/acme/tiny/model.safetensors"
unset HF_HOME

out=$(HF_ENDPOINT=http://127.0.0.1:9 THATCH_MODEL=acme/other thatch embed hi 2>&1 >/dev/null)
expect_eq "offline with no cached model fails" 1 "$?"
expect_eq "offline failure is one line" 1 "$(printf '%s\n' "$out" | wc -l)"
expect_contains "offline failure says how to fix it" "$out" \
    "run \`thatch model pull\` when online, or set THATCH_MODEL to a model folder"
expect_ok "other commands still work offline" thatch --version

out=$(THATCH_MODEL=acme/other thatch model info 2>&1)
expect_contains "model info does not download" "$out" "is not available"
finish
