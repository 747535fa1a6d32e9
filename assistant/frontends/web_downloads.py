"""Generated configs and table CSVs served at a neutral address, ``/download/<folder>/<name>``.

Gradio serves files at ``/gradio_api/file=<path on the server>`` (its cache under the temp folder), so
every download link showed where the server keeps its files. The app's own route serves only what is
under its download folder, by the folder's random key and the file's name; Gradio keeps an address
that is a full URL as it is, so the chat and the Tables tab hand it the app's public root plus
``/download/...`` (marked as a stream, so that Gradio never fetches it back)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

ROUTE = "/download"
# a folder key (random or a hash, 12-16 hex digits), under "tables/" for CSVs, then a sanitised file name
RELATIVE = re.compile(r"^(?:tables/)?[0-9a-f]{12,16}/[A-Za-z0-9_-][A-Za-z0-9._-]{0,200}$")
MEDIA_TYPES = {".csv": "text/csv; charset=utf-8", ".json": "application/json", ".yaml": "text/yaml; charset=utf-8",
               ".yml": "text/yaml; charset=utf-8"}


def download_path(files_dir: Path, relative: str) -> Path | None:
    """The file ``relative`` names under ``files_dir``, or None when it is not one the app wrote there."""
    if not RELATIVE.match(relative):
        return None
    path = (files_dir / relative).resolve()
    return path if path.is_file() and path.is_relative_to(files_dir.resolve()) else None


def download_route(files_dir: Path):
    """The Starlette route for ``/download/...`` (given to Gradio's FastAPI app when it is created)."""
    from starlette.requests import Request
    from starlette.responses import FileResponse, PlainTextResponse
    from starlette.routing import Route

    async def send(request: Request):
        path = download_path(files_dir, request.path_params["relative"])
        if path is None:
            return PlainTextResponse("No such download (generated files are kept for a day).", status_code=404)
        return FileResponse(path, filename=path.name, media_type=MEDIA_TYPES.get(path.suffix, "text/plain; charset=utf-8"),
                            headers={"Cache-Control": "private, max-age=86400", "X-Content-Type-Options": "nosniff"})

    return Route(ROUTE + "/{relative:path}", send, methods=["GET", "HEAD"])


FONTS_ROUTE = "/static/fonts"
FONT_FILE = re.compile(r"^[A-Za-z0-9_-]+\.woff2$")


def fonts_route(static_dir: Path):
    """The Starlette route for the served font subsets, ``/static/fonts/<name>.woff2``: through Gradio's
    ``file=`` route their address held the server's install folder."""
    from starlette.requests import Request
    from starlette.responses import FileResponse, PlainTextResponse
    from starlette.routing import Route

    async def send(request: Request):
        name = request.path_params["name"]
        path = static_dir / name
        if not FONT_FILE.match(name) or not path.is_file():
            return PlainTextResponse("No such font.", status_code=404)
        return FileResponse(path, media_type="font/woff2", headers={"Cache-Control": "public, max-age=604800"})

    return Route(FONTS_ROUTE + "/{name}", send, methods=["GET", "HEAD"])


def root_url(request: Any, root_path: str | None = None) -> str | None:
    """The app's public address as the browser reached it (a proxy's forwarded host and scheme
    included), without a trailing slash; None without a request (a unit test)."""
    from gradio import route_utils

    raw = getattr(request, "request", None) if request is not None else None
    if raw is None:
        return None
    return route_utils.get_root_url(request=raw, route_path=raw.url.path, root_path=root_path)


def download_url(files_dir: Path, path: Path, root: str) -> str:
    return f"{root}{ROUTE}/{path.resolve().relative_to(files_dir.resolve()).as_posix()}"


def file_value(files_dir: Path, path: Path, root: str | None) -> dict[str, Any] | str:
    """What a chat file message or a DownloadButton is given: the neutral address when the root is
    known (Gradio passes a full URL through), else the path (served by Gradio, as in unit tests)."""
    if root is None:
        return str(path)
    url = download_url(files_dir, path, root)
    # is_stream: Gradio neither downloads a URL it is sent back (the chat is an input of most events; the
    # server would fetch its own address, which its SSRF guard refuses) nor copies it into its cache
    return {"path": url, "url": url, "orig_name": path.name, "is_stream": True,
            "mime_type": MEDIA_TYPES.get(path.suffix, "text/plain").split(";")[0]}
