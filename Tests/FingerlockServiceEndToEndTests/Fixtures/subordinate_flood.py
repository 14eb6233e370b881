"""One user's flood through their subordinate uids, run as root of a user namespace whose uids
1..UIDS map to subordinate uids outside (`unshare --map-user=0 --map-users=FIRST,1,UIDS`).

Usage: subordinate_flood.py SOCKET UIDS connect PER_UID SECONDS
       subordinate_flood.py SOCKET UIDS register PER_UID

Forks one process per inner uid 1..UIDS (setresuid), each of which either opens PER_UID
connections, calls GetInfo on each and keeps those served open SECONDS, or registers PER_UID new
vaults on one connection. Prints one JSON object when every process has done its part: the parent's
pid, and how many calls had each outcome ("served", an error name, or "closed"). The children die
with the parent (PR_SET_PDEATHSIG), so killing the printed pid ends the flood.
"""
import ctypes
import json
import os
import signal
import socket
import sys
import time
import traceback
import uuid

PR_SET_PDEATHSIG = 1


def call(connection, method, parameters):
    """The reply's outcome. A refused connection is closed by the service right after its reply,
    so the write may fail (EPIPE) with the reply already waiting: it is read all the same."""
    try:
        connection.sendall(json.dumps({"method": method, "parameters": parameters}).encode() + b"\0")
    except (BrokenPipeError, ConnectionResetError):
        pass
    reply = b""
    try:
        while b"\0" not in reply:
            chunk = connection.recv(65536)
            if not chunk:
                break
            reply += chunk
    except (ConnectionResetError, socket.timeout):
        pass
    if b"\0" not in reply:
        return "closed"
    return json.loads(reply.split(b"\0")[0]).get("error", "served")


def child(path, mode, count, seconds, report, parent):
    # Set after the uid change, which clears it.
    ctypes.CDLL(None).prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    if os.getppid() != parent:
        os._exit(1)
    outcomes = {}
    held = []

    def note(outcome):
        outcomes[outcome] = outcomes.get(outcome, 0) + 1

    def connect():
        connection = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        connection.settimeout(10)
        connection.connect(path)
        return connection

    if mode == "connect":
        for _ in range(count):
            connection = connect()
            outcome = call(connection, "org.varlink.service.GetInfo", {})
            note(outcome)
            if outcome == "served":
                held.append(connection)
            else:
                connection.close()
    else:
        connection = connect()
        for _ in range(count):
            note(call(connection, "io.fingerlock.Service.RegisterVault", {"vault": str(uuid.uuid4())}))
    os.write(report, (json.dumps(outcomes) + "\n").encode())
    os.close(report)
    if mode == "connect":
        time.sleep(seconds)


def main():
    path, uids, mode, count = sys.argv[1], int(sys.argv[2]), sys.argv[3], int(sys.argv[4])
    seconds = float(sys.argv[5]) if len(sys.argv) > 5 else 0
    parent = os.getpid()
    read_end, write_end = os.pipe()
    children = []
    for inner in range(1, uids + 1):
        pid = os.fork()
        if pid == 0:
            # Whatever happens, the child never goes on with the parent's loop.
            try:
                os.close(read_end)
                os.setresuid(inner, inner, inner)
                child(path, mode, count, seconds, write_end, parent)
            except BaseException:
                traceback.print_exc()
            finally:
                os._exit(0)
        children.append(pid)
    os.close(write_end)
    totals = {}
    with os.fdopen(read_end) as reports:
        for line in reports:
            for outcome, number in json.loads(line).items():
                totals[outcome] = totals.get(outcome, 0) + number
    print(json.dumps({"pid": parent, "outcomes": totals}), flush=True)
    for pid in children:
        os.waitpid(pid, 0)


if __name__ == "__main__":
    main()
