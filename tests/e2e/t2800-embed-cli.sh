#!/usr/bin/env bash
# t2800-embed-cli.sh — `thatch embed` prints transformers.js's vector as
# JSON, queries get the BGE prefix, `thatch model info` describes the model,
# and broken model folders fail with a message instead of a crash.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"

# near FILE INDEX JSON [TOLERANCE]: every component within 1e-5 (or the
# tolerance) of the reference
near() {
	python3 - "$THATCH_FIXTURES/embed/expected/$1" "$2" "$3" "${4:-1e-5}" <<'PY'
import json, sys
want = json.load(open(sys.argv[1]))[int(sys.argv[2])]["embedding"]
got = json.loads(sys.argv[3])
tol = float(sys.argv[4])
sys.exit(0 if len(got) == len(want) and
         all(abs(a - b) <= tol for a, b in zip(got, want)) else 1)
PY
}

# convert DIR DTYPE [PREFIX]: the tiny model with its tensors stored as
# F16 or BF16 (or F32), under an optional name prefix such as "bert."
convert() {
	rm -rf "$TEST_DIR/$1"
	cp -r "$THATCH_MODEL" "$TEST_DIR/$1"
	python3 - "$THATCH_MODEL/model.safetensors" \
	    "$TEST_DIR/$1/model.safetensors" "$2" "${3:-}" <<'PY'
import array, json, struct, sys
raw = open(sys.argv[1], "rb").read()
n = struct.unpack("<Q", raw[:8])[0]
hdr = json.loads(raw[8:8 + n])
dtype, prefix = sys.argv[3], sys.argv[4]
out, blobs, off = {}, [], 0
for name, t in hdr.items():
    if name == "__metadata__":
        continue
    b, e = t["data_offsets"]
    f = array.array("f", raw[8 + n + b:8 + n + e])
    if dtype == "F16":
        blob = struct.pack("<%de" % len(f), *f)
    elif dtype == "BF16":
        blob = b"".join(struct.pack("<f", x)[2:] for x in f)
    else:
        blob = f.tobytes()
    out[prefix + name] = {"dtype": dtype, "shape": t["shape"],
                          "data_offsets": [off, off + len(blob)]}
    blobs.append(blob)
    off += len(blob)
h = json.dumps(out).encode()
h += b" " * (-len(h) % 8)
open(sys.argv[2], "wb").write(struct.pack("<Q", len(h)) + h + b"".join(blobs))
PY
	echo "$TEST_DIR/$1"
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

d=$(convert f16 F16)
expect_contains "F16 weights load" "$(THATCH_MODEL=$d thatch model info)" \
    "dtype:      F16"
expect_ok "F16 weights give the F32 vectors to F16 precision" \
    near passages.json 1 "$(THATCH_MODEL=$d thatch embed "hello world")" 1e-3
d=$(convert bf16 BF16)
expect_ok "BF16 weights give the F32 vectors to BF16 precision" \
    near passages.json 1 "$(THATCH_MODEL=$d thatch embed "hello world")" 1e-2
d=$(convert prefixed F32 bert.)
expect_ok "tensors named bert.* (BertFor... checkpoints) load exactly" \
    near passages.json 1 "$(THATCH_MODEL=$d thatch embed "hello world")"

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
