"""A software passkey for HTTP-level tests: what a browser and an authenticator answer to the
authorization server's WebAuthn options (fmt "none" attestation, ES256, user verified), built
by hand so a test can also answer from the wrong origin or with a counter that went back."""

from __future__ import annotations

import base64
import hashlib
import json
import os
import struct
from typing import Any

import cbor2
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec

_UP_UV = 0x01 | 0x04
_ATTESTED = 0x40


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).decode().rstrip("=")


class SoftPasskey:
    def __init__(self) -> None:
        self.key = ec.generate_private_key(ec.SECP256R1())
        self.credential_id = os.urandom(16)
        self.counter = 0
        self.user_handle = b""

    def _cose(self) -> bytes:
        numbers = self.key.public_key().public_numbers()
        return cbor2.dumps({1: 2, 3: -7, -1: 1, -2: numbers.x.to_bytes(32, "big"),
                            -3: numbers.y.to_bytes(32, "big")})  # fmt: skip

    def _client_data(self, kind: str, options: dict[str, Any], origin: str) -> bytes:
        return json.dumps({"type": kind, "challenge": options["challenge"], "origin": origin,
                           "crossOrigin": False}).encode()  # fmt: skip

    def _auth_data(self, rp_id: str, flags: int, extra: bytes = b"") -> bytes:
        rp_hash = hashlib.sha256(rp_id.encode()).digest()
        return rp_hash + bytes([flags]) + struct.pack(">I", self.counter) + extra

    def create(self, options: dict[str, Any], origin: str) -> str:
        """The registration answer to ``options`` (PublicKeyCredentialCreationOptions JSON)."""
        self.user_handle = base64.urlsafe_b64decode(options["user"]["id"] + "==")
        attested = bytes(16) + struct.pack(">H", len(self.credential_id)) + self.credential_id
        auth_data = self._auth_data(options["rp"]["id"], _UP_UV | _ATTESTED,
                                    attested + self._cose())  # fmt: skip
        attestation = cbor2.dumps({"fmt": "none", "attStmt": {}, "authData": auth_data})
        client_data = self._client_data("webauthn.create", options, origin)
        return json.dumps({"id": b64url(self.credential_id), "rawId": b64url(self.credential_id),
                           "type": "public-key", "response": {
                               "clientDataJSON": b64url(client_data),
                               "attestationObject": b64url(attestation)}})  # fmt: skip

    def get(self, options: dict[str, Any], origin: str, *, counter_step: int = 1) -> str:
        """The sign-in answer to ``options`` (PublicKeyCredentialRequestOptions JSON)."""
        self.counter += counter_step
        auth_data = self._auth_data(options["rpId"], _UP_UV)
        client_data = self._client_data("webauthn.get", options, origin)
        signed = auth_data + hashlib.sha256(client_data).digest()
        signature = self.key.sign(signed, ec.ECDSA(hashes.SHA256()))
        return json.dumps({"id": b64url(self.credential_id), "rawId": b64url(self.credential_id),
                           "type": "public-key", "response": {
                               "authenticatorData": b64url(auth_data),
                               "clientDataJSON": b64url(client_data),
                               "signature": b64url(signature),
                               "userHandle": b64url(self.user_handle)}})  # fmt: skip
