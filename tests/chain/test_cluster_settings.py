"""Configuration, not code, decides the cluster: program ids, mints and singleton addresses
are settings with the ecosystem's mainnet values as defaults, and token decimals are read
from the mints on the chain (never assumed)."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path

import pytest
from solders.keypair import Keypair
from solders.pubkey import Pubkey
from solders.system_program import CreateAccountParams, create_account
from spl.token.constants import MINT_LEN, TOKEN_2022_PROGRAM_ID, TOKEN_PROGRAM_ID
from spl.token.instructions import initialize_mint2
from spl.token.models import InitializeMint2Params
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from chain import cluster
from chain.custody import CustodyTransfer
from chain.decimals import TokenDecimals
from chain.errors import ChainUnavailable
from chain.gateway import ChainGateway
from chain.keys import load_or_create_keys
from chain.rpc import ChainRpc
from core.config import Settings
from core.embedded import free_port
from core.money import InvalidAmount

GatewayFactory = Callable[..., Awaitable[ChainGateway]]


@pytest.fixture
async def make_gateway(
    worker_settings: Settings, session_maker: async_sessionmaker[AsyncSession]
) -> AsyncIterator[GatewayFactory]:
    transports: list[ChainRpc] = []

    async def build(settings: Settings | None = None, **kwargs: object) -> ChainGateway:
        cfg = settings or worker_settings
        rpc = ChainRpc.of(cfg, timeout=3)
        transports.append(rpc)
        keys = load_or_create_keys(worker_settings.chain_keys_dir)
        return ChainGateway(cfg, rpc, keys, session_maker, poll_interval=0.05, **kwargs)  # type: ignore[arg-type]

    yield build
    for rpc in transports:
        await rpc.aclose()


def test_mainnet_is_the_default_in_production_and_the_local_chain_in_dev(tmp_path: Path) -> None:
    keys = load_or_create_keys(tmp_path / "keys")
    prod = Settings(environment="production", secret_key="s" * 40, master_key="k" * 44)
    resolved = cluster.resolve(prod, keys)
    assert {k: str(v) for k, v in resolved.programs.items()} == cluster.MAINNET_PROGRAM_IDS
    assert {k: str(v) for k, v in resolved.mints.items()} == cluster.MAINNET_MINTS
    assert str(resolved.mcd_config) == "9ru4MVNzxHM7ADgSTSYZaRNJ7JVS2mT3QXg9tZri7mYp"
    assert str(resolved.reincarnation_pool) == "H3azAs4vdPKa1zVJ74dkGyUtNzpobE8fDKAn4BmZ26it"

    dev = cluster.resolve(Settings(environment="dev"), keys)
    assert dev.programs == resolved.programs  # our programs sit at the same ids locally
    assert dev.mints["mcc"] == keys.mcc_mint.pubkey()
    assert dev.mints["mcd"] == keys.mcd_mint.pubkey()
    assert dev.mints["usdc"] is None  # the local chain has no stablecoin unless configured

    devnet = Settings(
        environment="production",
        secret_key="s" * 40,
        master_key="k" * 44,
        reincarnation_program_id="FWtbqFjtjXEGCaMSwLAHxgUjPS9nd3SdZatbM4anAvvw",
        mcc_mint=str(keys.mcc_mint.pubkey()),
        reincarnation_pool_address="FzZBRL8BZ13LEjnrgMfahEv8UGuyivhGE6jp8MHtjMqc",
    )
    moved = cluster.resolve(devnet, keys)
    assert str(moved.programs["reincarnation"]) == "FWtbqFjtjXEGCaMSwLAHxgUjPS9nd3SdZatbM4anAvvw"
    assert moved.mints["mcc"] == keys.mcc_mint.pubkey()
    assert str(moved.reincarnation_pool) == "FzZBRL8BZ13LEjnrgMfahEv8UGuyivhGE6jp8MHtjMqc"


def test_token_decimals_per_currency() -> None:
    differ = TokenDecimals(mcc=9, mcd=6)
    assert (differ.of("mcc"), differ.of("MCD")) == (9, 6)
    # Each amount in its own mint's base units, both ways.
    assert differ.parse("1.5", "MCD") == 1_500_000 and differ.parse("1.5", "MCC") == 1_500_000_000
    assert differ.format(1_500_000, "MCD") == "1.5" and differ.format(1_500_000, "MCC") == "0.0015"
    with pytest.raises(InvalidAmount):
        differ.parse("0.0000001", "MCD")  # finer than the MCD mint's 6 decimals
    with pytest.raises(ValueError):
        differ.of("SOL")


async def test_decimals_are_read_from_the_mints(
    make_gateway: GatewayFactory, worker_settings: Settings
) -> None:
    gw = await make_gateway()
    with pytest.raises(ChainUnavailable):
        gw.token_decimals()  # nothing assumed before the chain answered
    await gw.warm_up()
    assert gw.token_decimals() == TokenDecimals(mcc=9, mcd=9)

    # An MCD mint with 6 decimals (the mcd-token constant): the gateway follows the chain.
    mint = Keypair()
    creator = await make_gateway(extra_signers=[mint])
    payer = creator.keys.fee_payer.pubkey()
    rent = await creator.rent_exemption(MINT_LEN)
    params = CreateAccountParams(
        from_pubkey=payer, to_pubkey=mint.pubkey(), lamports=rent, space=MINT_LEN,
        owner=TOKEN_PROGRAM_ID,
    )  # fmt: skip
    init = InitializeMint2Params(
        decimals=6, program_id=TOKEN_PROGRAM_ID, mint=mint.pubkey(),
        mint_authority=creator.keys.mint_authority.pubkey(), freeze_authority=None,
    )  # fmt: skip
    op_key = f"test-mint6-{uuid.uuid4().hex}"
    await creator.submit(op_key, [create_account(params), initialize_mint2(init)])
    (await creator.await_final(op_key, 30)).raise_for_failure()

    six = await make_gateway(worker_settings.model_copy(update={"mcd_mint": str(mint.pubkey())}))
    decimals = await six.load_token_decimals()
    assert decimals == TokenDecimals(mcc=9, mcd=6)
    assert six.keys.mint_for("MCD") == mint.pubkey()  # custody follows the configured mint
    ix = six.transfer_instruction(CustodyTransfer("MCD", "alice", "bob", 1_500_000))
    # SPL TransferChecked: tag 12, u64 amount, u8 decimals; accounts: source, mint, dest, owner
    assert bytes(ix.data) == bytes([12]) + (1_500_000).to_bytes(8, "little") + bytes([6])
    assert ix.accounts[1].pubkey == mint.pubkey()
    mcc = six.transfer_instruction(CustodyTransfer("MCC", "alice", "bob", 1))
    assert bytes(mcc.data)[-1] == 9
    assert ix.program_id == mcc.program_id == TOKEN_PROGRAM_ID


async def test_a_token_2022_mint_is_read_and_used(
    make_gateway: GatewayFactory, worker_settings: Settings
) -> None:
    """An MCD mint owned by Token-2022: custody accounts are derived, created and moved with
    Token-2022, never with SPL Token's program."""
    mint = Keypair()
    creator = await make_gateway(extra_signers=[mint])
    rent = await creator.rent_exemption(MINT_LEN)
    params = CreateAccountParams(
        from_pubkey=creator.keys.fee_payer.pubkey(), to_pubkey=mint.pubkey(), lamports=rent,
        space=MINT_LEN, owner=TOKEN_2022_PROGRAM_ID,
    )  # fmt: skip
    init = InitializeMint2Params(
        decimals=6, program_id=TOKEN_2022_PROGRAM_ID, mint=mint.pubkey(),
        mint_authority=creator.keys.mint_authority.pubkey(), freeze_authority=None,
    )  # fmt: skip
    op_key = f"test-mint2022-{uuid.uuid4().hex}"
    await creator.submit(op_key, [create_account(params), initialize_mint2(init)])
    (await creator.await_final(op_key, 30)).raise_for_failure()

    gw = await make_gateway(worker_settings.model_copy(update={"mcd_mint": str(mint.pubkey())}))
    assert await gw.load_token_decimals() == TokenDecimals(mcc=9, mcd=6)
    assert gw.keys.token_program("MCD") == TOKEN_2022_PROGRAM_ID
    assert gw.keys.token_program("MCC") == TOKEN_PROGRAM_ID
    uid = f"u_{uuid.uuid4().hex[:8]}"
    address = await gw.ensure_custody_account(uid, "MCD")
    account = await gw.account(address, "finalized")
    assert account is not None and account.owner == TOKEN_2022_PROGRAM_ID
    await gw.mint(f"test-mint2022-to-{uid}", uid, 2_500_000)
    other = f"u_{uuid.uuid4().hex[:8]}"
    await gw.ensure_custody_account(other, "MCD")
    await gw.transfer(f"test-2022-move-{uid}", "MCD", uid, other, 1_000_000)
    assert await gw.custody_balance(uid, "MCD", "finalized") == 1_500_000
    assert await gw.custody_balance(other, "MCD", "finalized") == 1_000_000


async def test_a_missing_mint_is_an_error_not_a_guess(
    make_gateway: GatewayFactory, worker_settings: Settings
) -> None:
    nowhere = worker_settings.model_copy(update={"mcc_mint": str(Pubkey.new_unique())})
    gw = await make_gateway(nowhere)
    with pytest.raises(Exception, match="does not exist"):
        await gw.load_token_decimals()


async def test_a_chain_that_is_down_at_start_up(
    make_gateway: GatewayFactory, worker_settings: Settings
) -> None:
    """Decimals read once for a mint address are kept (a mint's decimals never change): a
    process starting while its chain is down uses them; a mint never read is waited for."""
    await (await make_gateway()).load_token_decimals(keep=True)  # read from the chain, kept
    down_url = f"http://127.0.0.1:{free_port()}"
    down = worker_settings.model_copy(update={"solana_rpc_url": down_url})
    assert (await (await make_gateway(down)).load_token_decimals()) == TokenDecimals(9, 9)

    never_read = down.model_copy(update={"mcc_mint": str(Pubkey.new_unique())})
    gw = await make_gateway(never_read)
    task = asyncio.create_task(gw.warm_up(retry_interval=0.05))
    await asyncio.sleep(0.3)
    assert not task.done()  # still retrying, the process is up
    task.cancel()
    with pytest.raises(ChainUnavailable):
        gw.token_decimals()


async def test_amount_routes_answer_503_until_the_decimals_are_read(
    make_gateway: GatewayFactory,
) -> None:
    from types import SimpleNamespace
    from typing import get_args

    from api.deps import DecimalsDep
    from api.errors import answered_status

    provide = get_args(DecimalsDep)[1].dependency  # what every amount route depends on
    gw = await make_gateway()
    request = SimpleNamespace(app=SimpleNamespace(state=SimpleNamespace(gateway=gw)))
    with pytest.raises(ChainUnavailable) as caught:
        await provide(request)
    assert answered_status(caught.value) == (503, "service-unavailable")
    loaded = await gw.load_token_decimals()
    assert await provide(request) is loaded  # the process's one TokenDecimals
