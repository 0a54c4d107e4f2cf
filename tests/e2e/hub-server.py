#!/usr/bin/env python3
"""hub-server.py ROOT PORTFILE LOG: a stand-in for the Hugging Face Hub.

Serves ROOT/<owner>/<name>/<file> in the Hub's URL layout on 127.0.0.1 (a
free port, written to PORTFILE once listening):
  /<owner>/<name>/resolve/main/<file>  ->  302 to /files/<owner>/<name>/<file>
so clients must follow redirects, as with the real Hub's CDN. Refusals are
the real Hub's: a repository that does not exist answers 401 to a request
without a token and 404 to one with (X-Error-Code: RepoNotFound), a file
missing from a repository 404 (EntryNotFound). A repository
whose name starts with "cut" sends half of model.safetensors (with the full
Content-Length) and drops the connection. Every request is appended to LOG
as "<path> <Authorization header or ->".
"""
import http.server
import os
import sys

ROOT, PORTFILE, LOG = sys.argv[1:4]


class Hub(http.server.BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def refuse(self, status, code):
        body = b'{"error":"not found"}'
        self.send_response(status)
        self.send_header("X-Error-Code", code)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        with open(LOG, "a") as f:
            f.write("%s %s\n" % (self.path, self.headers.get("Authorization", "-")))
        parts = self.path.split("/")
        if len(parts) == 6 and parts[3:5] == ["resolve", "main"]:
            repo = os.path.join(ROOT, parts[1], parts[2])
            if not os.path.isdir(repo):
                anonymous = self.headers.get("Authorization") is None
                self.refuse(401 if anonymous else 404, "RepoNotFound")
                return
            if not os.path.isfile(os.path.join(repo, parts[5])):
                self.refuse(404, "EntryNotFound")
                return
            self.send_response(302)
            self.send_header("Location", "/files/" + "/".join(parts[1:3] + parts[5:]))
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        path = os.path.join(ROOT, *parts[2:]) if len(parts) == 5 and parts[1] == "files" else ""
        if not os.path.isfile(path):
            self.send_error(404)
            return
        with open(path, "rb") as f:
            data = f.read()
        self.send_response(200)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        if parts[3].startswith("cut") and parts[4] == "model.safetensors":
            data = data[: len(data) // 2]
            self.close_connection = True
        self.wfile.write(data)


server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Hub)
with open(PORTFILE + ".tmp", "w") as f:
    f.write(str(server.server_address[1]))
os.rename(PORTFILE + ".tmp", PORTFILE)
server.serve_forever()
