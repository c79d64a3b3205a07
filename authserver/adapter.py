"""The small FastAPI/Starlette adapter authlib lacks: request in, response out.

The body is read (async) before authlib runs (sync, in a worker thread), so authlib sees a
fully materialised request.
"""

from __future__ import annotations

import json
from collections import defaultdict
from typing import Any
from urllib.parse import parse_qsl

from authlib.oauth2.rfc6749 import OAuth2Payload, OAuth2Request
from starlette.datastructures import Headers
from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse, Response

FORM = "application/x-www-form-urlencoded"


class Payload(OAuth2Payload):
    def __init__(self, pairs: list[tuple[str, str]]) -> None:
        self._datalist: defaultdict[str, list[str]] = defaultdict(list)
        for key, value in pairs:
            self._datalist[key].append(value)
        self._data = {key: values[0] for key, values in self._datalist.items()}

    @property
    def data(self) -> dict[str, str]:
        return self._data

    @property
    def datalist(self) -> defaultdict[str, list[str]]:
        return self._datalist


class StarletteOAuth2Request(OAuth2Request):
    def __init__(
        self,
        method: str,
        uri: str,
        headers: Headers,
        args: list[tuple[str, str]],
        form: list[tuple[str, str]],
    ) -> None:
        super().__init__(method=method, uri=uri, headers=headers)
        self._args = dict(args)
        self._form = dict(form)
        # Query and form together, as authlib's Flask integration does (request.values).
        self.payload = Payload(args + form)

    @property
    def args(self) -> dict[str, str]:
        return self._args

    @property
    def form(self) -> dict[str, str]:
        return self._form


async def read_form(request: Request) -> list[tuple[str, str]]:
    """The url-encoded form body (OAuth endpoints take forms); anything else reads as empty."""
    content_type = request.headers.get("content-type", "").split(";", 1)[0].strip().lower()
    if request.method != "POST" or content_type != FORM:
        return []
    body = (await request.body()).decode("utf-8", errors="replace")
    return parse_qsl(body, keep_blank_values=True)


def create_oauth2_request(
    request: Request, auth_url: str, form: list[tuple[str, str]], *, include_form: bool = True
) -> StarletteOAuth2Request:
    # authlib checks the URI's transport; use the public auth_url, not the ASGI host.
    suffix = request.url.path.removeprefix("/auth")
    uri = auth_url.rstrip("/") + suffix + (f"?{request.url.query}" if request.url.query else "")
    args = parse_qsl(request.url.query, keep_blank_values=True)
    return StarletteOAuth2Request(
        request.method, uri, request.headers, args, form if include_form else []
    )


def handle_response(status: int, body: Any, headers: list[tuple[str, str]]) -> Response:
    header_map = dict(headers or [])
    if status == 302 and "Location" in header_map:
        return RedirectResponse(header_map.pop("Location"), status_code=302, headers=header_map)
    if isinstance(body, dict):
        header_map.pop("Content-Type", None)
        return JSONResponse(body, status_code=status, headers=header_map)
    if isinstance(body, str) and body.startswith("{"):
        header_map.pop("Content-Type", None)
        return JSONResponse(json.loads(body), status_code=status, headers=header_map)
    return Response(body or b"", status_code=status, headers=header_map)
