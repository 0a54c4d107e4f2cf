#!/usr/bin/env python3
"""fake-openai.py PORTFILE LOG — a loopback stand-in for the OpenAI Chat
Completions API (streamed), the model of the opencode end-to-end tests.

POST /v1/chat/completions is answered with server-sent chunks. A request
without tools (opencode's title request) gets a short title. Otherwise the
newest user message that names a script below picks the script, and the
number of tool results after that message picks its step; past the last
step, or with no script, the answer is plain text:

  "please run bash"       -> bash `echo thatch-e2e-marker`
                             ("... slowly": the answer after it stalls 300 s,
                             so a test can kill opencode mid-turn)
  "please remember"       -> thatch_memory_remember (the heron fact)
  "please dig the archive" -> bash `echo archaeology-needle-42`, then a
                             task child ("please probe the child")
  "please probe the child" -> bash `echo child-needle-7`
  a /thatch wrap-up command ("... and thatch will ...") -> a reply ending
                             in the greenlight token, or without it when
                             the user added "hold"
  "please search the sessions" -> thatch_session_search for the needle,
                             then thatch_session_get of the first session
                             the search's result names
  "Direct extraction for session <id>" (thatch's child prompt)
                          -> thatch_get_extraction_payload, then
                             thatch_memory_remember, thatch_extraction_done
  "please chat NAME BODY" -> thatch_chat_send to NAME
  "please broadcast BODY" -> thatch_chat_broadcast
  "please leave chat"     -> thatch_chat_unregister
  "please list chat"      -> thatch_chat_list
  "[thatch] chat: N new messages from NAME…" (a chat wake prompt)
                          -> thatch_chat_read, then, when what it read says
                             "bounce", thatch_chat_send "bounce" back to
                             NAME (two such sessions loop until thatch's
                             rate cap stops them)

A script step names a tool the request does not offer: the reply says so
in text instead of calling it. Every request body is appended to LOG, one
line each, so a test sees what reached the model. Writes the port to
PORTFILE; serves on 127.0.0.1 only and exits after 400 s.
"""
import http.server, json, os, re, sys, threading, time

portfile, log = sys.argv[1], sys.argv[2]
calls = [0]

HERON = ("The project deploys to the staging cluster named heron; "
         "deploy target questions mean heron.")
EXTRACTED = "The e2e project's shell marker is thatch-e2e-marker."


def scripts(text):
    m = re.search(r"Direct extraction for session (\S+?):", text)
    if m:
        sid = m.group(1)
        return [("thatch_get_extraction_payload", {"session_id": sid}),
                ("thatch_memory_remember", {"label": "shell marker",
                                            "content": EXTRACTED}),
                ("thatch_extraction_done", {"session_id": sid})]
    if "please run bash" in text:
        return [("bash", {"command": "echo thatch-e2e-marker",
                          "description": "Print the marker"})]
    if "please dig the archive" in text:
        return [("bash", {"command": "echo archaeology-needle-42",
                          "description": "Print the needle"}),
                ("task", {"description": "Probe the child",
                          "prompt": "please probe the child",
                          "subagent_type": "general"})]
    if "please probe the child" in text:
        return [("bash", {"command": "echo child-needle-7",
                          "description": "Print the child needle"})]
    if "please search the sessions" in text:
        return [("thatch_session_search", {"query": "archaeology-needle-42"}),
                ("thatch_session_get", lambda results: {"session_id": (
                    re.findall(r"ses_\w+", results[-1]) or ["none"])[0],
                    "max_messages": 3})]
    m = re.search(r"please chat (\S+) (.+)", text)
    if m:
        return [("thatch_chat_send", {"to": m.group(1), "body": m.group(2)})]
    m = re.search(r"please broadcast (.+)", text)
    if m:
        return [("thatch_chat_broadcast", {"body": m.group(1)})]
    if "please leave chat" in text:
        return [("thatch_chat_unregister", {})]
    if "please list chat" in text:
        return [("thatch_chat_list", {})]
    m = re.match(r"\[thatch\] chat: \d+ new messages? from ([^, ]+)", text)
    if m:
        return [("thatch_chat_read", {}),
                ("thatch_chat_send", {"to": m.group(1), "body": "bounce"},
                 "bounce")]
    if "please remember" in text:
        return [("thatch_memory_remember", {"label": "deploy target",
                                            "content": HERON})]
    return None


def text_of(msg):
    c = msg.get("content")
    if isinstance(c, str):
        return c
    if isinstance(c, list):
        return "\n".join(p.get("text", "") for p in c if isinstance(p, dict))
    return ""


def reply(req):
    """(text, tool call or None)"""
    offered = {t.get("function", {}).get("name") for t in req.get("tools") or []}
    if not offered:
        return "Thatch e2e", None
    msgs = req.get("messages", [])
    for i in range(len(msgs) - 1, -1, -1):
        if msgs[i].get("role") != "user":
            continue
        if "exact token [thatch:greenlight] and thatch will" in text_of(msgs[i]):
            if "What the user added: hold" in text_of(msgs[i]):
                return "Saved. One question needs you first.", None
            return "Saved; nothing is open. [thatch:greenlight]", None
        script = scripts(text_of(msgs[i]))
        if script is None:
            continue
        step = sum(1 for m in msgs[i + 1:] if m.get("role") == "tool")
        if step >= len(script):
            if "slowly" in text_of(msgs[i]):
                time.sleep(300)
            if "Direct extraction" in text_of(msgs[i]):
                return "[thatch-fact-extractor] extraction complete - no action needed.", None
            return "done", None
        name, args = script[step][:2]
        # a step with a third item runs only if the last tool result has it
        tools = [m for m in msgs[i + 1:] if m.get("role") == "tool"]
        if len(script[step]) > 2 and script[step][2] not in text_of(tools[-1]):
            return "done", None
        if callable(args):  # built from the tool results so far
            args = args([text_of(m) for m in tools])
        if name not in offered:
            return f"tool not offered: {name}", None
        return "", (name, args)
    return "ok", None


def chunk(model, delta, finish=None):
    c = {"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 0,
         "model": model, "choices": [{"index": 0, "delta": delta,
                                      "finish_reason": finish}]}
    if finish:
        c["usage"] = {"prompt_tokens": 10, "completion_tokens": 1,
                      "total_tokens": 11}
    return f"data: {json.dumps(c)}\n\n".encode()


class H(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *a):
        pass

    def do_GET(self):
        self.send_response(404)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
        with open(log, "ab") as f:
            f.write(body.replace(b"\n", b" ") + b"\n")
        if not self.path.endswith("/chat/completions"):
            return self.do_GET()
        req = json.loads(body or b"{}")
        text, call = reply(req)
        model = req.get("model", "mock")
        out = [chunk(model, {"role": "assistant", "content": ""})]
        if text:
            out.append(chunk(model, {"content": text}))
        if call:
            calls[0] += 1
            out.append(chunk(model, {"tool_calls": [{
                "index": 0, "id": f"call_{calls[0]}", "type": "function",
                "function": {"name": call[0],
                             "arguments": json.dumps(call[1])}}]}))
        out.append(chunk(model, {}, "tool_calls" if call else "stop"))
        out.append(b"data: [DONE]\n\n")
        data = b"".join(out)
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), H)
srv.daemon_threads = True
threading.Timer(400, srv.shutdown).start()
with open(portfile + ".tmp", "w") as f:
    f.write(str(srv.server_address[1]))
os.rename(portfile + ".tmp", portfile)
srv.serve_forever()
