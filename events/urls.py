"""Webhook URL validation with SSRF protection (decisions.md).

A URL is accepted when it is ``https`` (``http`` only for hosts allowed by configuration or, with
WEBHOOK_ALLOW_LOOPBACK, loopback hosts), has no credentials, and EVERY address its host resolves
to is a public unicast address: private, loopback, link-local, multicast, reserved, unspecified
and shared (CGNAT) ranges are refused unless the host is allowed. The check runs at
registration and again before each delivery (a host may re-point its DNS later).
"""

from __future__ import annotations

import asyncio
import ipaddress
import socket
import time
from urllib.parse import urlsplit

from events.settings import WebhookSettings

MAX_URL_LENGTH = 2000
_IP = ipaddress.IPv4Address | ipaddress.IPv6Address
_cache: dict[str, tuple[float, list[_IP]]] = {}
_CACHE_SECONDS = 30.0


class UnsafeUrl(ValueError):
    """The URL may not receive webhooks; the message says why."""


def _host_allowed(host: str, settings: WebhookSettings) -> bool:
    for entry in settings.allowed_hosts:
        if host == entry:
            return True
        try:
            if ipaddress.ip_address(host) in ipaddress.ip_network(entry, strict=False):
                return True
        except ValueError:
            continue
    return False


def _address_allowed(ip: _IP, settings: WebhookSettings) -> bool:
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    if ip.is_loopback:
        return settings.allow_loopback
    return ip.is_global and not ip.is_multicast and not ip.is_reserved


async def resolve(host: str, port: int) -> list[_IP]:
    """Every address of ``host`` (cached briefly)."""
    cached = _cache.get(host)
    if cached is not None and cached[0] > time.monotonic():
        return cached[1]
    try:
        ipaddress.ip_address(host)
        addresses: list[_IP] = [ipaddress.ip_address(host)]
    except ValueError:
        loop = asyncio.get_running_loop()
        try:
            infos = await loop.getaddrinfo(host, port, type=socket.SOCK_STREAM)
        except OSError as exc:
            raise UnsafeUrl(f"the host {host!r} does not resolve") from exc
        addresses = list(dict.fromkeys(ipaddress.ip_address(info[4][0]) for info in infos))
    if len(_cache) > 10_000:
        _cache.clear()
    _cache[host] = (time.monotonic() + _CACHE_SECONDS, addresses)
    return addresses


def parse(url: str, settings: WebhookSettings) -> tuple[str, int]:
    """Static checks; returns (host, port)."""
    if len(url) > MAX_URL_LENGTH:
        raise UnsafeUrl(f"the URL is longer than {MAX_URL_LENGTH} characters")
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError as exc:
        raise UnsafeUrl("the URL is not valid") from exc
    host = (parts.hostname or "").lower()
    if parts.scheme not in ("https", "http") or not host:
        raise UnsafeUrl("the URL must be an absolute https:// URL")
    if parts.username is not None or parts.password is not None:
        raise UnsafeUrl("the URL may not carry credentials")
    if parts.fragment:
        raise UnsafeUrl("the URL may not carry a fragment")
    if parts.scheme == "http" and not (
        _host_allowed(host, settings) or (settings.allow_loopback and _is_loopback_name(host))
    ):
        raise UnsafeUrl("plain http is allowed only for hosts allowed by configuration")
    return host, port or (443 if parts.scheme == "https" else 80)


def _is_loopback_name(host: str) -> bool:
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


async def check_url(url: str, settings: WebhookSettings) -> None:
    """Raise UnsafeUrl unless ``url`` may receive webhooks under ``settings``."""
    host, port = parse(url, settings)
    if _host_allowed(host, settings):
        return
    for ip in await resolve(host, port):
        if not _address_allowed(ip, settings):
            raise UnsafeUrl(
                f"the host {host!r} resolves to {ip}, a private, loopback, link-local, "
                "multicast or reserved address"
            )
