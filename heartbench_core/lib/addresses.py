"""Which network addresses an endpoint may reach: public ones, and those the operator allows by name, address or network.

An address is *public* when it is globally reachable: not loopback (127.0.0.0/8, ::1), link-local
(169.254.0.0/16 — where cloud metadata services answer — fe80::/10), private (10/8, 172.16/12,
192.168/16), shared (100.64/10), unique- or site-local (fc00::/7, fec0::/10), multicast, reserved,
documentation or unspecified (0.0.0.0, ::). An IPv6 address that carries an IPv4 one — IPv4-mapped
(::ffff:a.b.c.d), IPv4-compatible (::a.b.c.d), NAT64 (64:ff9b::/96, 64:ff9b:1::/48) or 6to4
(2002::/16) — is judged by the IPv4 address it carries, since that is where it leads.

The operator's allowance (`ENDPOINT_ALLOWED_HOSTS`) lists host names, addresses and networks (CIDR):
a listed name may resolve to anything, an address inside a listed network is allowed whatever it is.
Pure: no Django, no DNS (the caller resolves).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from ipaddress import IPv4Address, IPv4Network, IPv6Address, IPv6Network, ip_address, ip_network

IPAddress = IPv4Address | IPv6Address
IPNetwork = IPv4Network | IPv6Network

_NAT64 = (IPv6Network("64:ff9b::/96"), IPv6Network("64:ff9b:1::/48"))
_IPV4_COMPATIBLE = IPv6Network("::/96")
_HOST_NAME = re.compile(r"^(?=.{1,253}$)[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*$")


def embedded_ipv4(address: IPv6Address) -> IPv4Address | None:
    """The IPv4 address an IPv6 address carries (mapped, compatible, NAT64, 6to4), or None."""
    if address.ipv4_mapped is not None:
        return address.ipv4_mapped
    if address.sixtofour is not None:
        return address.sixtofour
    if address in _IPV4_COMPATIBLE or any(address in network for network in _NAT64):
        return IPv4Address(int(address) & 0xFFFFFFFF)
    return None


def is_public(address: IPAddress) -> bool:
    """True for a globally reachable unicast address (see the module's docstring for what is not)."""
    if isinstance(address, IPv6Address):
        inner = embedded_ipv4(address)
        if inner is not None:
            return is_public(inner)
        if address.is_site_local:
            return False
    return address.is_global and not (
        address.is_multicast
        or address.is_reserved
        or address.is_private
        or address.is_loopback
        or address.is_link_local
        or address.is_unspecified
    )


def parse_address(text: str) -> IPAddress | None:
    """The address a host written as an IP literal names (brackets and an IPv6 zone allowed), or None for a name."""
    try:
        return ip_address(text.strip("[]"))
    except ValueError:
        return None


@dataclass(frozen=True)
class AllowedHosts:
    """What the operator allows beyond public addresses: host names (any address they resolve to), and networks."""

    names: frozenset[str] = frozenset()
    networks: tuple[IPNetwork, ...] = ()

    @classmethod
    def parse(cls, entries: list[str] | tuple[str, ...]) -> AllowedHosts:
        """The allowance from entries such as "llm.internal", "127.0.0.1", "10.0.0.0/8", "fd00::/8"; ValueError naming a bad entry."""
        names: set[str] = set()
        networks: list[IPNetwork] = []
        for raw in entries:
            entry = raw.strip().lower().rstrip(".")
            if not entry:
                continue
            if "/" in entry or parse_address(entry) is not None:
                try:
                    networks.append(ip_network(entry.strip("[]"), strict=False))
                except ValueError:
                    raise ValueError(f"{raw!r} is neither a host name nor an IP address or network") from None
            elif _HOST_NAME.match(entry):
                names.add(entry)
            else:
                raise ValueError(f"{raw!r} is neither a host name nor an IP address or network")
        return cls(frozenset(names), tuple(networks))

    def allows_name(self, host: str) -> bool:
        """True when the host name itself is listed (whatever it resolves to)."""
        return host.lower().rstrip(".") in self.names

    def allows_address(self, address: IPAddress) -> bool:
        """True for a public address, or one inside a listed network (an IPv4-mapped address also by its IPv4 form)."""
        if is_public(address):
            return True
        forms: list[IPAddress] = [address]
        if isinstance(address, IPv6Address) and address.ipv4_mapped is not None:
            forms.append(address.ipv4_mapped)
        return any(form.version == network.version and form in network for form in forms for network in self.networks)
