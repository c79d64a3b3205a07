"""One settings object for every process (API, worker, dev supervisor, tests), read once per
process (``get_settings()``; the API and the worker hand theirs down, tests build their own).

Values come from the environment (prefix-free names such as ``DATABASE_URL``) or a
``.env`` file. Fields stay flat so that every environment name stays what the docs say
(``WEBHOOK_TIMEOUT_SECONDS`` is ``webhook_timeout_seconds``); a capability's fields are grouped
by a property returning a frozen section (``settings.webhooks``).

The process refuses to start with a default secret unless ``ENVIRONMENT`` is explicitly
``dev`` or ``test`` (``make dev``/``mccgw dev`` and the test suite set it); unset
counts as production.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from decimal import Decimal
from functools import lru_cache
from pathlib import Path
from typing import Annotated, Literal

from pydantic import Field, computed_field, field_validator, model_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict

from core.money import to_base_units
from core.queues import MAIN_TASK_QUEUE

# Placeholder secrets are fine on a laptop and in tests, never in production.
_DEFAULT_SECRET = "changethis-dev-only-secret"
_DEFAULT_MASTER_KEY = "ZGV2LW9ubHktbWFzdGVyLWtleS0zMi1ieXRlcyEhISE="  # 32 bytes, base64

ECOSYSTEM_ORIGINS = [
    "https://mcc.example",
    "https://app.mcc.example",
    "http://localhost:3000",
    "http://localhost:3001",
]


DEFAULT_WEBHOOK_SCHEDULE = (0.0, 5.0, 300.0, 1800.0, 7200.0, 18000.0, 36000.0, 36000.0)


@dataclass(frozen=True)
class WebhookSettings:
    """Webhook delivery (docs/webhooks.md): the ``webhook_*`` fields of Settings, grouped."""

    retry_schedule: tuple[float, ...] = DEFAULT_WEBHOOK_SCHEDULE
    disable_after_seconds: float = 5 * 24 * 3600.0
    timeout_seconds: float = 15.0
    poll_seconds: float = 0.2
    # A listening pump (woken by NOTIFY, migration 0023) still looks this often when idle.
    idle_poll_seconds: float = 20.0
    batch: int = 200
    concurrency: int = 100
    http_client: str = "aiohttp"
    allowed_hosts: tuple[str, ...] = field(default=())
    allow_loopback: bool = False
    # A claimed delivery is invisible to other pumps this long (a crashed pump's claim expires).
    lease_seconds: float = 60.0


@dataclass(frozen=True)
class WithdrawalSettings:
    """Withdrawals' controls (docs/engine.md, "Withdrawals"): the ``withdrawal_*`` fields of
    Settings, grouped. Amounts are whole tokens as decimal strings, for MCC and MCD alike (each
    turned into its own mint's base units); the approval thresholds are "above this amount"."""

    minimum: str = "1"
    maximum: str = "10000"
    # Per user and currency, over the last 24 hours (not a calendar day: no double at midnight).
    daily_limit: str = "25000"
    # The whole deployment's outflow per currency over the last hour: crossing it trips the
    # breaker, which holds every new withdrawal until an operator resets it.
    hourly_outflow_limit: str = "100000"
    approval_above: str = "1000"  # one administrator's approval
    dual_approval_above: str = "5000"  # two different administrators' approvals
    # A new wallet_address receives nothing for this long (withdrawals made meanwhile wait).
    cooling_off_seconds: float = 24 * 3600.0
    # A withdrawal still waiting (approvals, cooling-off, breaker) this long after it was made
    # is cancelled and its hold released.
    max_wait_seconds: float = 72 * 3600.0


def _comma_list(v: object) -> object:
    if isinstance(v, str):
        return tuple(part.strip() for part in v.split(",") if part.strip())
    return v


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_file=".env", env_ignore_empty=True, extra="ignore")

    # Unset is treated as production: the development defaults need an explicit dev or test.
    environment: Literal["dev", "test", "production"] | None = None
    base_url: str = "http://127.0.0.1:8000"
    auth_url: str = "http://127.0.0.1:8000/auth"

    database_url: str = "postgresql+psycopg://postgres@127.0.0.1:5432/mccgw"
    # Connections each process keeps open, and how many more it may open for a burst. Above the
    # pool, a connection is closed when it is given back and opened again for the next call: a
    # new backend for PostgreSQL to start and warm up (a burst of 300 transfers, 32 in flight,
    # opened 103 connections with a pool of 10, and PostgreSQL used 1.7 times the CPU it does
    # with 32). The API and the worker at their most (80) stay under PostgreSQL's default 100.
    db_pool_size: int = Field(default=32, ge=1)
    db_pool_overflow: int = Field(default=8, ge=0)
    redis_url: str = "redis://127.0.0.1:6379/0"
    redis_max_connections: int = 100
    temporal_address: str = "127.0.0.1:7233"
    temporal_namespace: str = "default"
    temporal_ui_url: str = "http://127.0.0.1:8233"
    # The one task queue: the API starts every workflow on it and the worker polls it.
    task_queue: str = MAIN_TASK_QUEUE
    # The worker lowers its own CPU priority by this much at start (os.nice): on a host it
    # shares with the API, requests are accepted before earlier ones are settled (issue 18's
    # accept latency under a settling backlog). No effect where the worker has its own cores.
    worker_nice: int = Field(default=10, ge=0, le=19)
    # Block explorer for the console's signature links (asked for our RPC as a custom cluster).
    explorer_url: str = "https://explorer.solana.com"
    solana_rpc_url: str = "http://127.0.0.1:8899"
    # The door's manners toward its RPC provider (chain/door.py, docs/chain.md "One door"):
    # requests a second the deployment's processes send it together (a token bucket in Redis;
    # a call over it waits its turn, never fails; 0: no budget), and how long one call may keep
    # retrying a 429 (its Retry-After), an outage or a node behind before it raises.
    # Several providers (docs/chain.md "Several providers"): a comma list, used instead of
    # SOLANA_RPC_URL when set; a provider more slots behind the others than this is benched.
    solana_rpc_urls: str = ""
    solana_rpc_max_lag_slots: int = Field(default=30, ge=1)
    solana_rpc_rps: float = Field(default=200.0, ge=0)
    solana_rpc_retry_seconds: float = Field(default=20.0, ge=0)

    # Directory with the gateway's chain keypairs (Solana CLI JSON format).
    chain_keys_dir: Path = Path(".dev/keys")
    # Commitment that counts as success for a chain write (decisions.md: finalized).
    chain_commitment: Literal["processed", "confirmed", "finalized"] = "finalized"
    # Landing under congestion (chain/fees.py, docs/chain.md "Fees"): every write's compute-unit
    # price is this percentile of the cluster's recent priority fees over its writable
    # accounts, between the floor and the ceiling (micro-lamports a unit); its unit limit is
    # what a simulation consumed plus the margin. Past the daily budget (lamports the writes
    # finalized since midnight UTC paid; 0: none) new writes pay the floor.
    chain_fee_percentile: float = Field(default=75.0, ge=0, le=100)
    chain_fee_floor: int = Field(default=1_000, ge=0)
    chain_fee_ceiling: int = Field(default=200_000, ge=0)
    chain_cu_margin: float = Field(default=0.2, ge=0)
    chain_fee_daily_budget: int = Field(default=0, ge=0)

    # The ecosystem's programs and addresses (docs/chain.md, "Pointing the gateway at a
    # cluster"). Program ids default to the ecosystem's mainnet ids; the local node loads our
    # own programs at those same ids, so dev needs no override. An empty address means: in
    # production, the ecosystem's mainnet value (chain/cluster.py); in dev/test, the local
    # chain's (mints from the keys dir, config/pool PDAs derived from the program id).
    mcc_token_program_id: str = "mCCUkDxoDfnVjTQjQHWkVi1PWBU2jxfQGJUhhDbeq5x"
    mcd_token_program_id: str = "McDVieuEFv5ucnM3C7p8wsT6LY8BAipKDrTG9HjAu3R"
    reincarnation_program_id: str = "REn8oKyydvjRsistZ2cVi6tksPubvR3bEuLdVTyGknb"
    auction_program_id: str = "6JRmShodszZca3ez7GfDkmsRSzTi5ELwscWCDgjsteJx"
    fragment_program_id: str = "J7wyftDtfzqn2pbpLr8QPqKQkAxecgVze75SUz9D4Fq3"
    lending_program_id: str = "5JRnecaAZNfF1bBjdW93JB8VFJVpWWDkR3NKg2jHnMPQ"
    level_verifier_program_id: str = "8TSuNuR1Carh8GpjqrZiVo3oz1nC2K9FSy6BhqbWb3ek"
    territory_nft_program_id: str = "ipYLo2aitVyNXGzCgpiaKKA2JLvtbBvMHiV7qKZTPVZ"
    mcc_mint: str = ""
    mcd_mint: str = ""
    usdc_mint: str = ""
    usdt_mint: str = ""
    mcd_config_address: str = ""  # McdConfig, PDA ["mcd_config"] of the MCD Token program
    reincarnation_pool_address: str = ""  # ReincarnationPool, PDA ["reincarnation_pool_v2"]
    # The lending pool the views show; empty = the program's first LendingPool account.
    lending_pool_address: str = ""
    # A program's decoded account set is re-read at most this often (one slot = 0.4 s).
    views_refresh_seconds: float = 0.4

    # Token data (docs/tokens.md). The MCC/USDC market pool whose two vault token accounts give
    # the market price (empty = no market source); prices are 6-decimal USDC units per MCC.
    market_pool_mcc_vault: str = ""
    market_pool_usdc_vault: str = ""
    usdc_decimals: int = 6
    default_price_usdc: int = 10_000_000  # 10 USDC, the price rule's last resort
    oracle_premium_bps: int = 500
    oracle_window: int = 180  # closes in the base price's mean (30 days of 4-hour closes)
    oracle_catch_up: int = 6  # missed closes recorded at most per run (one day)
    # The market source of a close (docs/tokens.md, "The closes"): the pool is sampled once a
    # minute; a close takes the median of the samples in its 4-hour window that saw at least
    # oracle_min_liquidity_usdc (6-decimal units) in the USDC vault, if there are at least
    # oracle_min_samples of them; the on-chain base moves at most oracle_max_move_bps per close.
    oracle_min_samples: int = 120  # half of a 4-hour window sampled once a minute
    oracle_min_liquidity_usdc: int = 10_000 * 10**6  # 10,000 USDC
    oracle_max_move_bps: int = 1_000  # 10 % per close
    # How often the deposit watcher's schedule starts a run (each follows the chain until 3 s
    # before the next, workflows.schedules.deposit_follow_seconds): 90 s, the longest a run
    # follows (activities.tokens), so an idle worker starts a run a third as often as at 30 s
    # (issue 43). The schedule starts its first run when it is created, so a new deployment
    # (a fresh `mccgw dev`) does not wait for the first firing (docs/performance.md, pass four).
    deposit_scan_seconds: float = 90.0
    market_price_cache_seconds: float = 15.0  # freshness of the market price on GET paths
    balance_cache_seconds: float = 60.0  # upper bound; changes evict at once (NOTIFY)

    # Mining (docs/mining.md): how old or early a proof's timestamp may be, and the reward
    # formula's coefficients in MCD (decimal strings, never floats).
    mining_proof_max_age_seconds: float = 600.0
    mining_proof_max_skew_seconds: float = 60.0
    mining_reward_base: Decimal = Decimal("1")
    mining_reward_per_volume: Decimal = Decimal("0.001")
    mining_reward_per_trade: Decimal = Decimal("0.01")
    mining_reward_per_profit: Decimal = Decimal("0.01")

    secret_key: str = _DEFAULT_SECRET
    # AES-GCM master key (base64, 32 bytes) for secrets kept encrypted at rest.
    master_key: str = _DEFAULT_MASTER_KEY
    master_key_id: str = "k1"

    cors_origins: Annotated[list[str], NoDecode] = Field(
        default_factory=lambda: list(ECOSYSTEM_ORIGINS)
    )
    # A worker's Prometheus /metrics port (0: not served; the API serves its own at /metrics).
    worker_metrics_port: int = 0
    log_level: str = "INFO"
    log_json: bool = True

    # Avatars (profiles.storage): a local directory served under /media/avatars, or "s3".
    avatar_storage: Literal["local", "s3"] = "local"
    avatar_dir: Path = Path(".dev/avatars")
    # Public URL prefix of stored avatars; empty = {base_url}/media/avatars (local) or
    # {avatar_s3_endpoint}/{avatar_s3_bucket} (s3).
    avatar_public_url: str = ""
    # An S3-compatible bucket (AWS S3, MinIO, R2...), path-style, signed with SigV4.
    avatar_s3_endpoint: str = ""
    avatar_s3_bucket: str = ""
    avatar_s3_region: str = "us-east-1"
    avatar_s3_access_key: str = ""
    avatar_s3_secret_key: str = ""
    avatar_s3_prefix: str = "avatars/"

    # Webhook delivery (docs/webhooks.md); grouped as ``settings.webhooks``.
    # Seconds to wait before each attempt; after the last one fails the delivery is failed.
    webhook_retry_schedule: Annotated[tuple[float, ...], NoDecode] = DEFAULT_WEBHOOK_SCHEDULE
    webhook_disable_after_seconds: float = 432000.0  # failing this long disables an endpoint
    webhook_timeout_seconds: float = 15.0  # a 2xx must arrive within this
    webhook_poll_seconds: float = 0.2  # how often an idle pump looks when it cannot LISTEN
    # The safety net of a pump woken by NOTIFY: 20 s (was 5, which cost an idle worker about
    # 0.45 ms/s of CPU more, issue 43), under the pump's 30 s heartbeat timeout
    # (workflows.webhooks): an idle pump heartbeats once per look.
    webhook_idle_poll_seconds: float = 20.0
    webhook_batch: int = 200  # claims per round
    webhook_concurrency: int = 100  # requests in flight
    webhook_http_client: Literal["aiohttp", "httpx"] = "aiohttp"
    # Hosts, IPs or CIDRs allowed despite the SSRF rule (plain http too), comma-separated.
    webhook_allowed_hosts: Annotated[tuple[str, ...], NoDecode] = ()
    webhook_allow_loopback: bool = False  # loopback and plain http to it (dev, tests)

    # Mail (accounts/mail.py): the SMTP server every message goes through,
    # smtp://[user:password@]host:port (STARTTLS when the server offers it; ?starttls=required
    # insists on it) or smtps://host:port (TLS from the start); empty: no mail is sent (logged).
    smtp_url: str = ""
    mail_from: str = "mccgw <no-reply@localhost>"
    # The Maildir the dev stack's embedded SMTP server stores messages in (mccgw/mailserver.py):
    # the console shows it to administrators (Mail). Unset where mail goes to a real server.
    mail_catcher_dir: Path | None = None
    # Who may sign up on the authorization server's pages (docs/access.md): anyone, only the
    # e-mail addresses invited (``mccgw users invite``), or no one.
    signup_mode: Literal["open", "invite", "off"] = "open"
    # Sign-ups, password-reset and resend requests one source may make per hour.
    signup_per_hour: int = Field(default=20, ge=1)

    # A sensitive action (changing the wallet_address withdrawals go to) needs a sign-in with
    # the gateway's own client at most this many seconds old (access/fresh.py).
    fresh_signin_seconds: float = Field(default=300.0, gt=0)
    # Sign-in through an upstream OpenID Connect provider (authserver/upstream.py): off unless
    # the discovery URL is set; the gateway is its OAuth client, redirect
    # {auth_url}/upstream/callback. The name is the sign-in button's ("Sign in with ...").
    upstream_oidc_discovery_url: str = ""
    upstream_oidc_client_id: str = ""
    upstream_oidc_client_secret: str = ""
    upstream_oidc_name: str = "your organization's account"
    # Passkeys (authserver/passkeys.py): the WebAuthn relying party's ID, a domain; empty = the
    # host of BASE_URL ("localhost" when that host is an IP address, which cannot be an RP ID).
    webauthn_rp_id: str = ""
    # Withdrawals (docs/engine.md, "Withdrawals"); grouped as ``settings.withdrawals``.
    withdrawal_minimum: str = "1"
    withdrawal_maximum: str = "10000"
    withdrawal_daily_limit: str = "25000"
    withdrawal_hourly_outflow_limit: str = "100000"
    withdrawal_approval_above: str = "1000"
    withdrawal_dual_approval_above: str = "5000"
    withdrawal_cooling_off_seconds: float = Field(default=86400.0, ge=0)
    withdrawal_max_wait_seconds: float = Field(default=259200.0, gt=0)

    @field_validator(
        "withdrawal_minimum", "withdrawal_maximum", "withdrawal_daily_limit",
        "withdrawal_hourly_outflow_limit", "withdrawal_approval_above",
        "withdrawal_dual_approval_above",
    )  # fmt: skip
    @classmethod
    def _whole_tokens(cls, v: str) -> str:
        # Checked at the finest mint's scale the gateway meets (9 decimals); each mint's own
        # decimals are applied when a withdrawal is made.
        to_base_units(v, 9, allow_zero=True)
        return v

    @property
    def withdrawals(self) -> WithdrawalSettings:
        """The ``withdrawal_<name>`` fields as WithdrawalSettings(<name>=...)."""
        return WithdrawalSettings(
            **{f.name: getattr(self, f"withdrawal_{f.name}") for f in fields(WithdrawalSettings)}
        )

    @field_validator("webhook_retry_schedule", mode="before")
    @classmethod
    def _schedule(cls, v: object) -> object:
        v = _comma_list(v)
        if not isinstance(v, tuple | list) or not v or any(float(x) < 0 for x in v):
            raise ValueError("WEBHOOK_RETRY_SCHEDULE must be comma-separated non-negative seconds")
        return v

    @field_validator("webhook_allowed_hosts", mode="before")
    @classmethod
    def _hosts(cls, v: object) -> object:
        v = _comma_list(v)
        return tuple(str(h).lower() for h in v) if isinstance(v, tuple | list) else v

    @field_validator("webhook_http_client", mode="before")
    @classmethod
    def _client_name(cls, v: object) -> object:
        return v.strip().lower() if isinstance(v, str) else v

    @property
    def webhooks(self) -> WebhookSettings:
        """The ``webhook_<name>`` fields as WebhookSettings(<name>=...)."""
        return WebhookSettings(
            **{
                f.name: getattr(self, f"webhook_{f.name}")
                for f in fields(WebhookSettings)
                if f"webhook_{f.name}" in type(self).model_fields
            }
        )

    @field_validator("cors_origins", mode="before")
    @classmethod
    def _split_origins(cls, v: object) -> object:
        # Accept "a,b,c" from the environment as well as a JSON list.
        if isinstance(v, str):
            return [o.strip() for o in v.split(",") if o.strip()]
        return v

    @field_validator("database_url", mode="before")
    @classmethod
    def _normalise_dsn(cls, v: object) -> object:
        # Every DSN spelling ends up on the psycopg 3 driver.
        if isinstance(v, str):
            for prefix in ("postgres://", "postgresql://", "postgresql+psycopg2://"):
                if v.startswith(prefix):
                    return "postgresql+psycopg://" + v[len(prefix) :]
        return v

    @model_validator(mode="after")
    def _refuse_default_secrets(self) -> Settings:
        for name, default in (("SECRET_KEY", _DEFAULT_SECRET), ("MASTER_KEY", _DEFAULT_MASTER_KEY)):
            if getattr(self, name.lower()) == default and self.environment not in ("dev", "test"):
                raise ValueError(
                    f"{name} still has its public development default; set it in the "
                    "environment (or set ENVIRONMENT=dev or test on a laptop)"
                )
        return self

    @computed_field  # type: ignore[prop-decorator]
    @property
    def is_dev(self) -> bool:
        return self.environment in ("dev", "test")

    @property
    def database_url_plain(self) -> str:
        """The DSN without the SQLAlchemy driver suffix (for psycopg and tools)."""
        return self.database_url.replace("postgresql+psycopg://", "postgresql://", 1)


@lru_cache
def get_settings() -> Settings:
    return Settings()
