"""Something posing as fingerlockd on a socket, for `doctor`'s service check.

Usage: fake_service.py SOCKET MODE, MODE one of:
  protocol2  answers every call as GetInfo would, but from a fingerlockd speaking protocol 2
  silent     accepts connections and never answers
Creates SOCKET (0666), prints "ready" once it listens, serves until killed.
"""
import json
import os
import socket
import sys


def main():
    path, mode = sys.argv[1], sys.argv[2]
    try:
        os.unlink(path)
    except FileNotFoundError:
        pass
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(path)
    os.chmod(path, 0o666)
    server.listen(8)
    print("ready", flush=True)
    held = []
    while True:
        connection, _ = server.accept()
        if mode == "silent":
            held.append(connection)
            continue
        request = b""
        while b"\0" not in request:
            chunk = connection.recv(65536)
            if not chunk:
                break
            request += chunk
        info = {
            "vendor": "fingerlock", "product": "fingerlockd", "version": "9.0.0 (protocol 2)",
            "url": "https://example.invalid", "interfaces": ["org.varlink.service", "io.fingerlock.Service"],
        }
        connection.sendall(json.dumps({"parameters": info}).encode() + b"\0")
        connection.close()


if __name__ == "__main__":
    main()
