"""Account codecs against the facts page (ecosystem-programs.md sections 1.4, 2 and 4)."""

from __future__ import annotations

import pytest
from solders.keypair import Keypair

from chain.ecosystem import auction as au
from chain.ecosystem import fragment as fr
from chain.ecosystem import lending as ln
from chain.ecosystem import level_verifier as lv
from chain.ecosystem import territory as te
from chain.ecosystem.borsh import AnchorAccount, LayoutError
from devchain.defi import lending_pool


def key() -> str:
    return str(Keypair().pubkey())


# (class, disc hex, base58 of disc, space) straight from the table in section 2.0
DISCS = [
    (au.AuctionConfig, "c33608331ce7218e", "ZenvkESNce9", 283),
    (au.Auction, "da5ef7f27ee98351", "dXUNg5L6wP6", 260),
    (au.Bid, "8ff630f52a91b458", "R5cJaYjpngP", 92),
    (fr.FragmentConfig, "e9bb246aa2e1f4de", "g6V4EdZ2dnu", 98),
    (fr.FragmentVault, "a2effdf1f3af3679", "UFhTZJXKrrk", 189),
    (fr.Buyout, "57cb03fae5852295", "Fghjjrw1otG", 171),
    (ln.LendingPool, "d028f252ba124b24", "bpQunZtq53q", 272),
    (ln.Loan, "14c34675a5e3b601", "4URf4twWraU", 182),
    (ln.NftPriceOracle, "140a6a29c8c150c4", "4MRLx61kx9Z", 89),
    (lv.VerifierConfig, "b067f8248aa7b0dc", "WWMuWejotiw", 250),
    (lv.UserProfile, "202577cdb3b40dc2", "6NrstEfxKVB", 279),
    (te.TerritoryCollection, "2f5a083749015ce5", "8vNVzZpdCaG", 250),
    (te.TerritoryNft, "a4884ba829d160a1", "UXAtJtyMWrt", 176),
]


@pytest.mark.parametrize(
    ("cls", "hex_", "b58", "space"), DISCS, ids=lambda v: getattr(v, "NAME", "")
)
def test_discriminators_and_space(
    cls: type[AnchorAccount], hex_: str, b58: str, space: int
) -> None:
    from devchain.node.codec import b58encode

    assert cls.discriminator().hex() == hex_
    assert b58encode(cls.discriminator()) == b58
    assert space == cls.SPACE
    cls.check_layout()


def test_pdas_match_the_facts_page() -> None:
    assert au.config_pda() == ("32h5ZUhd4cqAw42JQqy8geWz44MGpgbX9pdykRP8LyhJ", 255)
    assert au.auction_pda(1) == ("D5N4Te4A3MSpu8y3DHQ7ZHZFDGcsLrpUNLGfmzphAtgu", 255)
    assert au.escrow_pda(1) == ("G1bhCkjaoud9kZZB8EMRHBHa4DHRfrZ7UicLjQwHDU4b", 255)
    assert fr.config_pda() == ("4bihhgqevyvTpBN5A73JyD2jxMQbbw3JGejtCpNzkzKV", 254)
    assert lv.config_pda() == ("EF3sYSzXeWEHPjquTX3GaqiRpFn8VGWfNvEwzfZZGBEG", 251)
    assert te.collection_pda() == ("Fy3mbmJCgDXvhHzQhm7gMAGgNpvPXLXNs7nBnaaAgkVQ", 254)
    assert te.nft_pda(0, 1) == ("26YEVcySkZ4LScJQV5QDzZvKexEmdDonnHBkPSLVx8jn", 255)


def auction(
    buy_now: int | None, bidder: str | None, nft: str | None, done: int | None
) -> au.Auction:
    return au.Auction(
        auction_id=7,
        auction_type=1 if nft else 0,
        status=1,
        territory_type=2,
        territory_id=42,
        creator=key(),
        starting_price=10**9,
        buy_now_price=buy_now,
        current_price=5 * 10**9,
        highest_bidder=bidder,
        bid_count=3,
        start_time=1_700_000_000,
        end_time=1_700_086_400,
        extension_count=1,
        proceeds_recipient=key(),
        settled_amount=0,
        nft_mint=nft,
        created_at=1_699_999_999,
        completed_at=done,
        bump=254,
    )


@pytest.mark.parametrize(
    ("buy_now", "bid", "end_off"),
    [(None, False, 87), (9 * 10**9, False, 95), (None, True, 119), (9 * 10**9, True, 127)],
)
def test_auction_options_shift_offsets(buy_now: int | None, bid: bool, end_off: int) -> None:
    for nft in (None, key()):
        for done in (None, 1_700_100_000):
            a = auction(buy_now, key() if bid else None, nft, done)
            raw = a.encode()
            assert len(raw) == 260
            assert au.Auction.decode(raw) == a
            offs = a.offsets()
            assert offs["end_time"] == end_off
            assert int.from_bytes(raw[end_off : end_off + 8], "little") == 1_700_086_400
            assert (offs["status"], offs["creator"], offs["starting_price"]) == (17, 27, 59)
            o_b, o_h = (8 if buy_now else 0), (32 if bid else 0)
            o_n = 32 if nft else 0
            assert offs["nft_mint"] == 137 + o_b + o_h
            assert offs["created_at"] == 138 + o_b + o_h + o_n
            assert offs["bump"] == 147 + o_b + o_h + o_n + (8 if done else 0)


def test_config_and_bid_fixed_offsets() -> None:
    cfg = au.AuctionConfig(
        key(), key(), key(), key(), 10, 86400, 600, 300, 5, 4, 1, 1, 7 * 10**9, False, True, 1, 2
    )
    raw = cfg.encode()
    assert au.AuctionConfig.decode(raw) == cfg
    assert raw[136] == 10 and int.from_bytes(raw[161:169], "little") == 5 and raw[202] == 1
    bid = au.Bid(7, key(), 3 * 10**9, 1, 1_700_000_100, 1_700_000_200, True, 250)
    raw = bid.encode()
    assert au.Bid.decode(raw) == bid and len(raw) == 92
    assert bid.offsets()["is_refunded"] == 66 + 8 and raw[74] == 1
    nobid = au.Bid(7, key(), 3 * 10**9, 0, 1_700_000_100, None, False, 250)
    assert nobid.offsets()["bump"] == 67 and au.Bid.decode(nobid.encode()) == nobid


def test_fragment_strings_shift_offsets() -> None:
    v = fr.FragmentVault(
        key(),
        key(),
        key(),
        "Station 42 shards",
        "ST42",
        1000,
        1000,
        4,
        1_700_000_000,
        1_700_500_000,
        253,
    )
    raw = v.encode()
    assert fr.FragmentVault.decode(raw) == v and len(raw) == 189
    n, m = len("Station 42 shards"), len("ST42")
    offs = v.offsets()
    assert offs["total_fragments"] == 112 + n + m
    assert offs["status"] == 128 + n + m and raw[128 + n + m] == 4
    assert offs["bump"] == 138 + n + m + 8
    assert raw[72:104] == bytes(
        __import__("solders.pubkey", fromlist=["Pubkey"]).Pubkey.from_string(v.fragment_mint)
    )
    b = fr.Buyout(key(), key(), 5, 500, 100, 40, 200, key(), 1, 10, 20, None, 255)
    assert fr.Buyout.decode(b.encode()) == b and b.offsets()["bump"] == 162
    c = fr.FragmentConfig(key(), 100, 10_000, 604_800, 3, 1, False, 1, 2, 254)
    assert fr.FragmentConfig.decode(c.encode()) == c and c.offsets()["bump"] == 97


def test_lending_name_shifts_offsets() -> None:
    p = lending_pool(
        "MCC Main Pool",
        key(),
        key(),
        key(),
        key(),
        deposits=10**13,
        borrowed=4 * 10**12,
        lp_supply=10**13,
        accrued_interest=5 * 10**9,
        protocol_fees=10**8,
        last_update=1,
        created=2,
        updated=3,
        bump=255,
    )
    raw = p.encode()
    assert ln.LendingPool.decode(raw) == p
    n = len("MCC Main Pool")
    offs = p.offsets()
    assert (offs["authority"], offs["total_deposits"], offs["is_active"], offs["bump"]) == (
        12 + n,
        140 + n,
        212 + n,
        239 + n,
    )
    loan = ln.Loan(
        key(), key(), key(), 1, 15 * 10**12, 10**12, 0, 1625, 1, 2, 1, 2, 3, None, 9, 250
    )
    raw = loan.encode()
    assert ln.Loan.decode(raw) == loan and raw[137] == 1 and raw[138] == 2
    assert loan.offsets()["liquidated_at"] == 164 and loan.offsets()["bump"] == 165 + 8
    o = ln.NftPriceOracle(key(), 10**12, 15 * 10**12, 2 * 10**14, 25 * 10**14, 1, 2, 255)
    assert ln.NftPriceOracle.decode(o.encode()) == o and o.offsets()["bump"] == 88


def test_user_profile_string_and_options() -> None:
    uid = "firebase-uid-0123456789"
    p = lv.UserProfile(
        key(),
        uid,
        2,
        1_700_000_000,
        None,
        1_700_200_000,
        21,
        0x1FFFFF,
        19_700,
        1,
        0,
        0,
        0,
        1_700_300_000,
        1_699_000_000,
        1_700_300_000,
        254,
    )
    raw = p.encode()
    assert lv.UserProfile.decode(raw) == p
    u = len(uid)
    offs = p.offsets()
    assert offs["level"] == 44 + u and raw[44 + u] == 2  # stored byte 2 = Miner (logical 3)
    a, b, c = 8, 0, 8
    assert offs["mining_days_in_period"] == 48 + u + a + b + c
    assert offs["created_at"] == 70 + u + a + b + c + 8
    cfg = lv.VerifierConfig(key(), key(), key(), 9, 1, 2, 3, 0, 0, 0, 0, False, True, 1, 2)
    assert lv.VerifierConfig.decode(cfg.encode()) == cfg and cfg.offsets()["created_at"] == 170


def test_territory_fixed_layout() -> None:
    n = te.TerritoryNft(1, 12, key(), key(), 3, 0, False, False, 10, 11, 255)
    raw = n.encode()
    assert te.TerritoryNft.decode(raw) == n
    assert n.offsets() == {
        "territory_type": 8,
        "territory_id": 9,
        "mint": 17,
        "owner": 49,
        "parent_id": 81,
        "current_members": 89,
        "is_auctioning": 93,
        "is_frozen": 94,
        "created_at": 95,
        "updated_at": 103,
        "bump": 111,
        "reserved": 112,
    }
    c = te.TerritoryCollection(key(), key(), key(), key(), 5, 4, 3, 1, 1, 2, True, 254)
    raw = c.encode()
    assert te.TerritoryCollection.decode(raw) == c and raw[184] == 1
    assert int.from_bytes(raw[144:152], "little") == 4


def test_decode_refuses_wrong_or_truncated_bytes() -> None:
    n = te.TerritoryNft(1, 12, key(), key(), 3, 0, False, False, 10, 11, 255)
    with pytest.raises(LayoutError):
        au.Auction.decode(n.encode())
    with pytest.raises(LayoutError):
        te.TerritoryNft.decode(n.encode()[:50])
    bad = bytearray(auction(None, None, None, None).encode())
    bad[67] = 7  # an Option tag that is neither 0 nor 1
    with pytest.raises(LayoutError):
        au.Auction.decode(bytes(bad))


# -- lending math: the facts page's worked values (section 4) -----------------------------


def test_rate_curve_defaults() -> None:
    rates = {
        u: ln.borrow_rate(u, 1000, 8000, 1000, 8000) for u in (0, 2500, 5000, 8000, 9000, 10000)
    }
    assert rates == {0: 1000, 2500: 1312, 5000: 1625, 8000: 2000, 9000: 6000, 10000: 10000}
    assert ln.supply_rate(1625, 5000) == 730
    assert ln.supply_rate(6000, 9000) == 4860


def test_overflow_limits() -> None:
    assert ln.max_seconds_before_overflow(100 * 10**9, 1000) == 184_467
    assert ln.max_seconds_before_overflow(100 * 10**9, 1625) == 113_518
    assert ln.max_seconds_before_overflow(1000 * 10**9, 1625) == 11_351
    ok = ln.interest(100 * 10**9, 1000, 184_467)
    assert not ok.overflow
    assert ok.interest == 100 * 10**9 * 1000 * 184_467 // 10_000 // 31_536_000
    assert ln.interest(100 * 10**9, 1000, 184_468).overflow
    # loans cap the rate at 10000, pools do not
    assert ln.interest(10**9, 30_000, 1000).rate_bps == 10_000
    assert ln.interest(10**9, 30_000, 1000, cap=False).rate_bps == 30_000


def test_memcmp_offsets_derived_from_the_fields() -> None:
    # The fixed-offset filters the facts page gives (section 2).
    assert [au.Auction.fixed_offset(f) for f in ("status", "creator")] == [17, 27]
    assert [au.Bid.fixed_offset(f) for f in ("auction_id", "bidder")] == [8, 16]
    nft = [te.TerritoryNft.fixed_offset(f) for f in ("territory_type", "mint", "owner")]
    assert nft == [8, 17, 49]
    vault = ("original_owner", "nft_mint", "fragment_mint")
    assert [fr.FragmentVault.fixed_offset(f) for f in vault] == [8, 40, 72]
    assert [ln.Loan.fixed_offset(f) for f in ("borrower", "status")] == [8, 137]
    # After a String the offset depends on the value: no fixed offset to give.
    with pytest.raises(ValueError, match="variable-size fragment_name"):
        fr.FragmentVault.fixed_offset("status")


def test_a_field_without_a_codec_is_refused() -> None:
    from dataclasses import dataclass

    @dataclass
    class Bare(AnchorAccount):
        NAME = "Bare"
        SPACE = 16
        count: int

    with pytest.raises(TypeError, match=r"Bare\.count"):
        Bare.check_layout()
