"""An independent client: the `varlink` Python package talks to a running fingerlockd.

Usage: varlink_client.py SOCKET. Runs one scenario and prints one JSON object with what it saw;
the Swift test checks it. It parses the service's interface description with the package's own
parser, so a description the reference implementation cannot read fails here.
"""
import base64
import json
import os
import sys
import uuid

import varlink


def b64(data):
    return base64.b64encode(data).decode()


def main():
    address = "unix:" + sys.argv[1]
    seen = {}
    with varlink.Client(address=address) as client:
        seen["interfaces"] = client.get_interfaces()
        seen["product"] = client.info["product"]
        seen["version"] = client.info["version"]
        with client.open("io.fingerlock.Service") as service:
            vault = str(uuid.uuid4())
            stretched = os.urandom(32)
            key = os.urandom(32)
            ad = b"slot table"
            seen["created"] = service.RegisterVault(vault)["created"]
            seen["createdAgain"] = service.RegisterVault(vault)["created"]
            slot = service.SealPasscodeSlot(vault, b64(stretched), b64(key), b64(ad))["sealedSlot"]
            try:
                service.UnlockWithPasscode(vault, b64(os.urandom(32)), slot, b64(ad), 60)
                seen["wrong"] = "unlocked"
            except varlink.VarlinkError as error:
                seen["wrong"] = error.error()
                seen["wrongParameters"] = error.parameters()
            reply = service.UnlockWithPasscode(vault, b64(stretched), slot, b64(ad), 60)
            seen["keyMatches"] = reply["key"] == b64(key)
            seen["status"] = service.Status(vault)["status"]
            seen["locked"] = service.Lock(vault)["wasUnlocked"]
            try:
                service.Status("not-a-uuid")
            except varlink.VarlinkError as error:
                seen["badVault"] = error.error()
                seen["badVaultParameters"] = error.parameters()
            service.ForgetVault(vault, b64(stretched), slot, b64(ad))
            seen["forgotten"] = not service.Status(vault)["status"]["registered"]
    print(json.dumps(seen))


if __name__ == "__main__":
    main()
