# SPDX-License-Identifier: LGPL-2.1-or-later
"""a2g_policy: verify a local policy file from GET /v1/policy before loading it.

a2g-security.md: a policy downloaded at runtime MUST be verified before it
is loaded, with an Ed25519 signature (public key embedded in the build) or a
SHA-256 pinned in the build. gamegate signs the canonical JSON (RFC 8785) of
the policy without its `sha256` and `signature` members; `sha256` is the
SHA-256 of that same text, and `signature` is "ed25519:" and the base64 of
the 64-byte signature (any other prefix is refused).

    policy = load_policy(raw_bytes, public_key_hex=STUDIO_POLICY_KEY)
    for entry in policy["entries"]: ...

Standard library only; PyNaCl is used when it is installed (faster), else a
small pure-Python Ed25519 verifier (RFC 8032, section 6) does the same check.
Anything that does not verify raises PolicyError and nothing is loaded.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import math
from typing import Any

try:  # optional
    import nacl.exceptions
    import nacl.signing
except ImportError:  # pragma: no cover - depends on the machine
    nacl = None


SIGNATURE_PREFIX = "ed25519:"


class PolicyError(Exception):
    """The policy must not be loaded: why."""


# ---- RFC 8785 canonical JSON (the subset a policy holds) ---------------------

def _number(value: float | int) -> str:
    if isinstance(value, bool):
        raise PolicyError("not a number")
    if isinstance(value, int):
        return str(value)
    if not math.isfinite(value):
        raise PolicyError("a number out of range")
    if value == int(value) and abs(value) < 1e21:
        return str(int(value))
    text = repr(value)
    if "e" in text:  # ECMAScript: 1e+21, 1e-7
        mantissa, exponent = text.split("e")
        sign = "-" if exponent.startswith("-") else "+"
        text = f"{mantissa}e{sign}{exponent.lstrip('+-').lstrip('0') or '0'}"
    return text


def canonical_json(value: Any) -> str:
    """RFC 8785: sorted members (by UTF-16 code units), no spaces, ES numbers."""
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, (int, float)):
        return _number(value)
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, list):
        return "[" + ",".join(canonical_json(item) for item in value) + "]"
    if isinstance(value, dict):
        keys = sorted(value, key=lambda key: key.encode("utf-16-be"))
        return "{" + ",".join(json.dumps(key, ensure_ascii=False) + ":" + canonical_json(value[key])
                              for key in keys) + "}"
    raise PolicyError("not JSON data")


# ---- Ed25519 verification (RFC 8032, section 6) ------------------------------

_P = 2 ** 255 - 19
_L = 2 ** 252 + 27742317777372353535851937790883648493
_D = -121665 * pow(121666, _P - 2, _P) % _P
_I = pow(2, (_P - 1) // 4, _P)


def _add(a, b):
    x1, y1, z1, t1 = a
    x2, y2, z2, t2 = b
    a_ = (y1 - x1) * (y2 - x2) % _P
    b_ = (y1 + x1) * (y2 + x2) % _P
    c_ = 2 * t1 * t2 * _D % _P
    d_ = 2 * z1 * z2 % _P
    e, f, g, h = b_ - a_, d_ - c_, d_ + c_, b_ + a_
    return (e * f % _P, g * h % _P, f * g % _P, e * h % _P)


def _mul(s, point):
    q = (0, 1, 1, 0)
    while s > 0:
        if s & 1:
            q = _add(q, point)
        point = _add(point, point)
        s >>= 1
    return q


def _equal(a, b):
    x1, y1, z1, _ = a
    x2, y2, z2, _ = b
    return (x1 * z2 - x2 * z1) % _P == 0 and (y1 * z2 - y2 * z1) % _P == 0


def _recover_x(y, sign):
    if y >= _P:
        return None
    x2 = (y * y - 1) * pow(_D * y * y + 1, _P - 2, _P)
    if x2 == 0:
        return None if sign else 0
    x = pow(x2, (_P + 3) // 8, _P)
    if (x * x - x2) % _P != 0:
        x = x * _I % _P
    if (x * x - x2) % _P != 0:
        return None
    if (x & 1) != sign:
        x = _P - x
    return x


def _decompress(data: bytes):
    if len(data) != 32:
        return None
    y = int.from_bytes(data, "little")
    sign = y >> 255
    y &= (1 << 255) - 1
    x = _recover_x(y, sign)
    if x is None:
        return None
    return (x, y, 1, x * y % _P)


_G = (lambda y: (_recover_x(y, 0), y, 1, _recover_x(y, 0) * y % _P))(4 * pow(5, _P - 2, _P) % _P)


def _verify_pure(public: bytes, message: bytes, signature: bytes) -> bool:
    if len(public) != 32 or len(signature) != 64:
        return False
    a = _decompress(public)
    r = _decompress(signature[:32])
    s = int.from_bytes(signature[32:], "little")
    if a is None or r is None or s >= _L:
        return False
    h = int.from_bytes(hashlib.sha512(signature[:32] + public + message).digest(), "little") % _L
    return _equal(_mul(s, _G), _add(r, _mul(h, a)))


def verify_ed25519(public: bytes, message: bytes, signature: bytes) -> bool:
    """Whether `signature` is `public`'s Ed25519 signature of `message`."""
    if nacl is not None:
        try:
            nacl.signing.VerifyKey(public).verify(message, signature)
            return True
        except (nacl.exceptions.BadSignatureError, ValueError, TypeError):
            return False
    return _verify_pure(public, message, signature)


# ---- the policy --------------------------------------------------------------

def load_policy(raw: bytes | str, public_key_hex: str | None = None,
                pinned_sha256: str | None = None) -> dict[str, Any]:
    """The policy in `raw` (the body of GET /v1/policy), once verified.

    With `public_key_hex` (the 32-byte Ed25519 public key embedded in the
    build) the signature must verify; with `pinned_sha256` the hash must be
    that one. One of the two is required. `sha256` must always match.
    """
    if public_key_hex is None and pinned_sha256 is None:
        raise PolicyError("no public key and no pinned hash: nothing to verify against")
    try:
        policy = json.loads(raw)
    except ValueError as error:
        raise PolicyError(f"not JSON: {error}") from None
    if not isinstance(policy, dict) or not isinstance(policy.get("entries"), list):
        raise PolicyError("not a policy")
    claimed = policy.get("sha256")
    signature = policy.get("signature")
    body = {key: value for key, value in policy.items() if key not in ("sha256", "signature")}
    canonical = canonical_json(body).encode("utf-8")
    digest = hashlib.sha256(canonical).hexdigest()
    if not isinstance(claimed, str) or not hmac.compare_digest(claimed, digest):
        raise PolicyError("sha256 does not match the policy")
    if pinned_sha256 is not None and not hmac.compare_digest(pinned_sha256, digest):
        raise PolicyError("not the pinned policy")
    if public_key_hex is not None:
        # a2g-0.1.md section 8: "signature": "ed25519:<base64>"; no other algorithm.
        if not isinstance(signature, str) or not signature.startswith(SIGNATURE_PREFIX):
            raise PolicyError("no Ed25519 signature")
        try:
            value = base64.b64decode(signature[len(SIGNATURE_PREFIX):], validate=True)
            public = bytes.fromhex(public_key_hex)
        except ValueError:
            raise PolicyError("a malformed signature or key") from None
        if not verify_ed25519(public, canonical, value):
            raise PolicyError("the signature does not verify")
    return policy
