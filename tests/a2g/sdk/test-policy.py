# SPDX-License-Identifier: LGPL-2.1-or-later
"""test-policy.py: the Ed25519-signed /v1/policy against the real `gamegate a2g`
(policy-signing-key: a key made now with openssl), verified by the SDK
example's a2g_policy: the policy as served loads, its signature in the
spec's form ("ed25519:<base64>"); a flipped byte, another key, a removed or
relabelled signature (another prefix, the old object form) and a wrong
pinned hash are refused; the key never reaches the service's output.

Usage: test-policy.py EXAMPLES_DIR (examples/a2g/python)
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import a2g_service  # noqa: E402


def make_key(directory: str, name: str) -> tuple[str, str]:
    """(the private key's PEM file, the raw public key in hex)."""
    path = os.path.join(directory, name)
    subprocess.run(["openssl", "genpkey", "-algorithm", "ed25519", "-out", path], check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    der = subprocess.run(["openssl", "pkey", "-in", path, "-pubout", "-outform", "DER"], check=True,
                         stdout=subprocess.PIPE, stderr=subprocess.DEVNULL).stdout
    return path, der[-32:].hex()


def refused(policy_module, raw, **keys) -> str:
    try:
        policy_module.load_policy(raw, **keys)
    except policy_module.PolicyError as error:
        return str(error)
    raise AssertionError(f"loaded a policy that must be refused ({keys})")


def main(examples: str) -> int:
    sys.path.insert(0, examples)
    import a2g_policy  # noqa: E402

    with open(os.path.join(examples, "orbital-freight.json"), encoding="utf-8") as handle:
        manifest = json.load(handle)
    with tempfile.TemporaryDirectory(prefix="a2g-policy-") as directory:
        key_path, public = make_key(directory, "policy.pem")
        _, other_public = make_key(directory, "other.pem")
        with open(key_path, encoding="ascii") as handle:
            secret_text = handle.read()
        with a2g_service.Service(settings={"policy-signing-key": key_path}) as service:
            status, opened = a2g_service.call(service.port, "POST", "/v1/session", {
                "a2g": "0.1", "client_id": "c_policy_test_01", "game": manifest["game"], "manifest": manifest})
            assert status == 200, (status, opened)
            status, decided = a2g_service.call(service.port, "POST", "/v1/decide", {
                "client_id": "c_policy_test_01", "epoch": 1, "entities": [{
                    "entity": "pirate-7", "type": "pirate", "observations": {"hp": 35, "cornered": True},
                    "legal_actions": ["flee", "attack"]}]}, token=opened["session_token"])
            assert status == 200 and decided["decisions"][0]["source"] == "model", decided
            conn = a2g_service.http.client.HTTPConnection("127.0.0.1", service.port, timeout=30)
            conn.request("GET", "/v1/policy?manifest_hash=" + opened["manifest_hash"])
            response = conn.getresponse()
            raw = response.read()
            conn.close()
            assert response.status == 200, raw
            stderr = service.stderr_text()
        # The key, in any form, never in the service's output.
        seed_lines = [line for line in secret_text.splitlines() if line and not line.startswith("-----")]
        assert all(line not in stderr for line in seed_lines), "the policy key reached the log"

    policy = json.loads(raw)
    # a2g-0.1.md section 8: a string, "ed25519:<base64 of 64 bytes>".
    assert isinstance(policy["signature"], str) and policy["signature"].startswith("ed25519:"), policy
    assert len(a2g_policy.base64.b64decode(policy["signature"][len("ed25519:"):], validate=True)) == 64, policy
    assert len(policy["entries"]) == 1 and policy["entries"][0]["action"] == "flee", policy
    loaded = a2g_policy.load_policy(raw, public_key_hex=public)
    assert loaded["entries"] == policy["entries"]
    a2g_policy.load_policy(raw, pinned_sha256=policy["sha256"])
    print("ok: the signed policy verifies (signature and sha256)")

    # One byte flipped inside the signed data (the chosen action).
    flipped = raw.replace(b'"action":"flee"', b'"action":"flea"')
    assert flipped != raw
    print("ok: flipped byte:", refused(a2g_policy, flipped, public_key_hex=public))
    # The same flip with a recomputed sha256: the signature still fails.
    tampered = json.loads(flipped)
    body = {key: value for key, value in tampered.items() if key not in ("sha256", "signature")}
    tampered["sha256"] = a2g_policy.hashlib.sha256(a2g_policy.canonical_json(body).encode()).hexdigest()
    message = refused(a2g_policy, json.dumps(tampered), public_key_hex=public)
    assert message == "the signature does not verify", message
    print("ok: re-hashed tampering:", message)
    # A flipped bit of the signature itself.
    signature = bytearray(a2g_policy.base64.b64decode(policy["signature"][len("ed25519:"):]))
    signature[10] ^= 0x01
    bad = dict(policy, signature="ed25519:" + a2g_policy.base64.b64encode(signature).decode())
    assert refused(a2g_policy, json.dumps(bad), public_key_hex=public) == "the signature does not verify"
    # The same signature under another algorithm's name, or in the old
    # object form: not an Ed25519 signature of this spec.
    for other in ("ecdsa-p256:" + policy["signature"][len("ed25519:"):],
                  "ED25519:" + policy["signature"][len("ed25519:"):],
                  policy["signature"][len("ed25519:"):],
                  {"alg": "Ed25519", "value": policy["signature"][len("ed25519:"):]}):
        relabelled = dict(policy, signature=other)
        assert refused(a2g_policy, json.dumps(relabelled), public_key_hex=public) == "no Ed25519 signature", other
    # Not base64 after the prefix.
    garbled = dict(policy, signature="ed25519:not base64!")
    assert refused(a2g_policy, json.dumps(garbled), public_key_hex=public) == "a malformed signature or key"
    # Another key; no signature; a wrong pinned hash; nothing to verify with.
    assert refused(a2g_policy, raw, public_key_hex=other_public) == "the signature does not verify"
    unsigned = {key: value for key, value in policy.items() if key != "signature"}
    assert refused(a2g_policy, json.dumps(unsigned), public_key_hex=public) == "no Ed25519 signature"
    assert refused(a2g_policy, raw, pinned_sha256="0" * 64) == "not the pinned policy"
    assert "nothing to verify" in refused(a2g_policy, raw)
    print("ok: other key, unsigned, wrong pin and no key refused")
    # The pure-Python verifier agrees with PyNaCl when both are there.
    canonical = a2g_policy.canonical_json(
        {key: value for key, value in policy.items() if key not in ("sha256", "signature")}).encode()
    value = a2g_policy.base64.b64decode(policy["signature"][len("ed25519:"):])
    assert a2g_policy._verify_pure(bytes.fromhex(public), canonical, value)
    assert not a2g_policy._verify_pure(bytes.fromhex(other_public), canonical, value)
    print("ok: the standard-library verifier")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
