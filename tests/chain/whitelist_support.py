"""The MCD Token whitelist program in LiteSVM (``test_whitelist_program*.py``): a chain with the
committed mcd_token.so at the mainnet program id and its config, and the instruction helpers."""

from __future__ import annotations

import pytest
from solders.instruction import Instruction
from solders.pubkey import Pubkey

from chain import whitelist as wl
from devchain.node.ecosystem import MCD_TOKEN_PROGRAM_ID, genesis_mcd_config
from devchain.program import elf
from tests.chain.svm_util import NOW, Svm

PROGRAM = MCD_TOKEN_PROGRAM_ID
CONFIG = wl.find_config_pda(PROGRAM)[0]
PROJECT = 4242
NAME = "Moon Auctions"


class WlChain(Svm):
    def __init__(self) -> None:
        super().__init__({PROGRAM: elf("mcd_token")})
        self.authority = self.funded()
        self.config = genesis_mcd_config(
            authority=self.authority.pubkey(), mcd_mint=Pubkey.new_unique(), now=NOW - 100
        )
        self.put(CONFIG, wl.encode_config(self.config), PROGRAM)

    def add_ix(
        self,
        project_id: int = PROJECT,
        name: str | bytes = NAME,
        signer: Pubkey | None = None,
        wallet: Pubkey | None = None,
        **kw: Pubkey,
    ) -> Instruction:
        return wl.add_ix(
            PROGRAM,
            signer or self.authority.pubkey(),
            kw.pop("config", CONFIG),
            project_id,
            name,
            wallet or Pubkey.new_unique(),
            **kw,
        )

    def status_ix(self, status: int, project_id: int = PROJECT, **kw: Pubkey) -> Instruction:
        signer = kw.pop("signer", self.authority.pubkey())
        return wl.set_status_ix(PROGRAM, signer, kw.pop("config", CONFIG), project_id, status, **kw)

    def remove_ix(self, project_id: int = PROJECT, **kw: Pubkey) -> Instruction:
        signer = kw.pop("signer", self.authority.pubkey())
        return wl.remove_ix(PROGRAM, signer, kw.pop("config", CONFIG), project_id, **kw)

    def pda(self, project_id: int = PROJECT) -> Pubkey:
        return wl.find_whitelist_pda(PROGRAM, project_id)[0]

    def entry(self, project_id: int = PROJECT) -> wl.WhitelistEntry | None:
        account = self.svm.get_account(self.pda(project_id))
        if account is None or account.lamports == 0:
            return None
        assert account.owner == PROGRAM
        return wl.decode_entry(bytes(account.data))

    def add(self, project_id: int = PROJECT, name: str = NAME) -> Pubkey:
        wallet = Pubkey.new_unique()
        self.ok(self.add_ix(project_id, name, wallet=wallet), self.authority)
        return wallet


@pytest.fixture(name="chain")
def chain_fixture() -> WlChain:
    return WlChain()
