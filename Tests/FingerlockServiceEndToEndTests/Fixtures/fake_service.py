"""Something posing as fingerlockd on a socket, for `doctor`'s service check and the CLI's GetInfo check.

Usage: fake_service.py SOCKET MODE [RECORD], MODE one of:
  protocol2  answers every call as GetInfo would, but from a fingerlockd speaking protocol 2
  silent     accepts connections and never answers
  impostor   answers GetInfo as another program ("varlink-bridge" from "someone") that offers
             io.fingerlock.Service; Status as a registered, locked vault; UnlockWithTouch with
             PasscodeRequired; anything else with WrongPasscode
  nogetinfo  answers GetInfo with org.varlink.service.MethodNotFound, anything else as impostor
With RECORD, every request received is appended to that file, one JSON line each (so a test can
see what reached it). Creates SOCKET (0666), prints "ready" once it listens, serves until killed.
"""
import json
import os
import socket
import sys

PROTOCOL2_INFO = {
    "vendor": "fingerlock", "product": "fingerlockd", "version": "9.0.0 (protocol 2)",
    "url": "https://example.invalid", "interfaces": ["org.varlink.service", "io.fingerlock.Service"],
}
IMPOSTOR_INFO = {
    "vendor": "someone", "product": "varlink-bridge", "version": "1.0 (protocol 1)",
    "url": "", "interfaces": ["org.varlink.service", "io.fingerlock.Service"],
}
STATUS = {
    "registered": True, "unlocked": False, "unlockedSeconds": 0, "failedPasscodes": 0, "delaySeconds": 0,
    "failedTouches": 0, "touchLockedOut": False, "policy": None, "reuseSeconds": None,
}


def reply(mode, request):
    method = request.get("method", "")
    if mode == "protocol2":
        return {"parameters": PROTOCOL2_INFO}
    if method == "org.varlink.service.GetInfo":
        if mode == "nogetinfo":
            return {"error": "org.varlink.service.MethodNotFound", "parameters": {"method": method}}
        return {"parameters": IMPOSTOR_INFO}
    if method == "io.fingerlock.Service.Status":
        return {"parameters": {"status": STATUS}}
    if method == "io.fingerlock.Service.UnlockWithTouch":
        return {"error": "io.fingerlock.Service.PasscodeRequired", "parameters": {"reason": "locked"}}
    return {"error": "io.fingerlock.Service.WrongPasscode", "parameters": {"failedPasscodes": 1, "delaySeconds": 0}}


def serve(connection, mode, record):
    pending = b""
    while True:
        while b"\0" not in pending:
            chunk = connection.recv(65536)
            if not chunk:
                return
            pending += chunk
        message, pending = pending.split(b"\0", 1)
        if record:
            with open(record, "ab") as log:
                log.write(message + b"\n")
        try:
            request = json.loads(message)
        except ValueError:
            return
        connection.sendall(json.dumps(reply(mode, request)).encode() + b"\0")
        if mode == "protocol2":
            return


def main():
    path, mode = sys.argv[1], sys.argv[2]
    record = sys.argv[3] if len(sys.argv) > 3 else None
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
        try:
            serve(connection, mode, record)
        except OSError:
            pass
        connection.close()


if __name__ == "__main__":
    main()
