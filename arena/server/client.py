"""``arena submit URL BOT --token T``: send a bot to a competition server and print its check.

A folder is packed as a ``.tar.gz`` of its regular files (links, ``.git``,
``.arena-build``, ``__pycache__`` and ``node_modules`` are left out); a
``.zip`` or ``.tar.gz`` is sent as it is; any other single file is sent with
its language (``--language``, or guessed from its extension). The command
then waits for the server's check and prints it as ``arena check`` does.
"""

from __future__ import annotations

import io
import os
import stat
import tarfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .._errors import ArenaError, ConfigError
from ..checks.hints import printable

if TYPE_CHECKING:  # imported when used: `arena --help` and the other commands start without the HTTP client
    import httpx

SKIPPED = {".git", ".arena-build", "__pycache__", "node_modules"}
EXTENSIONS = {
    ".py": "python",
    ".js": "javascript",
    ".rb": "ruby",
    ".sh": "bash",
    ".c": "c",
    ".cpp": "cpp",
    ".cc": "cpp",
    ".java": "java",
    ".go": "go",
    ".rs": "rust",
}
WAIT_S = 600.0
POLL_S = 1.0
SHOWN = 2000
"""Characters of one line of the server's answer printed at most."""


class SubmitError(ArenaError):
    """The server refused the submission or could not be reached."""


def pack_folder(folder: Path) -> bytes:
    """A ``.tar.gz`` of the bot folder's regular files (links and build outputs left out)."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        for root, dirs, files in os.walk(folder, followlinks=False):
            dirs[:] = sorted(d for d in dirs if d not in SKIPPED and not os.path.islink(os.path.join(root, d)))
            for name in sorted(files):
                path = Path(root, name)
                info = path.lstat()
                if not stat.S_ISREG(info.st_mode):
                    continue
                entry = archive.gettarinfo(str(path), arcname=str(path.relative_to(folder)))
                entry.uid = entry.gid = 0
                entry.uname = entry.gname = ""
                with path.open("rb") as file:
                    archive.addfile(entry, file)
    return buffer.getvalue()


def payload(bot: Path, language: str) -> tuple[str, bytes, str]:
    """``(file name, bytes, language)`` to upload for ``bot``."""
    if bot.is_dir():
        if not (bot / "bot.toml").is_file():
            raise ConfigError(f"{bot} has no bot.toml; a bot folder needs one (or upload a single file)")
        return f"{bot.resolve().name}.tar.gz", pack_folder(bot), ""
    if not bot.is_file():
        raise ConfigError(f"{bot} is not a file or a folder")
    data = bot.read_bytes()
    if bot.name.endswith((".zip", ".tar.gz", ".tgz", ".tar")):
        return bot.name, data, ""
    language = language or EXTENSIONS.get(bot.suffix.lower(), "")
    if not language:
        known = ", ".join(sorted(set(EXTENSIONS.values())))
        raise ConfigError(f"say which language {bot.name} is in: --language ({known})")
    return bot.name, data, language


def submit(
    url: str,
    bot: Path,
    token: str,
    *,
    language: str = "",
    wait: bool = True,
    say: Callable[[str], None] = print,
    client: httpx.Client | None = None,
) -> bool:
    """Upload ``bot`` to the server at ``url``; with ``wait``, print its check. Returns whether it passed."""
    import httpx

    name, data, language = payload(bot, language)
    own = client is None
    http = client or httpx.Client(base_url=url.rstrip("/"), timeout=httpx.Timeout(60.0, connect=10.0))
    try:
        headers = {"authorization": f"Bearer {token}"}
        try:
            response = http.post(
                "/api/submissions", headers=headers, files={"file": (name, data)}, data={"language": language}
            )
        except httpx.HTTPError as exc:
            raise SubmitError(f"cannot reach {url}: {exc}") from None
        submission = _json(response)
        say(f"submission {submission['id']}: {name} ({len(data)} bytes) uploaded")
        if not wait:
            return True
        deadline = time.monotonic() + WAIT_S
        shown = ""
        while not submission["done"]:
            if submission["status"] != shown:
                shown = submission["status"]
                say(f"  {shown}...")
            if time.monotonic() > deadline:
                raise SubmitError(f"no result after {WAIT_S:.0f} s; look at {url}/submissions/{submission['id']}")
            time.sleep(POLL_S)
            try:
                submission = _json(http.get(f"/api/submissions/{submission['id']}", headers=headers))
            except httpx.HTTPError as exc:
                raise SubmitError(f"lost {url}: {exc}") from None
        for check in submission["checks"]:  # text from the server and the bot's stderr: no escape sequences
            word = "SKIP" if check["passed"] is None else "PASS" if check["passed"] else "FAIL"
            say(f"{word}  {_shown(check['name'])}: {_shown(check['detail'])}")
            for line in check["where"]:
                say(f"      {_shown(line)}")
        passed: bool = submission["status"] == "passed"
        say(f"{_shown(submission['status']).upper()}: {_shown(submission['message'])}")
        return passed
    finally:
        if own:
            http.close()


def _shown(value: object) -> str:
    return printable(str(value), SHOWN)


def _json(response: httpx.Response) -> dict[str, Any]:
    try:
        data = response.json()
    except ValueError:
        data = {}
    if response.status_code >= 400:
        detail = data.get("error") if isinstance(data, dict) else None
        raise SubmitError(f"the server said {response.status_code}: {_shown(detail or response.reason_phrase)}")
    if not isinstance(data, dict):
        raise SubmitError("the server's answer is not a JSON object")
    return data
