#!/usr/bin/env bash
# config.json through config_get / config_set, and notify_user with fake
# notifiers on PATH (store-and-tools §4.13-§4.15): the defaults, an
# invalid file ignored with a warning, a set-then-get round trip, two
# servers writing at once never tearing the file nor losing a field, the
# chat and recall sections shown when the file sets them, and
# the notifiers' exact argv (quotes, $(...), newlines verbatim, never a
# shell line).
. "$(dirname "$0")/lib.sh"
export THATCH_WARMUP=0
CFG=$XDG_CONFIG_HOME/thatch/config.json
mkdir -p "$XDG_CONFIG_HOME/thatch" bin

# call NAME ARGS-JSON...: one server, one tools/call per pair; prints each
# result's text, then a line "--".
call() {
	python3 - "$@" <<'PY' | "$THATCH_BIN" mcp 2>/dev/null | python3 -c '
import json, sys
for line in sys.stdin:
    m = json.loads(line)
    if m.get("id", 0) == 0: continue
    r = m["result"]
    print(("ERROR " if r["isError"] else "") + r["content"][0]["text"]); print("--")'
import json, sys
print(json.dumps({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {}}))
a = sys.argv[1:]
for i in range(0, len(a), 2):
    print(json.dumps({"jsonrpc": "2.0", "id": i + 1, "method": "tools/call",
                      "params": {"name": a[i], "arguments": json.loads(a[i + 1])}}))
PY
}

out=$(call config_get '{}')
expect_eq "a missing file shows the defaults" "notifications:
  mode: <unset> (default: both)
  voice: <unset>
  sound: <unset>

file: $CFG
--" "$out"
expect_eq "config_get does not create the file" no "$(test -e "$CFG" && echo yes || echo no)"

out=$(call config_set '{"notifications":{"mode":"banner","voice":"Alex"}}' config_get '{"section":"notifications"}')
expect_contains "config_set reports the saved path" "$out" "[saved] $CFG"
expect_contains "config_get reads the value back" "$out" "  mode: banner (default: both)"
expect_contains "config_get reads the voice back" "$out" "  voice: Alex"
expect_eq "the file is private" 600 "$(stat -c %a "$CFG")"
out=$(call config_set '{"notifications":{"sound":"Ping"}}')
expect_contains "a field-level merge keeps the other fields" "$out" "  mode: banner (default: both)
  voice: Alex
  sound: Ping"
out=$(call config_set '{"notifications":{"mode":"loud"}}')
expect_contains "a bad mode is an argument error" "$out" "ERROR Invalid arguments: notifications.mode:"
out=$(call config_set '{"notifications":{"colour":"red"}}')
expect_contains "an unknown key is an argument error" "$out" "ERROR Invalid arguments: notifications: Unrecognized key"
out=$(call config_set '{"notifications":{"voice":3}}')
expect_contains "a wrong type is an argument error" "$out" "ERROR Invalid arguments: notifications.voice: Expected string"
out=$(call config_set '{}')
expect_contains "nothing to set says so" "$out" "nothing to update; pass a section with fields"
out=$(call config_get '{"section":"alerts"}')
expect_contains "an unknown section is an argument error" "$out" "ERROR Invalid arguments: section:"

printf '{"chat": {"enabled": true}, "recall": {"budget": 2500}}\n' >"$CFG"
out=$(call config_get '{}')
expect_eq "the chat and recall sections are shown when the file sets them" "notifications:
  mode: <unset> (default: both)
  voice: <unset>
  sound: <unset>
chat:
  enabled: true (default: false)
recall:
  limit: <unset> (default: 10)
  cut: <unset> (default: 1500)
  budget: 2500 (default: 4000)

file: $CFG
--" "$out"
expect_not_contains "and not when the notifications are asked for" \
    "$(call config_get '{"section":"notifications"}')" "recall:"

printf '{"notifications": {"mode": "both", "extra": 1}}\n' >"$CFG"
out=$(call config_get '{}')
expect_contains "an invalid file is ignored with a warning naming it" "$out" "[warning] ignored $CFG: unknown key \"notifications.extra\""
expect_contains "an invalid file loads as the defaults" "$out" "  mode: <unset> (default: both)"
printf '{"notifications": ' >"$CFG"
expect_contains "a file that is not JSON is ignored too" "$(call config_get '{}')" "[warning] ignored $CFG: it is not valid JSON"
out=$(call config_set '{"notifications":{"mode":"voice"}}')
expect_eq "config_set replaces an invalid file" voice "$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["notifications"]["mode"])' "$CFG")"

# --- two servers at once ------------------------------------------------------
args() { for i in $(seq 1 40); do printf 'config_set\n{"notifications":{"%s":"%s%d"}}\n' "$1" "$2" "$i"; done; }
mapfile -t A < <(args voice a)
mapfile -t B < <(args sound b)
python3 - "$CFG" "$TEST_DIR/done" >"$TEST_DIR/torn" <<'PY' &
import json, os, sys
torn = reads = 0
while not os.path.exists(sys.argv[2]):
    try:
        with open(sys.argv[1]) as f:
            json.load(f)
        reads += 1
    except ValueError:
        torn += 1
print(torn, reads > 0)
PY
reader=$!
call "${A[@]}" >"$TEST_DIR/a" & pa=$!
call "${B[@]}" >"$TEST_DIR/b" & pb=$!
wait $pa $pb
touch "$TEST_DIR/done"; wait $reader
expect_eq "every call of both servers saved" "40 40" "$(grep -c '^\[saved\]' "$TEST_DIR/a") $(grep -c '^\[saved\]' "$TEST_DIR/b")"
expect_eq "a reader never saw a torn file" "0 True" "$(cat "$TEST_DIR/torn")"
expect_eq "neither server lost the other's last field" "a40 b40 voice" \
    "$(python3 -c 'import json,sys; n=json.load(open(sys.argv[1]))["notifications"]; print(n["voice"], n["sound"], n["mode"])' "$CFG")"

# --- notify_user with fake notifiers ------------------------------------------
cat >bin/notify-send <<'PY'
#!/usr/bin/env python3
import json, os, sys
name = os.path.basename(sys.argv[0])
with open(os.environ["ARGV_LOG"], "a") as f:
    f.write(json.dumps([name] + sys.argv[1:]) + "\n")
sys.exit(1 if os.environ.get("FAIL") == name else 0)
PY
cp bin/notify-send bin/spd-say
chmod +x bin/notify-send bin/spd-say
export ARGV_LOG=$TEST_DIR/argv
export PATH=$TEST_DIR/bin:$PATH
argv() { cat "$TEST_DIR/argv" 2>/dev/null; rm -f "$TEST_DIR/argv"; }
msg='He said "stop" $(touch pwned) `id`; exit
second line'
call config_set '{"notifications":{"mode":"both"}}' >/dev/null
out=$(call notify_user "$(python3 -c 'import json,sys; print(json.dumps({"message": sys.argv[1], "title": "Build"}))' "$msg")")
expect_contains "mode both notifies on both channels" "$out" "[notified] channel both; banner: notify-send ok; voice: spd-say ok"
expect_eq "the notifiers get the texts verbatim as arguments" \
    "$(python3 -c 'import json,sys; print(json.dumps(["notify-send","-a","thatch","--","Build",sys.argv[1]])); print(json.dumps(["spd-say","-w",sys.argv[1]]))' "$msg")" \
    "$(argv)"
expect_eq "nothing ran a shell over the message" no "$(test -e pwned && echo yes || echo no)"
call config_set '{"notifications":{"mode":"banner"}}' >/dev/null
out=$(call notify_user '{"message":"done"}')
expect_eq "mode banner runs notify-send only" '["notify-send", "-a", "thatch", "--", "thatch", "done"]' "$(argv)"
out=$(call notify_user '{"message":"done","channel":"voice","source":"tests"}')
expect_eq "a call's channel overrides the mode; source is spoken first" '["spd-say", "-w", "tests: done"]' "$(argv)"
call config_set '{"notifications":{"mode":"voice"}}' >/dev/null
out=$(FAIL=spd-say call notify_user '{"message":"x"}')
expect_contains "a failing notifier is reported, not raised" "$out" "[failed] channel voice; voice: spd-say exited 1"
argv >/dev/null
call config_set '{"notifications":{"mode":"none"}}' >/dev/null
out=$(call notify_user '{"message":"x","channel":"both"}')
expect_contains "mode none skips every channel" "$out" "[skipped]"
expect_eq "mode none runs nothing" "" "$(argv)"
finish
