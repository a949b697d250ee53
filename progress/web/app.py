"""The web framework's one owner (Starlette, served by uvicorn): routes,
request bodies within their limits, status codes. The work is `Site`'s.

Routes (no request names a file; suites are fixed at start):

    GET  /                          the suites
    GET  /playground?lang=..&test=..&view=..&workgroups=..&buffer=..&init=..&spec=..&push=..&local_size=..
                                    check a test or kernel (it lives in the URL)
    GET  /playground?example=NAME   an example checked
    POST /api/check?lang=..&view=..&workgroups=..   the same as JSON (body: the text)
    GET  /suite/{suite}?vector=..&edge=..   verdict matrix, Table 4, filters
    GET  /suite/{suite}/test/{key}?view=..  one test: text, verdicts, picture, GPU results
    GET  /suite/{suite}/run         the WebGPU runner
    GET  /api/suite/{suite}/plan?limit=N    the runner's shaders
    POST /api/suite/{suite}/results a run's results (validated, rate limited)
    GET  /devices, /device/{name}   conformance per device
    GET  /api/runs                  the stored runs as JSON
"""

from __future__ import annotations

import dataclasses
import socket
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from progress.gpu.database import DatabaseError
from progress.web import device_pages, play_page, suite_pages
from progress.web.kernel_check import LaunchFields
from progress.web.playground import result_dict
from progress.web.site import Site
from progress.web.submit import Refused
from progress.web.suites import Suite

STATIC = Path(__file__).with_name("static")
HEADERS = {
    "Content-Security-Policy": "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
}


class TooLarge(Exception):
    pass


def html(text: str, status: int = 200) -> HTMLResponse:
    return HTMLResponse(text, status_code=status, headers=HEADERS)


def answer(data: dict[str, Any], status: int = 200, headers: dict[str, str] | None = None) -> JSONResponse:
    return JSONResponse(data, status_code=status, headers={**HEADERS, **(headers or {})})


async def body_of(request: Request, limit: int) -> bytes:
    """The request body, or TooLarge past `limit` bytes (read no further)."""
    declared = request.headers.get("content-length")
    if declared is not None and (not declared.isdigit() or int(declared) > limit):
        raise TooLarge()
    chunks, size = [], 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            raise TooLarge()
        chunks.append(chunk)
    return b"".join(chunks)


def create_app(site: Site) -> Starlette:
    """The ASGI application serving `site`."""

    def suite_of(request: Request) -> Suite | None:
        return site.suites.get(request.path_params["suite"])

    def index(request: Request) -> Response:
        return html(site.index())

    def fields_of(request: Request) -> LaunchFields | None:
        """The launch fields, or None when they are larger than a test may be."""
        params = request.query_params
        fields = LaunchFields(*(params.get(name, "") for name in LaunchFields.NAMES))
        size = sum(len(getattr(fields, name).encode()) for name in LaunchFields.NAMES)
        return fields if size <= site.limits.max_test_bytes else None

    def playground(request: Request) -> Response:
        params = request.query_params
        name = params.get("example")
        if name is not None:
            found = site.example(name, params.get("view"))
            return html(found) if found is not None else html(device_pages.not_found("no such example"), 404)
        text = params.get("test")
        fields = fields_of(request)
        if fields is None or text is not None and len(text.encode()) > site.limits.max_test_bytes:
            return html(device_pages.not_found(f"the test is larger than {site.limits.max_test_bytes} bytes"), 413)
        return html(site.playground(text, params.get("view"), params.get("lang", "axb"), fields))

    async def check(request: Request) -> Response:
        fields = fields_of(request)
        try:
            if fields is None:
                raise TooLarge()
            body = await body_of(request, site.limits.max_test_bytes)
        except TooLarge:
            return answer({"ok": False, "error": f"the test is larger than {site.limits.max_test_bytes} bytes"}, 413)
        try:
            text = body.decode("utf-8")
        except UnicodeDecodeError:
            return answer({"ok": False, "error": "the test is not UTF-8 text"}, 400)
        view = play_page.parse_view(request.query_params.get("view"))
        language = request.query_params.get("lang", "axb")
        checked = await run_in_threadpool(site.check, text, view, language, fields)
        return answer(result_dict(checked), 200 if checked.error is None else 400)

    def suite(request: Request) -> Response:
        found = suite_of(request)
        if found is None:
            return html(device_pages.not_found("no such suite"), 404)
        params = request.query_params
        return html(suite_pages.suite_page(found, params.get("vector", ""), params.get("edge", "")))

    def test(request: Request) -> Response:
        found = suite_of(request)
        text = (
            None
            if found is None
            else site.test_page(found, request.path_params["key"], request.query_params.get("view"))
        )
        return html(text, 200) if text is not None else html(device_pages.not_found("no such test"), 404)

    def runner(request: Request) -> Response:
        found = suite_of(request)
        if found is None:
            return html(device_pages.not_found("no such suite"), 404)
        return html(suite_pages.runner_page(found))

    def plan(request: Request) -> Response:
        found = suite_of(request)
        if found is None:
            return answer({"ok": False, "error": "no such suite"}, 404)
        raw = request.query_params.get("limit", "")
        if raw and (not raw.isdigit() or not 1 <= int(raw) <= len(found.tests)):
            return answer({"ok": False, "error": f"limit is from 1 to {len(found.tests)}"}, 400)
        return answer(site.plan(found, int(raw) if raw else None))

    async def results(request: Request) -> Response:
        client = request.client.host if request.client else "unknown"
        if not site.rate.allow(client):
            wait = site.rate.retry_after(client)
            return answer(
                {"ok": False, "error": f"too many submissions: at most {site.limits.submissions_per_minute} a minute"},
                429,
                {"Retry-After": str(wait)},
            )
        try:
            body = await body_of(request, site.limits.max_body_bytes)
        except TooLarge:
            return answer({"ok": False, "error": f"the body is larger than {site.limits.max_body_bytes} bytes"}, 413)
        if suite_of(request) is None:
            return answer({"ok": False, "error": "no such suite"}, 404)
        try:
            stored = await run_in_threadpool(site.submit, body, request.path_params["suite"])
        except Refused as refused:
            return answer({"ok": False, "error": str(refused)}, 400)
        except DatabaseError as error:
            return answer({"ok": False, "error": f"the results database would not take the run: {error}"}, 503)
        stored["href"] = device_pages.device_href(stored["device"])
        return answer(stored, 201 if stored["new"] else 200)

    def devices(request: Request) -> Response:
        return html(site.devices())

    def device(request: Request) -> Response:
        text = site.device(request.path_params["name"])
        return html(text) if text is not None else html(device_pages.not_found("no such device"), 404)

    def runs(request: Request) -> Response:
        return answer({"runs": [dataclasses.asdict(info) for info in site.runs()]})

    routes = [
        Route("/", index),
        Route("/playground", playground),
        Route("/api/check", check, methods=["POST"]),
        Route("/suite/{suite}", suite),
        Route("/suite/{suite}/test/{key:path}", test),
        Route("/suite/{suite}/run", runner),
        Route("/api/suite/{suite}/plan", plan),
        Route("/api/suite/{suite}/results", results, methods=["POST"]),
        Route("/devices", devices),
        Route("/device/{name}", device),
        Route("/api/runs", runs),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ]
    return Starlette(routes=routes)


def serve(site: Site, listener: socket.socket) -> None:
    """Serve `site` on a listening socket until interrupted (uvicorn)."""
    import uvicorn

    config = uvicorn.Config(create_app(site), log_level="warning", h11_max_incomplete_event_size=256 * 1024)
    uvicorn.Server(config).run(sockets=[listener])
