"""Checks a user runs before play: ``arena check`` on a bot, ``arena sandbox`` on this machine.

* :mod:`arena.checks.bot`: builds a bot, times its start-up, plays it against
  reference bots and judges how it keeps the protocol, in the spirit of
  fastchess's ``--compliance``;
* :mod:`arena.checks.sandbox`: runs a canary bot once per sandbox property
  through the supervisor's real path and says what holds here.
"""
