"""Webhook URL validation with SSRF protection (decisions.md).

A URL is accepted when it is ``https`` (``http`` only for hosts allowed by configuration or, with
WEBHOOK_ALLOW_LOOPBACK, loopback hosts), has no credentials, and EVERY address its host resolves
to is a public unicast address: private, loopback, link-local, multicast, reserved, unspecified
and shared (CGNAT) ranges are refused unless the host is allowed. The check runs at
registration, again before each delivery, and at connect time: the senders connect only to
addresses that passed the check (``safe_addresses``), so a host that re-points its DNS between
the check and the connection (DNS rebinding) reaches nothing private. IPv6 forms that carry an
IPv4 address (mapped, 6to4, NAT64, IPv4-compatible) are judged by that address; Teredo is
refused. Refusals never name the address they found (the delivery log is no scanner).
"""

from __future__ import annotations

import asyncio
import ipaddress
import socket
import time
from urllib.parse import urlsplit

from core.config import WebhookSettings

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


_NAT64 = (ipaddress.ip_network("64:ff9b::/96"), ipaddress.ip_network("64:ff9b:1::/48"))
_IPV4_COMPATIBLE = ipaddress.ip_network("::/96")


def _embedded_ipv4(ip: ipaddress.IPv6Address) -> ipaddress.IPv4Address | None:
    if ip.ipv4_mapped is not None:
        return ip.ipv4_mapped
    if ip.sixtofour is not None:  # 2002::/16
        return ip.sixtofour
    if any(ip in net for net in _NAT64) or (ip in _IPV4_COMPATIBLE and int(ip) > 1):
        return ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF)
    return None


def _address_allowed(ip: _IP, settings: WebhookSettings) -> bool:
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.teredo is not None:  # 2001::/32 tunnels to an address we cannot judge
            return False
        embedded = _embedded_ipv4(ip)
        if embedded is not None:
            return _address_allowed(embedded, settings)
    if ip.is_loopback:
        return settings.allow_loopback
    return ip.is_global and not ip.is_multicast and not ip.is_reserved


async def safe_addresses(host: str, port: int, settings: WebhookSettings) -> list[_IP]:
    """The addresses a sender may connect to for ``host``: all of them must pass the check
    (UnsafeUrl otherwise), unless the host is allowed by configuration."""
    addresses = await resolve(host, port)
    if not _host_allowed(host, settings):
        for ip in addresses:
            if not _address_allowed(ip, settings):
                raise UnsafeUrl(f"the host {host!r} resolves to an address that is not allowed")
    return addresses


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
                f"the host {host!r} resolves to a private, loopback, link-local, multicast, "
                "reserved or tunnelled address"
            )
