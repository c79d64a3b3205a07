"""The node's jsonParsed form of SPL Token instructions, as Agave's ``parse_token`` writes them:
the accounts by name, the amount (a string, or a ``tokenAmount`` with the mint's decimals for
the checked forms), and the authority as one signer or a multisig and its signers."""

from __future__ import annotations

import struct

from devchain.node.rpc.parsed_token import parse_token


def _amount(tag: int, amount: int, decimals: int | None = None) -> bytes:
    data = bytes([tag]) + struct.pack("<Q", amount)
    return data if decimals is None else data + bytes([decimals])


def test_transfer_with_one_signer() -> None:
    assert parse_token(_amount(3, 1500), ["src", "dst", "me"]) == {
        "type": "transfer",
        "info": {"source": "src", "destination": "dst", "amount": "1500", "authority": "me"},
    }


def test_transfer_checked_from_a_multisig() -> None:
    parsed = parse_token(_amount(12, 2_500_000, 6), ["src", "mint", "dst", "ms", "s1", "s2"])
    assert parsed["type"] == "transferChecked"
    info = parsed["info"]
    assert (info["source"], info["mint"], info["destination"]) == ("src", "mint", "dst")
    assert info["tokenAmount"]["amount"] == "2500000"
    assert info["tokenAmount"]["decimals"] == 6
    assert info["multisigAuthority"] == "ms" and info["signers"] == ["s1", "s2"]
    assert "authority" not in info


def test_each_authority_has_its_own_names() -> None:
    assert parse_token(bytes([5]), ["src", "owner"])["info"] == {"source": "src", "owner": "owner"}
    assert parse_token(bytes([10]), ["acct", "mint", "ms", "s1"]) == {
        "type": "freezeAccount",
        "info": {
            "account": "acct",
            "mint": "mint",
            "multisigFreezeAuthority": "ms",
            "signers": ["s1"],
        },
    }
    minted = parse_token(_amount(14, 7, 9), ["mint", "acct", "auth"])
    assert minted["type"] == "mintToChecked" and minted["info"]["mintAuthority"] == "auth"
    closed = parse_token(bytes([9]), ["acct", "dst", "owner"])
    assert closed == {
        "type": "closeAccount",
        "info": {"account": "acct", "destination": "dst", "owner": "owner"},
    }
