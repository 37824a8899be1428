#!/usr/bin/env python3
"""Walks an SNMP agent with pysnmp (PyPI `pysnmp`, 7.x asyncio API), a second client
independent of net-snmp, and prints one line per instance: `OID<TAB>TYPE<TAB>VALUE`.

  pysnmp-walk.py PORT v2c COMMUNITY [ROOT]
  pysnmp-walk.py PORT v3 USER AUTH_PASSWORD PRIV_PASSWORD [ROOT]   # authPriv, SHA-256 + AES-128

The agent is on 127.0.0.1. Exits 2 on an SNMP error, naming it on stderr.
"""
import asyncio
import sys

from pysnmp.hlapi.v3arch.asyncio import (CommunityData, ContextData, ObjectIdentity, ObjectType, SnmpEngine,
                                         UdpTransportTarget, UsmUserData, bulk_walk_cmd, usmAesCfb128Protocol,
                                         usmHMAC192SHA256AuthProtocol)


async def main(argv):
    port, version = int(argv[1]), argv[2]
    if version == "v2c":
        auth, rest = CommunityData(argv[3], mpModel=1), argv[4:]
    else:
        auth = UsmUserData(argv[3], authKey=argv[4], privKey=argv[5], authProtocol=usmHMAC192SHA256AuthProtocol,
                           privProtocol=usmAesCfb128Protocol)
        rest = argv[6:]
    root = rest[0] if rest else "1.3.6.1"
    engine = SnmpEngine()
    target = await UdpTransportTarget.create(("127.0.0.1", port), timeout=5, retries=1)
    async for error, status, index, bindings in bulk_walk_cmd(engine, auth, target, ContextData(), 0, 25,
                                                               ObjectType(ObjectIdentity(root)), lexicographicMode=False,
                                                               lookupMib=False):
        if error or status:
            print(f"SNMP error: {error or status.prettyPrint()}", file=sys.stderr)
            return 2
        for name, value in bindings:
            print(f"{name.prettyPrint()}\t{value.__class__.__name__}\t{value.prettyPrint()}")
    engine.close_dispatcher()
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main(sys.argv)))
