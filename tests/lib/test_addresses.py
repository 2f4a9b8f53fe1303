"""heartbench_core/lib/addresses.py: which addresses an endpoint may reach, and the operator's allowance."""

from ipaddress import ip_address

import pytest

from heartbench_core.lib.addresses import AllowedHosts, is_public, parse_address


@pytest.mark.parametrize(
    "address", ["8.8.8.8", "93.184.215.14", "2606:4700::1111", "::ffff:8.8.8.8", "64:ff9b::808:808", "2002:808:808::1"]
)
def test_globally_reachable_addresses_are_public(address):
    assert is_public(ip_address(address))


@pytest.mark.parametrize(
    "address",
    [
        "127.0.0.1",  # loopback
        "169.254.169.254",  # link-local: cloud metadata
        "10.1.2.3",
        "172.16.0.1",
        "192.168.0.1",  # private
        "100.64.0.1",  # shared (carrier-grade NAT)
        "0.0.0.0",  # unspecified
        "224.0.0.1",  # multicast
        "240.0.0.1",  # reserved
        "192.0.2.1",  # documentation
        "::1",
        "::",
        "fe80::1",
        "fe80::1%eth0",
        "fc00::1",
        "fd12:3456::1",  # unique-local
        "fec0::1",  # site-local
        "ff02::1",
        "::ffff:127.0.0.1",  # IPv4-mapped loopback
        "::ffff:169.254.169.254",
        "::127.0.0.1",  # IPv4-compatible
        "64:ff9b::a9fe:a9fe",  # NAT64 of the metadata service
        "2002:7f00:1::1",  # 6to4 of loopback
        "2001:db8::1",
    ],
)
def test_internal_and_special_addresses_are_not(address):
    assert not is_public(ip_address(address))


def test_the_allowance_lists_names_addresses_and_networks():
    allowed = AllowedHosts.parse(["LLM.internal.", "127.0.0.1", "10.0.0.0/8", "fd00::/8", " "])
    assert allowed.allows_name("llm.internal") and not allowed.allows_name("other.internal")
    assert allowed.allows_address(ip_address("127.0.0.1")) and not allowed.allows_address(ip_address("127.0.0.2"))
    assert allowed.allows_address(ip_address("::ffff:127.0.0.1"))  # the mapped form of an allowed address
    assert allowed.allows_address(ip_address("10.200.0.1")) and allowed.allows_address(ip_address("fd00::5"))
    assert not allowed.allows_address(ip_address("169.254.169.254"))
    assert allowed.allows_address(ip_address("8.8.8.8"))  # public addresses need no allowance


@pytest.mark.parametrize("entry", ["10.0.0.0/33", "under_score.internal", "http://x", "-bad.example"])
def test_a_bad_entry_is_named(entry):
    with pytest.raises(ValueError, match="neither a host name nor an IP address or network"):
        AllowedHosts.parse([entry])


def test_a_host_is_an_address_only_when_written_as_one():
    assert parse_address("[::1]") == ip_address("::1") and parse_address("127.0.0.1") == ip_address("127.0.0.1")
    assert parse_address("api.example.org") is None
