#!/usr/bin/env python3
# screenshot-server.py: a game whose GET /screenshot answers wrongly, for the
# tests of the bridge's image checks. It serves /health and /state like a
# game, prints its port, then answers /screenshot as MODE says:
#   png            a valid 8x6 PNG (the control)
#   truncated      that PNG without its IEND chunk
#   not-image      HTTP 200 with an HTML page
#   short          a Content-Length 1000 bytes more than it sends, then closes
#   announced-huge a Content-Length of 3 MB, then closes
#   endless        no Content-Length, 3 MB of PNG chunks, then closes
#   trailing       the valid PNG followed by junk
#   jpeg           a valid 1x1 JPEG
#   jpeg-no-eoi    that JPEG without its EOI marker
#   wide           a valid PNG header of 4096x16, whatever is asked
#
# SPDX-License-Identifier: LGPL-2.1-or-later
import http.server
import struct
import sys
import zlib

MODE = sys.argv[1] if len(sys.argv) > 1 else "png"


def chunk(kind, data):
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


def png(width, height):
    rows = b"".join(b"\x00" + bytes([40, 80, 120]) * width for _ in range(height))
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)) +
            chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b""))


# The smallest valid JPEG: 1x1 grey, arithmetic coded.
JPEG = bytes.fromhex(
    "ffd8ffe000104a46494600010101004800480000ffdb004300030202020203020202030303030406040404040408060605"
    "0609080a0a090809090a0c0f0c0a0b0e0b09090d110d0e0f101011100a0c12131210130f10101010ffc9000b08000100010101"
    "1100ffcc000600101005ffda0008010100003f00d2cf20ffd9")


class Handler(http.server.BaseHTTPRequestHandler):
    def answer(self, status, kind, body, length=None):
        self.send_response(status)
        self.send_header("Content-Type", kind)
        if length is not None:
            self.send_header("Content-Length", str(length))
        self.send_header("Connection", "close")
        self.end_headers()
        self.wfile.write(body)
        self.wfile.flush()
        self.close_connection = True

    def do_GET(self):
        path = self.path.split("?", 1)[0]
        if path == "/health":
            return self.answer(200, "application/json", b'{"ok":true,"frame":7}', 21)
        if path == "/state":
            return self.answer(200, "application/json", b'{"frame":7}', 11)
        if path != "/screenshot":
            return self.answer(404, "application/json", b'{"error":"not_found"}', 21)
        good = png(8, 6)
        if MODE == "png":
            self.answer(200, "image/png", good, len(good))
        elif MODE == "truncated":
            self.answer(200, "image/png", good[:-12], len(good) - 12)
        elif MODE == "not-image":
            page = b"<!DOCTYPE html><html><body>Screenshots are off</body></html>"
            self.answer(200, "text/html", page, len(page))
        elif MODE == "short":
            self.answer(200, "image/png", good, len(good) + 1000)
        elif MODE == "announced-huge":
            self.answer(200, "image/png", good[:8], 3 * 1024 * 1024)
        elif MODE == "endless":
            self.send_response(200)
            self.send_header("Content-Type", "image/png")
            self.send_header("Connection", "close")
            self.end_headers()
            self.wfile.write(good[:33])
            filler = chunk(b"tEXt", b"x" * 65536)
            try:
                for _ in range(48):
                    self.wfile.write(filler)
            except OSError:
                pass
            self.close_connection = True
        elif MODE == "trailing":
            self.answer(200, "image/png", good + b"junk", len(good) + 4)
        elif MODE == "jpeg":
            self.answer(200, "image/jpeg", JPEG, len(JPEG))
        elif MODE == "jpeg-no-eoi":
            self.answer(200, "image/jpeg", JPEG[:-2], len(JPEG) - 2)
        elif MODE == "wide":
            wide = png(4096, 16)
            self.answer(200, "image/png", wide, len(wide))

    def log_message(self, format, *args):
        pass


server = http.server.HTTPServer(("127.0.0.1", 0), Handler)
print(server.server_address[1], flush=True)
server.serve_forever()
