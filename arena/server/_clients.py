"""Who a request comes from, for the limits counted by address (registrations, games, streams, connections).

:func:`client_address` is the peer's address, or, only when the peer is one
of the config's ``trusted_proxies``, the address that proxy says it forwarded
(``X-Forwarded-For``, read from the right, skipping the trusted proxies). A
client's own ``X-Forwarded-For`` is never believed, so nobody picks the
address its limits are counted against.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Sequence

Network = ipaddress.IPv4Network | ipaddress.IPv6Network


def parse_networks(entries: Sequence[str]) -> tuple[Network, ...]:
    """``entries`` (addresses or networks, ``10.0.0.0/8``) as networks; :class:`ValueError` names a bad one."""
    out = []
    for entry in entries:
        try:
            out.append(ipaddress.ip_network(entry.strip(), strict=False))
        except ValueError:
            raise ValueError(f"{entry!r} is not an IP address or network (such as 127.0.0.1 or 10.0.0.0/8)") from None
    return tuple(out)


def trusted(address: str, proxies: Sequence[Network]) -> bool:
    """Whether ``address`` is one of the trusted ``proxies``."""
    if not proxies or not address:
        return False
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return False
    return any(ip in network for network in proxies)


def client_address(peer: str, forwarded_for: str, proxies: Sequence[Network]) -> str:
    """Who a request comes from: ``peer``, or, if it is a trusted proxy, the last untrusted address it forwarded.

    ``forwarded_for`` is the request's ``X-Forwarded-For`` (every such header,
    joined by commas); it is read only when ``peer`` is trusted. Each proxy
    appends the address it was connected from, so the right-most entry that
    is not a trusted proxy is the client's (entries further left are the
    client's own words).
    """
    if not trusted(peer, proxies):
        return peer
    hops = [hop.strip() for hop in forwarded_for.split(",") if hop.strip()]
    for hop in reversed(hops):
        if not trusted(hop, proxies):
            try:
                return str(ipaddress.ip_address(hop))
            except ValueError:
                return peer  # a proxy that forwards garbage: counted as itself
    return peer
