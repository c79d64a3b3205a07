"""CLI: python -m devchain.node --port 8899 --data-dir .dev/chain --keys-dir .dev/keys

JSON-RPC over HTTP on ``--port``, the PubSub websocket on ``--ws-port`` (the RPC port + 1 by
default, as a validator serves it)."""

from __future__ import annotations

import argparse
import asyncio
import logging
import signal
from pathlib import Path

from aiohttp import web

from devchain.node.genesis import FIXTURES_DIR, open_chain
from devchain.node.pubsub_server import make_pubsub_app
from devchain.node.server import make_app
from devchain.node.svm import Chain
from devchain.node.weather import PROFILES, Sky

log = logging.getLogger("devchain.node")


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(prog="python -m devchain.node", description=__doc__)
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=int, default=8899)
    p.add_argument("--ws-port", type=int, default=None, help="PubSub port (default: port + 1)")
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
    p.add_argument(
        "--weather",
        choices=sorted(PROFILES),
        default="calm",
        help="answer as a busy public cluster does (devchain/node/weather.py)",
    )
    p.add_argument("--weather-seed", type=int, default=39, help="the weather's random seed")
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
    ws_port = args.port + 1 if args.ws_port is None else args.ws_port
    chain.addresses = {"rpc": f"{args.host}:{args.port}", "pubsub": f"{args.host}:{ws_port}"}
    sky = None if args.weather == "calm" else Sky(chain, PROFILES[args.weather], args.weather_seed)
    log.info(
        "chain node listening on http://%s:%d and ws://%s:%d (slot %d, %d ms slots, data %s, "
        "weather %s)",
        args.host,
        args.port,
        args.host,
        ws_port,
        chain.slot,
        args.slot_ms,
        args.data_dir,
        args.weather,
    )
    asyncio.run(serve(chain, args.host, args.port, ws_port, args.slot_ms, sky))


async def serve(
    chain: Chain, host: str, port: int, ws_port: int, slot_ms: int, sky: Sky | None = None
) -> None:
    """Both apps on one loop until SIGINT/SIGTERM; the HTTP app's cleanup stops the clock and
    flushes the chain state, after the PubSub app has let go of the chain."""
    app = (
        make_app(chain, slot_ms)
        if sky is None
        else make_app(chain, slot_ms, middlewares=[sky.http], rpc_middlewares=[sky.rpc])
    )
    runners = [
        web.AppRunner(app, access_log=None),
        web.AppRunner(make_pubsub_app(chain), access_log=None),
    ]
    try:
        for runner in runners:
            await runner.setup()
        # PubSub first: once the RPC answers, the websocket is up too
        for runner, at in zip(reversed(runners), (ws_port, port), strict=True):
            await web.TCPSite(runner, host, at, shutdown_timeout=2).start()
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, stop.set)
        await stop.wait()
    finally:
        for runner in reversed(runners):
            await runner.cleanup()


if __name__ == "__main__":
    main()
