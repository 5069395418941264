"""Tournaments on a Dask cluster: bot bundles, matches played on workers, and the coordinator's executor.

``arena tournament ... --cluster tcp://scheduler:8786`` (or ``cluster = "..."``
in a tournament config) plays the matches on the workers of an existing Dask
cluster instead of on this machine. The coordinator keeps everything else:
it builds the schedule, decides which match starts next, disqualifies bots,
and alone writes the SQLite results, so resuming and ``arena results`` work
exactly as for a local run. Same tournament seed, same results table.

* **Bundles.** A bot folder travels as a *bundle*: a reproducible tar of the
  folder (``.arena-build``, ``__pycache__``... left out, as in the bot's
  digest), gzip-compressed and named by the SHA-256 of its bytes. Each bundle
  is registered once as a Dask worker plugin (:class:`BundlePlugin`), so the
  scheduler hands it to every worker once, including workers that join or
  restart later; the worker checks the hash and unpacks it into its bundle
  cache (``ARENA_BUNDLE_CACHE``, or ``arena-bundles`` in the worker's local
  directory). Matches then name the bundle only by its hash.
* **Matches.** :func:`play_on_worker` plays one scheduled match on a worker
  with the same trio supervisor and sandbox as a local run
  (:func:`arena.competition.playing.play_scheduled`) and returns a plain, picklable
  :class:`~arena.competition.store.PlayedMatch`. A bot builds in its bundle folder on
  each worker (once per content, like locally). Each worker process keeps
  one trio loop in a thread with a bot pool (``_MatchHost``), so reusable
  bots keep their processes between the matches of that worker.
* **Persistent bots** (``reuse = "persistent"``: one process plays all
  their matches, in schedule order) play every match on one worker, the
  *home* worker: the coordinator orders their matches as locally, and the
  home worker's match host keeps the one process. If the home worker dies,
  another becomes home and the bot starts afresh (its state is lost, as
  after a fault).
* **Lost workers.** When a worker dies, the scheduler gives its matches to
  another worker; a match whose workers keep dying is submitted again up to
  ``RESUBMITS`` times before the tournament stops with an error. A match that
  was played twice still counts once: the coordinator records the first
  result to come back, under the store's unique key per scheduled match.

Only bots given as folders (with ``bot.toml``) or as command lines that name
no local file (``"python3 -c ..."``, a program on the workers' ``PATH``) can
play on a cluster; anything else is refused with a message saying so.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import gzip
import hashlib
import io
import math
import os
import shutil
import tarfile
import tempfile
import threading
import time
import uuid
from collections import Counter
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Any

import trio

from protocol import Limits

from .._errors import ArenaError, ConfigError, GamePluginError
from ..bots.content import SKIPPED
from ..bots.spec import MANIFEST, BotSpec, hash_path
from ..games import Origin, origin_of
from ..supervisor import BotPool, open_pool
from ..supervisor.build import ensure_built

if TYPE_CHECKING:
    from distributed import Client

    from .plan import Plan
    from .runner import OpenExecutor
    from .schedule import Scheduled
    from .store import PlayedMatch

REGISTER_TRIES = 4
"""Times a worker plugin is sent before a cluster is given up on (workers may die meanwhile)."""
RESUBMITS = 3
"""How many times a match is submitted again after Dask gave up on it (its workers kept dying)."""
CACHE_ENV = "ARENA_BUNDLE_CACHE"
"""Environment variable naming a worker's bundle cache directory."""
CONNECT_TIMEOUT_S = 30.0
HOME_CHECK_S = 2.0
"""How often a match pinned to the home worker checks that the worker still lives (a task pinned to a dead worker
would wait for ever)."""


class ClusterError(ArenaError):
    """The cluster cannot be reached or used, or a bundle arrived damaged."""


# Bundles -----------------------------------------------------------------------
@dataclass(frozen=True)
class Bundle:
    """A bot folder as bytes (a gzip'd tar) and the SHA-256 of those bytes."""

    digest: str
    data: bytes

    def check(self) -> None:
        """Raise :class:`ClusterError` unless ``data`` hashes to ``digest``."""
        actual = hashlib.sha256(self.data).hexdigest()
        if actual != self.digest:
            raise ClusterError(f"bot bundle {self.digest[:16]} arrived damaged (its bytes hash to {actual[:16]})")


def make_bundle(folder: Path) -> Bundle:
    """The bundle of ``folder``: the same files give the same bytes, and so the same digest."""
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w", format=tarfile.PAX_FORMAT) as tar:
        for path in _bundled_files(folder):
            info = tar.gettarinfo(str(path), arcname=path.relative_to(folder).as_posix())
            info.mtime = 0
            info.uid = info.gid = 0
            info.uname = info.gname = ""
            info.mode = 0o755 if info.mode & 0o111 else 0o644
            with path.open("rb") as handle:
                tar.addfile(info, handle)
    data = gzip.compress(raw.getvalue(), compresslevel=6, mtime=0)
    return Bundle(hashlib.sha256(data).hexdigest(), data)


def _bundled_files(folder: Path) -> list[Path]:
    return sorted(
        p
        for p in folder.rglob("*")
        if p.is_file() and not p.is_symlink() and not SKIPPED.intersection(p.relative_to(folder).parts)
    )


def unpack_bundle(bundle: Bundle, cache: Path) -> Path:
    """The folder of ``bundle`` in ``cache``, unpacked now unless it already is there.

    The hash is checked before anything is written. Unpacking goes to a
    temporary folder renamed into place, so a crash leaves no half folder and
    two processes sharing a cache do not trip over each other.
    """
    target = cache / bundle.digest
    if target.is_dir():
        return target
    bundle.check()
    cache.mkdir(parents=True, exist_ok=True)
    scratch = Path(tempfile.mkdtemp(prefix=f".{bundle.digest[:16]}-", dir=cache))
    try:
        with tarfile.open(fileobj=io.BytesIO(gzip.decompress(bundle.data)), mode="r") as tar:
            _extract_files(tar, scratch)
        scratch.chmod(0o755)  # mkdtemp made it private; the sandbox runs bots under their own UIDs
        try:
            scratch.rename(target)
        except OSError:
            if not target.is_dir():
                raise
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    _STATS["unpacked"] += 1
    return target


def _extract_files(tar: tarfile.TarFile, folder: Path) -> None:
    """Write the bundle's regular files under ``folder``; anything else in it is refused.

    A bundle holds only the regular files of a bot folder (``make_bundle``),
    so no link, device, absolute name or ``..`` is ever extracted. Done by
    hand rather than with ``extractall(filter="data")``, which Python 3.11
    has only from 3.11.4 on (Debian 12 ships 3.11.2).
    """
    for member in tar:
        name = PurePosixPath(member.name)
        if not member.isfile() or name.is_absolute() or ".." in name.parts or not name.parts:
            raise ClusterError(f"bot bundle holds {member.name!r}, which is not a file inside the bot's folder")
        target = folder.joinpath(*name.parts)
        target.parent.mkdir(mode=0o755, parents=True, exist_ok=True)
        source = tar.extractfile(member)
        assert source is not None  # a regular file always has contents
        with source, target.open("xb") as sink:
            shutil.copyfileobj(source, sink)
        target.chmod(0o755 if member.mode & 0o111 else 0o644)
    for sub in folder.rglob("*"):
        if sub.is_dir():
            sub.chmod(0o755)  # readable by the bots' own UIDs whatever the umask


_STATS: Counter[str] = Counter()
"""What this process did with bundles (read on workers by tests and benchmarks)."""


def bundle_stats() -> dict[str, int]:
    """How many bundles this process received and unpacked (run it on workers with ``client.run``)."""
    return dict(_STATS)


# The worker side ---------------------------------------------------------------------
def cache_dir(local_directory: str | None = None) -> Path:
    """Where bundles are kept on this worker."""
    configured = os.environ.get(CACHE_ENV)
    if configured:
        return Path(configured)
    if local_directory is None:
        from distributed import get_worker

        local_directory = get_worker().local_directory
    return Path(local_directory) / "arena-bundles"


try:
    from distributed import WorkerPlugin
except ImportError:  # without the cluster extra, bundles still work; clusters do not
    WorkerPlugin = object  # type: ignore[misc,assignment]


class BundlePlugin(WorkerPlugin):
    """Puts one bundle into the cache of every worker (registered once per bundle; see :func:`share_bundles`)."""

    def __init__(self, bundle: Bundle) -> None:
        self.bundle = bundle
        self.name = plugin_name(bundle.digest)

    def setup(self, worker: Any) -> None:
        _STATS["received"] += 1
        unpack_bundle(self.bundle, cache_dir(worker.local_directory))

    def teardown(self, worker: Any) -> None:
        pass


def plugin_name(digest: str) -> str:
    """The Dask plugin name of the bundle ``digest``: one plugin per content, however many bots share it."""
    return f"arena-bundle-{digest}"


@dataclass(frozen=True)
class RemoteBot:
    """A bot as a worker gets it: its spec, and the bundle holding its folder (``""`` for a command line)."""

    spec: BotSpec
    bundle: str

    def local_spec(self, cache: Path) -> BotSpec:
        """The spec with its folder in this worker's bundle cache."""
        if not self.bundle:
            scratch = cache / "command-line-bots"
            scratch.mkdir(parents=True, exist_ok=True)
            return dataclasses.replace(self.spec, cwd=scratch)
        folder = cache / self.bundle
        if not folder.is_dir():
            raise ClusterError(f"bot {self.spec.name!r}: bundle {self.bundle[:16]} is not on this worker")
        return dataclasses.replace(self.spec, cwd=folder)


@dataclass(frozen=True)
class MatchOrder:
    """Everything a worker needs to play one scheduled match (small, and pickled per match)."""

    game: str
    params: dict[str, object]
    limits: Limits
    bots: tuple[RemoteBot, RemoteBot]
    scheduled: Scheduled
    tournament_id: int
    log_path: str | None
    """Where the worker writes the match log (a folder the coordinator and workers share, in a deployment)."""
    reuse: bool = True
    """Keep reusable bots' processes between matches on the worker (off: fresh processes per match)."""
    origin: Origin | None = None
    """Where the game comes from: a worker loads a ``--game-module`` file from there, or names the package it lacks."""
    sync_waits: bool = True
    """``False`` for a competition server's matches: see :attr:`arena.competition.worker.Setup.sync_waits`."""


def _worker_address() -> str:
    """This Dask worker's address, to name it in an error (``?`` outside a worker)."""
    try:
        from distributed import get_worker

        return str(get_worker().address)
    except (ImportError, ValueError):
        return "?"


def play_on_worker(order: MatchOrder) -> PlayedMatch:
    """Play ``order``'s match here, on a Dask worker, and return it as the store records it."""
    from ..games import get_game, provide
    from .playing import play_scheduled

    try:
        provide(order.game, order.origin)
    except GamePluginError as exc:  # said on the coordinator in one line, naming this worker and the plugin
        raise GamePluginError(f"Dask worker {_worker_address()}: {exc}") from None
    game = get_game(order.game, order.params)
    cache = cache_dir()
    log_path = Path(order.log_path) if order.log_path else None
    scheduled = order.scheduled
    # The pool tells processes apart by bot name; on a worker that serves many
    # tournaments, the name carries what the bot is and how it is limited.
    specs = {}
    for remote in order.bots:
        spec = remote.local_spec(cache)
        identity = hashlib.sha256(repr((remote.bundle, spec.command, order.limits)).encode()).hexdigest()[:12]
        specs[spec.name] = spec.with_name(f"{spec.name}@{identity}")

    async def play(pool: BotPool) -> PlayedMatch:
        from ..supervisor._process import SYNC_WAIT

        # 0 for a competition server's match, for this match alone (a worker may serve a tournament next)
        waits = SYNC_WAIT.set(SYNC_WAIT.get() if order.sync_waits else 0.0)
        try:
            for spec in specs.values():
                if spec.build and spec.cwd not in _BUILT:
                    await ensure_built(spec)
                    _BUILT.add(spec.cwd)
            return await play_scheduled(
                game, specs, order.limits, scheduled, pool, log_path=log_path, tournament_id=order.tournament_id
            )
        finally:
            SYNC_WAIT.reset(waits)

    if order.reuse:
        return _host(cache).play(play)

    async def play_fresh() -> PlayedMatch:
        async with open_pool(reuse=False, stderr_path=_stderr_paths(cache)) as pool:
            return await play(pool)

    return trio.run(play_fresh)


_BUILT: set[Path] = set()
"""Bundle folders this worker has built (``ensure_built`` checks a stamp too, but hashes the folder to do it)."""


def _stderr_paths(cache: Path) -> Callable[[BotSpec, int], Path | None]:
    """Where bots' stderr files go on a worker: beside its bundles, one per process."""

    def stderr_path(spec: BotSpec, number: int) -> Path | None:
        return cache / "stderr" / f"{spec.name}.{os.getpid()}.{number}.log"

    return stderr_path


class _MatchHost:
    """A trio loop in a thread of this worker process, holding a bot pool between matches.

    Dask runs tasks in its own threads; each hands its match to this loop and
    waits, so the matches of one worker share a pool and reusable bots keep
    their processes, as in a local tournament.
    """

    def __init__(self, cache: Path) -> None:
        self._cache = cache
        self._ready = threading.Event()
        self._token: trio.lowlevel.TrioToken | None = None
        self._stop: trio.Event | None = None
        self._pool: BotPool | None = None
        self._thread = threading.Thread(target=trio.run, args=(self._main,), name="arena-match-host", daemon=True)
        self._thread.start()
        self._ready.wait()

    async def _main(self) -> None:
        self._stop = trio.Event()
        async with open_pool(reuse=True, stderr_path=_stderr_paths(self._cache)) as pool:
            self._pool = pool
            self._token = trio.lowlevel.current_trio_token()
            self._ready.set()
            await self._stop.wait()

    def play(self, match: Callable[[BotPool], Awaitable[PlayedMatch]]) -> PlayedMatch:
        """Play ``match`` with the host's pool (blocking the calling thread until it is over)."""
        assert self._pool is not None and self._token is not None
        return trio.from_thread.run(match, self._pool, trio_token=self._token)

    def close(self) -> None:
        """Stop the loop: idle bots are told to quit and every process is reaped."""
        assert self._stop is not None and self._token is not None
        with contextlib.suppress(trio.RunFinishedError):
            trio.from_thread.run_sync(self._stop.set, trio_token=self._token)
        self._thread.join()


_HOST: _MatchHost | None = None
_HOST_LOCK = threading.Lock()


def _host(cache: Path) -> _MatchHost:
    global _HOST
    with _HOST_LOCK:
        if _HOST is None:
            _HOST = _MatchHost(cache)
        return _HOST


def host_stats() -> dict[str, int]:
    """Bot processes this worker's match host started and reused (run it on workers with ``client.run``)."""
    with _HOST_LOCK:
        pool = _HOST._pool if _HOST is not None else None
    return dataclasses.asdict(pool.stats) if pool is not None else {}


def close_host() -> None:
    """Stop this process's match host, if it runs (the worker is closing)."""
    global _HOST
    with _HOST_LOCK:
        host, _HOST = _HOST, None
    if host is not None:
        host.close()


class HostPlugin(WorkerPlugin):
    """Stops a worker's match host, and so its bot processes, when the worker closes."""

    name = "arena-match-host"

    def teardown(self, worker: Any) -> None:
        close_host()


# The coordinator side -----------------------------------------------------------------
def remote_bots(specs: dict[str, BotSpec]) -> tuple[dict[str, RemoteBot], dict[str, Bundle]]:
    """Each bot as workers will see it, and the bundles they need (by digest)."""
    bots: dict[str, RemoteBot] = {}
    bundles: dict[str, Bundle] = {}
    for name, spec in specs.items():
        if (spec.cwd / MANIFEST).is_file() and hash_path(spec.cwd) == spec.digest:
            bundle = make_bundle(spec.cwd)
            bundles[bundle.digest] = bundle
            bots[name] = RemoteBot(dataclasses.replace(spec, cwd=Path(".")), bundle.digest)
        elif _names_local_files(spec):
            raise ConfigError(
                f"bot {name!r} ({spec.source}) names files on this machine, which cluster workers do not have:"
                " give it as a folder with a bot.toml to play on a cluster"
            )
        else:
            bots[name] = RemoteBot(dataclasses.replace(spec, cwd=Path(".")), "")
    return bots, bundles


def _names_local_files(spec: BotSpec) -> bool:
    return any((spec.cwd / arg).exists() for arg in spec.command if arg and not arg.startswith("-"))


class ClusterExecutor:
    """Plays one tournament's matches on a Dask cluster; call it with a :class:`Scheduled` match."""

    def __init__(
        self, client: Client, plan: Plan, tournament_id: int, *, reuse: bool = True, sync_waits: bool = True
    ) -> None:
        self.client = client
        self._reuse = reuse
        self._sync_waits = sync_waits
        self._plan = plan
        self._tid = tournament_id
        self.bots, self.bundles = remote_bots(plan.specs)
        self.resubmitted = 0
        """Matches submitted again after Dask gave up on them (see ``RESUBMITS``)."""
        self._home = ""
        """The worker that plays every match of the persistent bots (chosen at their first match)."""

    @property
    def slots(self) -> int:
        """How many matches the cluster plays at once (its workers' threads)."""
        return max(1, sum(self.client.nthreads().values()))  # type: ignore[no-untyped-call]

    def share_bundles(self) -> None:
        """Register every bundle, and the match host's stopper, as worker plugins (blocking; run it in a thread)."""
        self._register(HostPlugin(), HostPlugin.name)
        for bundle in self.bundles.values():
            self._register(BundlePlugin(bundle), plugin_name(bundle.digest))

    def _register(self, plugin: Any, name: str) -> None:
        # The scheduler keeps a plugin for workers that join later, then sends it to
        # the live ones; a worker that dies during that broadcast fails the call.
        # Registering again under the same name is harmless, so retry a few times.
        for attempt in range(REGISTER_TRIES):
            try:
                self.client.register_plugin(plugin, name=name)
                return
            except OSError as exc:  # distributed's CommClosedError is an OSError
                if attempt == REGISTER_TRIES - 1:
                    raise ClusterError(f"could not send {name} to the workers: {exc}") from None
                time.sleep(0.5 * (attempt + 1))

    def home(self) -> str:
        """The worker that plays persistent bots' matches: the same one while it lives (blocking: it asks)."""
        workers = sorted(self.client.scheduler_info()["workers"])
        if self._home not in workers and workers:
            self._home = workers[0]
        return self._home

    def order(self, scheduled: Scheduled, log_path: Path | None) -> MatchOrder:
        """The order a worker gets for ``scheduled``."""
        config = self._plan.config
        return MatchOrder(
            game=config.game,
            params=dict(config.params),
            limits=config.limits,
            bots=(self.bots[scheduled.bot_a], self.bots[scheduled.bot_b]),
            scheduled=scheduled,
            tournament_id=self._tid,
            log_path=str(log_path.resolve()) if log_path else None,
            reuse=self._reuse,
            origin=origin_of(config.game),
            sync_waits=self._sync_waits,
        )

    async def __call__(self, scheduled: Scheduled, log_path: Path | None) -> PlayedMatch:
        from distributed import KilledWorker

        order = self.order(scheduled, log_path)
        attempt = 0
        while True:
            key = f"arena-match-{self._tid}-{scheduled.key}-{uuid.uuid4().hex[:8]}"
            where: dict[str, Any] = {}
            if scheduled.persistent:  # their one process lives on the home worker, and only there
                where = {"workers": [await trio.to_thread.run_sync(self.home)], "allow_other_workers": False}
            future = self.client.submit(play_on_worker, order, key=key, pure=False, **where)
            try:
                finished = await self._until_done_or_homeless(future, pinned=bool(where))
            except BaseException:
                future.cancel()  # type: ignore[no-untyped-call]
                raise
            if not finished:  # the home worker died: another becomes home, the bot starts afresh
                future.cancel()  # type: ignore[no-untyped-call]
                future.release()  # type: ignore[no-untyped-call]
                self.resubmitted += 1
                continue
            attempt += 1
            try:
                match: PlayedMatch = future.result()
            except KilledWorker:
                if attempt > RESUBMITS:
                    raise ClusterError(
                        f"match {scheduled.key}: the workers playing it died {RESUBMITS + 1} times over;"
                        " see the workers' logs (a bot may exhaust a worker's memory)"
                    ) from None
                self.resubmitted += 1
                continue
            finally:
                future.release()  # type: ignore[no-untyped-call]
            return match

    async def _until_done_or_homeless(self, future: Any, *, pinned: bool) -> bool:
        """Wait until ``future`` is finished (``True``), or, for a match pinned to the home worker, until it died."""
        while True:
            with trio.move_on_after(HOME_CHECK_S if pinned else math.inf):
                await _until_done(future)
                return True
            workers = await trio.to_thread.run_sync(lambda: self.client.scheduler_info()["workers"])
            if self._home not in workers:
                return False


async def _until_done(future: Any) -> None:
    """Wait, without blocking trio, until the Dask ``future`` is finished (done, failed or cancelled)."""
    token = trio.lowlevel.current_trio_token()
    done = trio.Event()

    def wake(_future: Any) -> None:
        with contextlib.suppress(trio.RunFinishedError):
            token.run_sync_soon(done.set)

    future.add_done_callback(wake)
    await done.wait()


def connect(address: str) -> Client:
    """A Dask client for the scheduler at ``address`` (blocking; raises :class:`ClusterError`)."""
    try:
        from distributed import Client
    except ImportError:
        raise ConfigError("--cluster needs Dask's distributed package: pip install 'arena[cluster]'") from None
    try:
        return Client(address, timeout=CONNECT_TIMEOUT_S, set_as_default=False)  # type: ignore[no-untyped-call]
    except (OSError, TimeoutError) as exc:
        raise ClusterError(f"cannot reach the Dask scheduler at {address}: {exc}") from None


@contextlib.asynccontextmanager
async def open_executor(
    address: str, plan: Plan, tournament_id: int, *, reuse: bool = True, sync_waits: bool = True
) -> AsyncIterator[ClusterExecutor]:
    """A :class:`ClusterExecutor` on the cluster at ``address``, with every bot's bundle shared with its workers."""
    client = await trio.to_thread.run_sync(connect, address)
    try:
        executor = ClusterExecutor(client, plan, tournament_id, reuse=reuse, sync_waits=sync_waits)
        await trio.to_thread.run_sync(executor.share_bundles)
        yield executor
    finally:
        with trio.CancelScope(shield=True):
            await trio.to_thread.run_sync(client.close)


def executor_at(address: str, *, reuse: bool = True) -> OpenExecutor:
    """The ``executor`` for :func:`~arena.competition.runner.run_tournament` to play on the cluster at ``address``."""
    return functools.partial(open_executor, address, reuse=reuse)
