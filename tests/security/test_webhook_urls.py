"""Item 16: webhook URLs are checked at connect time too, tunnelled private ranges are
refused, and the attempt log does not tell a closed port from a filtered one."""

from __future__ import annotations

import asyncio
import socket
from collections.abc import AsyncIterator

import pytest

from core.config import WebhookSettings
from webhooks.senders import make_sender
from webhooks.urls import UnsafeUrl, check_url

STRICT = WebhookSettings(allow_loopback=False)


@pytest.mark.parametrize(
    "url",
    [
        "https://[2002:c0a8:101::1]/hook",  # 6to4 of 192.168.1.1
        "https://[2002:7f00:1::1]/hook",  # 6to4 of 127.0.0.1
        "https://[64:ff9b::a00:1]/hook",  # NAT64 of 10.0.0.1
        "https://[64:ff9b::a9fe:a9fe]/hook",  # NAT64 of 169.254.169.254 (cloud metadata)
        "https://[::a00:1]/hook",  # IPv4-compatible 10.0.0.1
        "https://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/hook",  # Teredo
    ],
)
async def test_item16_tunnelled_private_ranges_are_refused(url: str) -> None:
    with pytest.raises(UnsafeUrl):
        await check_url(url, STRICT)


async def test_item16_public_tunnelled_address_still_accepted() -> None:
    await check_url("https://[2002:808:808::1]/hook", STRICT)  # 6to4 of 8.8.8.8


@pytest.fixture
async def listener() -> AsyncIterator[tuple[int, list[bytes]]]:
    seen: list[bytes] = []

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        seen.append(await reader.read(1024))
        writer.write(b"HTTP/1.1 200 OK\r\ncontent-length: 0\r\n\r\n")
        await writer.drain()
        writer.close()

    server = await asyncio.start_server(handle, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    yield port, seen
    server.close()
    await server.wait_closed()


@pytest.mark.parametrize("kind", ["aiohttp", "httpx"])
async def test_item16_connect_time_check_blocks_a_rebound_host(
    kind: str, listener: tuple[int, list[bytes]]
) -> None:
    """`localhost` resolving to 127.0.0.1 at connect time stands for a host that passed the
    registration check and re-pointed its DNS: the sender must not connect."""
    port, seen = listener
    sender = make_sender(kind, 2.0, 2, STRICT)
    try:
        result = await sender.send(f"http://localhost:{port}/hook", b"{}", {})
    finally:
        await sender.aclose()
    assert not result.ok and seen == []
    assert result.error == "refused: the address is not allowed"
    allowed = make_sender(kind, 2.0, 2, WebhookSettings(allow_loopback=True))
    try:
        assert (await allowed.send(f"http://localhost:{port}/hook", b"{}", {})).ok
    finally:
        await allowed.aclose()
    assert len(seen) == 1


@pytest.mark.parametrize("kind", ["aiohttp", "httpx"])
async def test_item16_attempt_errors_do_not_reveal_port_state(kind: str) -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        closed = s.getsockname()[1]  # nothing listens once the socket closes
    sender = make_sender(kind, 2.0, 2, WebhookSettings(allow_loopback=True))
    try:
        result = await sender.send(f"http://127.0.0.1:{closed}/hook", b"{}", {})
    finally:
        await sender.aclose()
    assert result.error == "connection failed"
