"""A one-call Varlink client with nothing but the standard library, run as a login user.

Usage: raw_client.py SOCKET METHOD PARAMETERS_JSON. Prints the reply (a JSON object) on stdout.
"""
import json
import socket
import sys


def main():
    connection = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    connection.settimeout(10)
    connection.connect(sys.argv[1])
    message = {"method": sys.argv[2], "parameters": json.loads(sys.argv[3])}
    try:
        connection.sendall(json.dumps(message).encode() + b"\0")
    except (BrokenPipeError, ConnectionResetError):
        # A refused connection (TooManyConnections) is closed right after its reply: read it.
        pass
    reply = b""
    while b"\0" not in reply:
        chunk = connection.recv(65536)
        if not chunk:
            break
        reply += chunk
    print(reply.split(b"\0")[0].decode())


if __name__ == "__main__":
    main()
