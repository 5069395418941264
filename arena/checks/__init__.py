"""Checks a user runs before play: ``arena check`` on a bot, ``arena sandbox`` on this machine.

* :mod:`arena.checks.bot`: builds a bot, times its start-up, plays it against
  reference bots and judges how it keeps the protocol, in the spirit of
  fastchess's ``--compliance``;
* :mod:`arena.checks.sandbox`: runs a canary bot once per sandbox property
  through the supervisor's real path and says what holds here;
* :mod:`arena.checks.hints`: what a fault most likely means, for a bot's author;
* :mod:`arena.checks.game` and :mod:`arena.checks._kit`: ``arena check-game``,
  the conformance kit a game passes (random playouts with no process);
  :mod:`arena.checks._digest` is its determinism check's other process;
* :mod:`arena.checks.outcome`: one check's outcome, the ``PASS``/``FAIL`` line
  of both kinds of check;
* :mod:`arena.checks.new_game`: ``arena new-game NAME``, a new game's package.
"""
