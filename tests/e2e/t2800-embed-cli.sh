#!/usr/bin/env bash
# t2800-embed-cli.sh — `thatch embed` prints transformers.js's vector as
# JSON, queries get the BGE prefix, `thatch model info` describes the model,
# and broken model folders fail with a message instead of a crash.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"

# near FILE INDEX JSON: every component within 1e-5 of the reference
near() {
	python3 - "$THATCH_FIXTURES/embed/expected/$1" "$2" "$3" <<'PY'
import json, sys
want = json.load(open(sys.argv[1]))[int(sys.argv[2])]["embedding"]
got = json.loads(sys.argv[3])
sys.exit(0 if len(got) == len(want) and
         all(abs(a - b) <= 1e-5 for a, b in zip(got, want)) else 1)
PY
}

out=$(thatch embed "hello world")
expect_ok "embed prints the passage vector transformers.js computes" \
    near passages.json 1 "$out"
out=$(thatch embed --query "hello world")
expect_ok "embed --query prints the query vector (BGE prefix)" \
    near queries.json 1 "$out"
expect_ok "embed handles the empty text" near passages.json 17 \
    "$(thatch embed "")"
expect_fail "embed without text is a usage error" thatch embed
thatch embed >/dev/null 2>&1
expect_eq "embed without text exits 2" 2 "$?"

out=$(thatch model info)
expect_contains "model info shows the folder" "$out" \
    "folder:     $THATCH_MODEL"
expect_contains "model info shows the dimensions" "$out" "dimensions: 32"
expect_contains "model info shows the layers" "$out" "layers:     2"
expect_contains "model info shows the dtype" "$out" "dtype:      F32"
expect_fail "model without a verb is a usage error" thatch model

# broken NAME: a copy of the tiny model to damage
broken() {
	rm -rf "$TEST_DIR/$1"
	cp -r "$THATCH_MODEL" "$TEST_DIR/$1"
	echo "$TEST_DIR/$1"
}
# refused WHAT DIR NEEDLE: embed fails with status 1 and a message
refused() {
	local out rc
	out=$(THATCH_MODEL=$2 thatch embed hi 2>&1)
	rc=$?
	expect_eq "$1: exit 1, no crash" 1 "$rc"
	expect_contains "$1: says why" "$out" "$3"
}

d=$(broken truncated)
head -c 100000 "$THATCH_MODEL/model.safetensors" >"$d/model.safetensors"
refused "truncated weights" "$d" "truncated download"

d=$(broken short)
head -c 5 "$THATCH_MODEL/model.safetensors" >"$d/model.safetensors"
refused "a weights file of 5 bytes" "$d" "too short"

d=$(broken garbage-config)
echo 'not json {' >"$d/config.json"
refused "garbage config.json" "$d" "config.json"

d=$(broken wrong-shape)
sed 's/"hidden_size": 32/"hidden_size": 64/' "$THATCH_MODEL/config.json" \
    >"$d/config.json"
refused "weights that do not match config.json" "$d" "shape"

d=$(broken missing-tensor)
python3 - "$THATCH_MODEL/model.safetensors" "$d/model.safetensors" <<'PY'
import json, struct, sys
raw = open(sys.argv[1], "rb").read()
n = struct.unpack("<Q", raw[:8])[0]
hdr = json.loads(raw[8:8 + n])
del hdr["encoder.layer.1.output.dense.weight"]
h = json.dumps(hdr).encode()
open(sys.argv[2], "wb").write(struct.pack("<Q", len(h)) + h + raw[8 + n:])
PY
refused "a missing tensor" "$d" "encoder.layer.1.output.dense.weight"

d=$(broken roberta)
sed 's/"model_type": "bert"/"model_type": "roberta"/' \
    "$THATCH_MODEL/config.json" >"$d/config.json"
refused "a model that is not BERT" "$d" "roberta"

refused "a folder that does not exist" "$TEST_DIR/nope" "THATCH_MODEL"
finish
