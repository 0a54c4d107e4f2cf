#!/usr/bin/env python3
"""fake-anthropic.py PORTFILE LOG — a loopback stand-in for the Messages API.

Answers POST /v1/messages (streamed) from a script of tool calls: the
request whose conversation holds N tool results gets step N when the
request offers that step's tool, else (script done, or a side request
without tools) one short text reply. The script is the JSON file
$FAKE_ANTHROPIC_SCRIPT names, a list of {"tool": NAME, "input": {...}};
an input string that is a key of FILLS is replaced by what the request
says (see there). Without the variable: one Bash call, `echo thatch-e2e`.
Counts tokens, 404s the rest, and appends every request body to LOG, so a
test can see what Claude Code's hooks injected. Writes the chosen port to
PORTFILE. Serves on 127.0.0.1 only and exits after 120 s.
"""
import http.server, json, os, sys, threading

portfile, log = sys.argv[1], sys.argv[2]
SCRIPT = [{"tool": "Bash", "input": {"command": "echo thatch-e2e",
                                     "description": "say hi"}}]
if os.environ.get("FAKE_ANTHROPIC_SCRIPT"):
    with open(os.environ["FAKE_ANTHROPIC_SCRIPT"]) as f:
        SCRIPT = json.load(f)


def results(req):
    """The conversation's tool results' texts, oldest first."""
    out = []
    for m in req.get("messages", []):
        for b in m.get("content", []) if isinstance(m.get("content"), list) else []:
            if b.get("type") != "tool_result":
                continue
            c = b.get("content", "")
            out.append(c if isinstance(c, str) else
                       "".join(p.get("text", "") for p in c if isinstance(p, dict)))
    return out


def session(req):
    """Claude Code's session id, which its hooks queue tool calls under:
    metadata.user_id is a JSON object that carries it."""
    try:
        return json.loads(req["metadata"]["user_id"])["session_id"]
    except (KeyError, TypeError, ValueError):
        return ""


def files(req):
    """The files of the last result's extraction payload (the JSON after
    its first "{"), each once: the anchors the fact extractor passes."""
    text = (results(req) or [""])[-1]
    try:
        payload = json.loads(text[text.index("{"):])
    except ValueError:
        return []
    return sorted({f for i in payload.get("interactions", [])
                   for f in i.get("files", [])})


FILLS = {"$session": session, "$files": files}


def fill(v, req):
    """A step's input with each FILLS key replaced by its value."""
    if isinstance(v, dict):
        return {k: fill(x, req) for k, x in v.items()}
    if isinstance(v, str) and v in FILLS:
        return FILLS[v](req)
    return v


def sse(event, data):
    return f"event: {event}\ndata: {json.dumps(data)}\n\n".encode()


class H(http.server.BaseHTTPRequestHandler):
    def log_message(self, *a):
        pass

    def do_HEAD(self):
        self.send_response(404)
        self.end_headers()

    do_GET = do_HEAD

    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
        with open(log, "ab") as f:
            f.write(body + b"\n")
        if self.path.startswith("/v1/messages/count_tokens"):
            out = json.dumps({"input_tokens": 10}).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(out)))
            self.end_headers()
            self.wfile.write(out)
            return
        if not self.path.startswith("/v1/messages"):
            return self.do_HEAD()
        req = json.loads(body or b"{}")
        msg = {"id": "msg_1", "type": "message", "role": "assistant",
               "model": req.get("model", "m"), "content": [],
               "stop_reason": None, "stop_sequence": None,
               "usage": {"input_tokens": 10, "output_tokens": 1}}
        if not req.get("stream"):
            msg["content"] = [{"type": "text", "text": "done"}]
            msg["stop_reason"] = "end_turn"
            out = json.dumps(msg).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(out)))
            self.end_headers()
            self.wfile.write(out)
            return
        n = len(results(req))
        step = SCRIPT[n] if n < len(SCRIPT) else None
        if step and not any(t.get("name") == step["tool"] for t in req.get("tools", [])):
            step = None
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.end_headers()
        w = self.wfile.write
        w(sse("message_start", {"type": "message_start", "message": msg}))
        if step:
            w(sse("content_block_start", {"type": "content_block_start", "index": 0,
                  "content_block": {"type": "tool_use", "id": f"toolu_e2e_{n + 1}",
                                    "name": step["tool"], "input": {}}}))
            w(sse("content_block_delta", {"type": "content_block_delta", "index": 0,
                  "delta": {"type": "input_json_delta",
                            "partial_json": json.dumps(fill(step["input"], req))}}))
            stop = "tool_use"
        else:
            w(sse("content_block_start", {"type": "content_block_start", "index": 0,
                  "content_block": {"type": "text", "text": ""}}))
            w(sse("content_block_delta", {"type": "content_block_delta", "index": 0,
                  "delta": {"type": "text_delta", "text": "done"}}))
            stop = "end_turn"
        w(sse("content_block_stop", {"type": "content_block_stop", "index": 0}))
        w(sse("message_delta", {"type": "message_delta",
                                "delta": {"stop_reason": stop, "stop_sequence": None},
                                "usage": {"output_tokens": 1}}))
        w(sse("message_stop", {"type": "message_stop"}))


srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), H)
with open(portfile + ".tmp", "w") as f:
    f.write(str(srv.server_address[1]))
os.rename(portfile + ".tmp", portfile)
threading.Timer(120, srv.shutdown).start()
srv.serve_forever()
