"""CLI: python -m devchain.node --port 8899 --data-dir .dev/chain --keys-dir .dev/keys"""

from __future__ import annotations

import argparse
import logging
from pathlib import Path

from aiohttp import web

from devchain.node.genesis import FIXTURES_DIR, open_chain
from devchain.node.server import make_app

log = logging.getLogger("devchain.node")


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(prog="python -m devchain.node", description=__doc__)
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=int, default=8899)
    p.add_argument("--data-dir", type=Path, default=Path(".dev/chain"))
    p.add_argument("--keys-dir", type=Path, default=Path(".dev/keys"))
    p.add_argument("--slot-ms", type=int, default=400)
    p.add_argument("--accounts-dir", type=Path, default=None)
    p.add_argument(
        "--no-fixtures",
        action="store_true",
        help="skip the ecosystem fixtures (devchain/node/fixtures) at genesis",
    )
    p.add_argument("--mcd-decimals", type=int, default=9, help="MCD mint decimals at genesis")
    p.add_argument(
        "--mcd-token-2022", action="store_true", help="make the MCD mint a Token-2022 mint"
    )
    args = p.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s %(message)s")
    logging.getLogger("aiohttp.access").setLevel(logging.WARNING)

    fixtures = None if args.no_fixtures else FIXTURES_DIR
    chain = open_chain(
        args.data_dir,
        args.keys_dir,
        args.accounts_dir,
        fixtures,
        mcd_decimals=args.mcd_decimals,
        mcd_token_2022=args.mcd_token_2022,
    )
    log.info(
        "chain node listening on http://%s:%d (slot %d, %d ms slots, data %s)",
        args.host,
        args.port,
        chain.slot,
        args.slot_ms,
        args.data_dir,
    )
    # run_app turns SIGINT/SIGTERM into a graceful stop; cleanup flushes the chain state.
    web.run_app(
        make_app(chain, args.slot_ms),
        host=args.host,
        port=args.port,
        print=None,
        access_log=None,
        shutdown_timeout=2,
    )


if __name__ == "__main__":
    main()
