"""What a bot is: a folder with a manifest, an executable, or a command line.

* :mod:`arena.bots.spec`: :func:`resolve` turns what a user typed into a
  :class:`BotSpec` (the command, its folder, its build step, whether it may
  play many matches in one process, the protocol it speaks) with a content
  hash of its files; ``bot.toml`` is read here.
* :mod:`arena.bots.samples`: where the sample bots and the games' rules are,
  in a checkout or an installed wheel.
* :mod:`arena.bots.content`: a bot folder's content, walked once for both its
  hash and its build copy.
* :mod:`arena.bots.starters` and :mod:`arena.bots.plugin_starters`: starter
  bots and ``arena new GAME LANGUAGE``, for Arena's games and for a plugin's.
* :mod:`arena.bots.js`: the node host that runs bots written for the RPS
  Poker challenge unchanged.

Nothing here starts a process: the sandbox jails a :class:`BotSpec`, the
supervisor builds and runs it.
"""

from .spec import MANIFEST, BotSpec, hash_path, load_folder, resolve

__all__ = ["MANIFEST", "BotSpec", "hash_path", "load_folder", "resolve"]
