"""Opens COUNT idle connections to SOCKET and holds them for SECONDS, then prints how many the
service refused at once (a TooManyConnections reply) as one JSON object.

Usage: hold_connections.py SOCKET COUNT SECONDS. Run as a login user to show that one user's idle
connections never lock another user out.
"""
import json
import socket
import sys
import time


def main():
    path, count, seconds = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
    held = []
    for _ in range(count):
        connection = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        connection.connect(path)
        held.append(connection)
    time.sleep(0.5)
    refused = 0
    for connection in held:
        connection.settimeout(0.05)
        try:
            if b"TooManyConnections" in connection.recv(4096):
                refused += 1
        except socket.timeout:
            pass
    print(json.dumps({"refused": refused}), flush=True)
    time.sleep(seconds)


if __name__ == "__main__":
    main()
