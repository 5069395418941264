"""The supervisor: one jailed bot process, and one match between two of them.

* :mod:`~arena.supervisor._process`: a bot process in its jail (from
  :mod:`arena.sandbox`), its pipes, output caps, CPU and memory accounting,
  and the kill of its whole tree;
* :mod:`~arena.supervisor.build`: a bot's build step, once per content, in
  the bot's jail;
* :mod:`~arena.supervisor.wires`: how messages become a bot's lines and its
  lines become answers (JSON, and the games' text protocols);
* :mod:`~arena.supervisor.match`: :class:`MatchRunner`, the one place where a
  bot's misbehaviour becomes a :class:`Fault` with a reason;
* :mod:`~arena.supervisor.matchlog`: the match log (every message both ways);
* :mod:`~arena.supervisor._pool`: processes kept between matches for bots
  that may play many;
* :mod:`~arena.supervisor._human_relay`: the human seat's process, relaying
  lines between the arena and a person's terminal;
* :mod:`~arena.supervisor.play`: :func:`play_match`, one match start to end;
* :mod:`~arena.supervisor.options`: the command-line options every command
  that plays shares (limits, sandbox level, game parameters).
"""

from .._lazy import lazy_names

TYPE_CHECKING = False
if TYPE_CHECKING:
    from ._pool import STARTS_AHEAD, BotPool, PoolStats, open_pool
    from ._process import GRACE_S, BotProcess, SpawnOptions, bot_environment, killed_by, open_bot
    from .match import Fault, MatchRecord, MatchRunner, Seat
    from .play import new_seed, play_match

__getattr__ = lazy_names(
    __name__,
    {
        **dict.fromkeys(("STARTS_AHEAD", "BotPool", "PoolStats", "open_pool"), "._pool"),
        **dict.fromkeys(
            ("GRACE_S", "BotProcess", "SpawnOptions", "bot_environment", "killed_by", "open_bot"), "._process"
        ),
        **dict.fromkeys(("Fault", "MatchRecord", "MatchRunner", "Seat"), ".match"),
        **dict.fromkeys(("new_seed", "play_match"), ".play"),
    },
    globals(),
)
"""The public names, each imported on first use: the command line's options (:mod:`~arena.supervisor.options`)
are read by commands that run no match (``arena results``, ``arena replay``), which then start without trio."""

__all__ = [
    "GRACE_S",
    "STARTS_AHEAD",
    "BotPool",
    "BotProcess",
    "Fault",
    "MatchRecord",
    "MatchRunner",
    "PoolStats",
    "Seat",
    "SpawnOptions",
    "bot_environment",
    "killed_by",
    "new_seed",
    "open_bot",
    "open_pool",
    "play_match",
]
