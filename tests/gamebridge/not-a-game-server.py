#!/usr/bin/env python3
# not-a-game-server.py: an HTTP server on 127.0.0.1 that is not a game, for
# the NotAGameSurface tests: it prints its port, then answers
#   "web"          every path with a 404 HTML page, as a web server would;
#   "health-only"  GET /health with {"ok":true,"frame":1} and GET /state with
#                  {"frame":1}, every other path with a 404 HTML page (a game
#                  whose /command is broken: still a game, an HttpStatusError).
#
# SPDX-License-Identifier: LGPL-2.1-or-later
import http.server
import sys

MODE = sys.argv[1] if len(sys.argv) > 1 else "web"
PAGE = b"<!DOCTYPE html><html><head><title>404 Not Found</title></head><body><h1>Not Found</h1></body></html>"


class Handler(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        path = self.path.split("?", 1)[0]
        if MODE == "health-only" and path in ("/health", "/state"):
            body = b'{"ok":true,"frame":1}' if path == "/health" else b'{"frame":1}'
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
        else:
            body = PAGE
            self.send_response(404)
            self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format, *args):
        pass


server = http.server.HTTPServer(("127.0.0.1", 0), Handler)
print(server.server_address[1], flush=True)
server.serve_forever()
