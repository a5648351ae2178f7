#!/usr/bin/env python3
"""The bench daemon's GET /events (behind nginx, bench/lib/common.sh start_nginx_daemon): a stream that
says every second that a container was destroyed. The gate's pin watcher then sweeps the repo's pins
against the daemon's lists, which the bench daemon answers empty: the pins of the containers nginx
"created" go as after their removal, so a long run does not pile up bind mounts (fs.mount-max is 100,000)
and the gate's CPU per create includes unpinning, as a container's life does.
argv[1]: the port to listen on (127.0.0.1)."""
import sys, time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class Events(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.0"

    def do_GET(self):
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.end_headers()
        try:
            while True:
                self.wfile.write(b'{"Type":"container","Action":"destroy","status":"destroy"}\n')
                self.wfile.flush()
                time.sleep(1)
        except (BrokenPipeError, ConnectionResetError):
            pass

    def log_message(self, *args):
        pass


ThreadingHTTPServer.daemon_threads = True
ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), Events).serve_forever()
