"""The web framework's one owner (Starlette, served by uvicorn): routes,
request bodies within their limits, status codes. The work is `Site`'s.

Routes (no request names a file; suites are fixed at start; an unknown
address answers the "Page not found" page, 404):

    GET  /                          the front page: what the tool does, the suites
    GET|POST /playground?lang=..&test=..&view=..&workgroups=..&buffer=..&init=..&spec=..&push=..&local_size=..
                                    check a test or kernel (a GET's address holds it; a form posts it)
    GET  /playground?example=NAME, ?suite=S&key=K   an example, a suite's test, loaded and checked
    GET  /playground/view?..&view=M/F       one verdict's section (a "draw" link in place)
    GET  /playground/picture.svg|dot?..     one verdict's LTS (`download=1`: as a file)
    POST /api/check?lang=..&view=..&workgroups=..   the check as JSON (body: the text)
    GET  /kernel/run?lang=..&test=..|example=..&workgroups=..   run a kernel on this GPU (WebGPU)
    POST /api/kernel/plan?lang=..&workgroups=..   the kernel instrumented, as WGSL (body: the kernel)
    POST /api/kernel/report         a run the page made, joined with the checker
    GET  /suite/{suite}?vector=..&edge=..   verdict matrix, both classifications, filters
    GET  /suite/{suite}/matrix.csv|matrix.json|classification.csv   downloads
    GET  /suite/{suite}/test/{key}?view=..  one test explained: verdicts, picture, GPU results, explorer
    GET  /suite/{suite}/test/{key}/view|picture.svg|picture.dot|source
    GET  /suite/{suite}/run         the WebGPU runner
    GET  /api/suite/{suite}/plan?limit=N | ?key=K   the runner's (the explorer's) shaders
    POST /api/suite/{suite}/results a run's results (validated, rate limited)
    GET  /devices, /devices.csv|json, /device/{name}, /run/{id}.csv|json   conformance per run
    GET  /summary, /summary.csv|json        the runs by vendor and browser
    GET  /api/runs                  the stored runs as JSON
    GET  /glossary, /docs, /docs/{page}, /docs/images/{file}   the words, the documentation
"""

from __future__ import annotations

import dataclasses
import socket
from pathlib import Path, PurePath
from typing import Any
from urllib.parse import quote

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import FileResponse, HTMLResponse, JSONResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from progress.errors import InputError
from progress.gpu.database import DatabaseError
from progress.web import device_pages, downloads, suite_pages
from progress.web.glossary import glossary_page
from progress.web.html import not_found_page
from progress.web.kernel_check import LaunchFields
from progress.web.play_form import PlayRequest, form_fields, play_request
from progress.web.playground import TooLarge as TooLargeTest
from progress.web.playground import result_dict
from progress.web.runner_page import runner_page
from progress.web.site import Site
from progress.web.submit import Refused
from progress.web.suites import Suite
from progress.web.verdict_view import parse_view

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


def download(text: str, name: str, media: str, attach: bool = True) -> Response:
    """A file's text; `attach` asks the browser to save it as `name`."""
    headers = dict(HEADERS)
    if attach:
        headers["Content-Disposition"] = f"attachment; filename*=UTF-8''{quote(name)}"
    return Response(text, media_type=media, headers=headers)


MEDIA = {"svg": "image/svg+xml", "dot": "text/vnd.graphviz; charset=utf-8"}


class Handlers:
    """The answer to every route, for one `Site` (each method one route's)."""

    def __init__(self, site: Site):
        self.site = site

    def suite_of(self, request: Request) -> Suite | None:
        return self.site.suites.get(request.path_params["suite"])

    def missing(self, request: Request, what: str = "") -> Response:
        return html(not_found_page(request.url.path, what), 404)

    def index(self, request: Request) -> Response:
        return html(self.site.index())

    async def play_request_of(self, request: Request) -> PlayRequest | None:
        """The playground's request from the query, or from a posted form
        (None past the body limit, which no test within the size limit reaches)."""
        if request.method != "POST":
            return play_request(request.query_params)
        try:
            body = await body_of(request, self.site.limits.max_body_bytes)
        except TooLarge:
            return None
        return play_request(form_fields(body))

    async def playground(self, request: Request) -> Response:
        wanted = await self.play_request_of(request)
        if wanted is None:
            limit = self.site.limits.max_body_bytes
            return html(not_found_page("/playground", f"the form is larger than {limit} bytes"), 413)
        text, status = await run_in_threadpool(self.site.playground, wanted)
        return html(text, status)

    async def play_view(self, request: Request) -> Response:
        text, status = await run_in_threadpool(self.site.play_view, play_request(request.query_params))
        return html(text, status)

    async def play_picture(self, request: Request) -> Response:
        fmt = request.path_params["fmt"]
        found = await run_in_threadpool(self.site.play_picture, play_request(request.query_params), fmt)
        if found is None:
            return self.missing(request, "no picture: the test does not check, or its LTS is too large to draw")
        return download(found[0], found[1], MEDIA[fmt], "download" in request.query_params)

    async def check(self, request: Request) -> Response:
        fields = self.fields_of(request)
        try:
            body = await body_of(request, self.site.limits.max_test_bytes)
        except TooLarge:
            return answer(
                {"ok": False, "error": f"the test is larger than {self.site.limits.max_test_bytes} bytes"}, 413
            )
        try:
            text = body.decode("utf-8")
        except UnicodeDecodeError:
            return answer({"ok": False, "error": "the test is not UTF-8 text"}, 400)
        view = parse_view(request.query_params.get("view"))
        language = request.query_params.get("lang", "axb")
        checked = await run_in_threadpool(self.site.check, text, view, language, fields)
        status = 200 if checked.error is None else 413 if isinstance(checked.error, TooLargeTest) else 400
        return answer(result_dict(checked), status)

    async def kernel_run(self, request: Request) -> Response:
        text, status = await run_in_threadpool(self.site.kernel_run_page, play_request(request.query_params))
        return html(text, status)

    async def kernel_plan(self, request: Request) -> Response:
        limit = self.site.limits.max_test_bytes
        try:
            text = (await body_of(request, limit)).decode("utf-8")
        except TooLarge:
            return answer({"ok": False, "error": f"the kernel is larger than {limit} bytes"}, 413)
        except UnicodeDecodeError:
            return answer({"ok": False, "error": "the kernel is not UTF-8 text"}, 400)
        language = request.query_params.get("lang", "glsl")
        try:
            plan = await run_in_threadpool(self.site.kernel_plan, text, language, self.fields_of(request))
        except InputError as error:
            return answer({"ok": False, "error": error.message, "rendered": error.render()}, 400)
        return answer({"ok": True, **plan})

    async def kernel_report(self, request: Request) -> Response:
        limit = self.site.limits.max_body_bytes
        try:
            body = await body_of(request, limit)
        except TooLarge:
            return answer({"ok": False, "error": f"the run is larger than {limit} bytes"}, 413)
        try:
            return answer(await run_in_threadpool(self.site.kernel_report, body))
        except InputError as error:
            return answer({"ok": False, "error": error.message, "rendered": error.render()}, 400)

    def fields_of(self, request: Request) -> LaunchFields:
        params = request.query_params
        return LaunchFields(*(params.get(name, "") for name in LaunchFields.NAMES))

    def suite(self, request: Request) -> Response:
        found = self.suite_of(request)
        if found is None:
            return self.missing(request, "no such suite")
        params = request.query_params
        return html(suite_pages.suite_page(found, params.get("vector", ""), params.get("edge", ""), self.site.models))

    def suite_file(self, request: Request) -> Response:
        found = self.suite_of(request)
        name = request.path_params["file"]
        made = None if found is None else downloads.suite_file(found, name, self.site.models)
        if made is None:
            return self.missing(request, "no such suite or file")
        return download(made[0], f"{found.name}-{name}" if found else name, made[1])

    async def test(self, request: Request) -> Response:
        found = self.suite_of(request)
        key, view = request.path_params["key"], request.query_params.get("view")
        text = None if found is None else await run_in_threadpool(self.site.test_page, found, key, view)
        return html(text) if text is not None else self.missing(request, "no such test")

    async def test_view(self, request: Request) -> Response:
        found = self.suite_of(request)
        key, view = request.path_params["key"], request.query_params.get("view")
        text = None if found is None else await run_in_threadpool(self.site.test_fragment, found, key, view)
        return html(text) if text is not None else self.missing(request, "no such test")

    async def test_picture(self, request: Request) -> Response:
        found, fmt = self.suite_of(request), request.path_params["fmt"]
        key, view = request.path_params["key"], request.query_params.get("view")
        made = None if found is None else await run_in_threadpool(self.site.test_picture, found, key, view, fmt)
        if made is None:
            return self.missing(request, "no such test, or its LTS is too large to draw")
        return download(made[0], made[1], MEDIA[fmt], "download" in request.query_params)

    def test_source(self, request: Request) -> Response:
        found = self.suite_of(request)
        test = None if found is None else found.test(request.path_params["key"])
        if test is None:
            return self.missing(request, "no such test")
        return download(test.text, test.key.rsplit("/", 1)[-1], "text/plain; charset=utf-8")

    def runner(self, request: Request) -> Response:
        found = self.suite_of(request)
        if found is None:
            return self.missing(request, "no such suite")
        return html(runner_page(found))

    def plan(self, request: Request) -> Response:
        found = self.suite_of(request)
        if found is None:
            return answer({"ok": False, "error": "no such suite"}, 404)
        key = request.query_params.get("key")
        if key is not None:
            test = found.test(key)
            if test is None:
                return answer({"ok": False, "error": f"suite {found.name} has no test {key!r}"}, 404)
            return answer(self.site.plan(found, None, [test]))
        raw = request.query_params.get("limit", "")
        if raw and (not raw.isdigit() or not 1 <= int(raw) <= len(found.tests)):
            return answer({"ok": False, "error": f"limit is from 1 to {len(found.tests)}"}, 400)
        return answer(self.site.plan(found, int(raw) if raw else None))

    async def results(self, request: Request) -> Response:
        client = request.client.host if request.client else "unknown"
        if not self.site.rate.allow(client):
            wait = self.site.rate.retry_after(client)
            return answer(
                {
                    "ok": False,
                    "error": f"too many submissions: at most {self.site.limits.submissions_per_minute} a minute",
                },
                429,
                {"Retry-After": str(wait)},
            )
        try:
            body = await body_of(request, self.site.limits.max_body_bytes)
        except TooLarge:
            return answer(
                {"ok": False, "error": f"the body is larger than {self.site.limits.max_body_bytes} bytes"}, 413
            )
        if self.suite_of(request) is None:
            return answer({"ok": False, "error": "no such suite"}, 404)
        try:
            stored = await run_in_threadpool(self.site.submit, body, request.path_params["suite"])
        except Refused as refused:
            return answer({"ok": False, "error": str(refused)}, 400)
        except DatabaseError as error:
            return answer({"ok": False, "error": f"the results database would not take the run: {error}"}, 503)
        stored["href"] = device_pages.device_href(stored["device"])
        return answer(stored, 201 if stored["new"] else 200)

    async def devices(self, request: Request) -> Response:
        return html(await run_in_threadpool(self.site.devices))

    async def devices_file(self, request: Request) -> Response:
        fmt = request.path_params["fmt"]
        text = await run_in_threadpool(self.site.devices_file, fmt)
        return self.missing(request) if text is None else download(text, f"devices.{fmt}", downloads.MEDIA[fmt])

    async def device(self, request: Request) -> Response:
        text = await run_in_threadpool(self.site.device, request.path_params["name"])
        return html(text) if text is not None else self.missing(request, "no such device")

    async def run_file(self, request: Request) -> Response:
        fmt, number = request.path_params["fmt"], request.path_params["id"]
        made = await run_in_threadpool(self.site.run_file, number, fmt)
        if made is None:
            return self.missing(request, "no such run")
        return download(made, f"run-{number}.{fmt}", downloads.MEDIA[fmt])

    async def summary(self, request: Request) -> Response:
        return html(await run_in_threadpool(self.site.summary))

    async def summary_file(self, request: Request) -> Response:
        fmt = request.path_params["fmt"]
        text = await run_in_threadpool(self.site.summary_file, fmt)
        return self.missing(request) if text is None else download(text, f"summary.{fmt}", downloads.MEDIA[fmt])

    def runs(self, request: Request) -> Response:
        """The stored runs' headers; a run's source file by its name only (no server path)."""
        found = [dataclasses.asdict(info) for info in self.site.runs()]
        return answer({"runs": [{**run, "source": PurePath(run["source"]).name} for run in found]})

    def glossary(self, request: Request) -> Response:
        return html(glossary_page())

    def docs(self, request: Request) -> Response:
        name = request.path_params.get("name", "")
        found = self.site.docs.page(name)
        if found is None:
            return self.missing(request, "no such page of the documentation")
        return html(found)

    def docs_image(self, request: Request) -> Response:
        found = self.site.docs.image(request.path_params["name"])
        if found is None:
            return self.missing(request, "no such image")
        return FileResponse(found, headers=HEADERS)

    async def not_found(self, request: Request, error: Exception) -> Response:
        return self.missing(request)

    def routes(self) -> list[Route | Mount]:
        return [
            Route("/", self.index),
            Route("/playground", self.playground, methods=["GET", "POST"]),
            Route("/playground/view", self.play_view),
            Route("/playground/picture.{fmt:str}", self.play_picture),
            Route("/api/check", self.check, methods=["POST"]),
            Route("/kernel/run", self.kernel_run),
            Route("/api/kernel/plan", self.kernel_plan, methods=["POST"]),
            Route("/api/kernel/report", self.kernel_report, methods=["POST"]),
            Route("/suite/{suite}", self.suite),
            Route("/suite/{suite}/run", self.runner),
            Route("/suite/{suite}/{file:str}", self.suite_file),
            Route("/suite/{suite}/test/{key:path}/view", self.test_view),
            Route("/suite/{suite}/test/{key:path}/picture.{fmt:str}", self.test_picture),
            Route("/suite/{suite}/test/{key:path}/source", self.test_source),
            Route("/suite/{suite}/test/{key:path}", self.test),
            Route("/api/suite/{suite}/plan", self.plan),
            Route("/api/suite/{suite}/results", self.results, methods=["POST"]),
            Route("/devices", self.devices),
            Route("/devices.{fmt:str}", self.devices_file),
            Route("/device/{name}", self.device),
            Route("/run/{id:int}.{fmt:str}", self.run_file),
            Route("/summary", self.summary),
            Route("/summary.{fmt:str}", self.summary_file),
            Route("/api/runs", self.runs),
            Route("/glossary", self.glossary),
            Route("/docs", self.docs),
            Route("/docs/images/{name:str}", self.docs_image),
            Route("/docs/{name:path}", self.docs),
            Mount("/static", StaticFiles(directory=STATIC), name="static"),
        ]


def create_app(site: Site) -> Starlette:
    """The ASGI application serving `site`."""
    handlers = Handlers(site)
    return Starlette(routes=handlers.routes(), exception_handlers={404: handlers.not_found})


def serve(site: Site, listener: socket.socket) -> None:
    """Serve `site` on a listening socket until interrupted (uvicorn)."""
    import uvicorn

    config = uvicorn.Config(create_app(site), log_level="warning", h11_max_incomplete_event_size=256 * 1024)
    uvicorn.Server(config).run(sockets=[listener])
