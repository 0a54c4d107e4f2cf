#!/usr/bin/env python3
"""fake-anthropic.py PORTFILE LOG — a loopback stand-in for the Messages API.

Answers POST /v1/messages (streamed): while the conversation holds no
tool result, with one Bash tool call (`echo thatch-e2e`) when the request
offers Bash, else with one short text reply; counts tokens, 404s the rest, and appends every request body to LOG, so a test
can see what Claude Code's hooks injected. Writes the chosen port to
PORTFILE. Serves on 127.0.0.1 only and exits after 120 s.
"""
import http.server, json, sys, threading

portfile, log = sys.argv[1], sys.argv[2]


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
        answered = "tool_result" in body.decode("utf-8", "replace")
        offers = any(t.get("name") == "Bash" for t in req.get("tools", []))
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.end_headers()
        w = self.wfile.write
        w(sse("message_start", {"type": "message_start", "message": msg}))
        if offers and not answered:
            w(sse("content_block_start", {"type": "content_block_start", "index": 0,
                  "content_block": {"type": "tool_use", "id": "toolu_e2e_1",
                                    "name": "Bash", "input": {}}}))
            w(sse("content_block_delta", {"type": "content_block_delta", "index": 0,
                  "delta": {"type": "input_json_delta",
                            "partial_json": json.dumps({"command": "echo thatch-e2e",
                                                        "description": "say hi"})}}))
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
import os
os.rename(portfile + ".tmp", portfile)
threading.Timer(120, srv.shutdown).start()
srv.serve_forever()
