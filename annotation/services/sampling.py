"""Keyed randomness of campaigns: the seeds a campaign's choices are drawn with are the server's secret.

A campaign stores a seed (random by default; an admin may give one to reproduce a sample). Every
choice that could tell a hidden gold check from ordinary work — which items are sampled, which
responses are gold, the order of responses, each expert's own order — is drawn from a seed
*derived* from the stored one with a BLAKE2 hash keyed with the installation's sampling key
(`HEARTBENCH_SAMPLING_KEY`, by default a derivation of `SECRET_KEY`). So whoever reads the stored
seed and knows the code and the released data still cannot recompute any of them; the same
stored seed under the same key draws the same campaign again.
"""

from __future__ import annotations

import functools
import hashlib
import secrets

from django.conf import settings

# Stored seeds are drawn below 2**62: random enough that one cannot be guessed even if the key leaked.
SEED_BITS = 62
# The largest seed an admin may give (the column holds a signed 64-bit integer).
MAX_SEED = 2**63 - 1


def new_seed() -> int:
    """A fresh random campaign seed."""
    return secrets.randbits(SEED_BITS)


@functools.lru_cache(maxsize=4)
def _key(secret: str, explicit: str) -> bytes:
    """The 32-byte BLAKE2 key: the sampling key when one is set, else one derived from SECRET_KEY (never SECRET_KEY itself)."""
    material = explicit.encode() if explicit else b"heartbench-sampling:" + secret.encode()
    return hashlib.blake2b(material, digest_size=32).digest()


def sampling_key() -> bytes:
    """The key every campaign's seeded choices are derived with."""
    return _key(settings.SECRET_KEY, getattr(settings, "HEARTBENCH_SAMPLING_KEY", ""))


def keyed_seed(seed: int, purpose: str) -> int:
    """A 64-bit seed for one purpose ("sample", "gold", "order", …) derived from a campaign's stored seed and the key."""
    digest = hashlib.blake2b(f"{purpose}:{seed}".encode(), key=sampling_key(), digest_size=8).digest()
    return int.from_bytes(digest, "big")


def expert_order(seed: int, expert_id: int, campaign_response_id: int) -> int:
    """A per-expert shuffle key: stable for one expert, different between experts, unknowable without the key.

    No campaign-wide order (which would follow the order responses were sampled in, and so
    the order of models) may decide what an expert sees next.
    """
    digest = hashlib.blake2b(f"order:{seed}:{expert_id}:{campaign_response_id}".encode(), key=sampling_key(), digest_size=8).digest()
    return int.from_bytes(digest, "big")
