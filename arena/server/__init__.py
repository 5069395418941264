"""The competition server: ``arena serve CONFIG.toml`` and ``arena submit``.

Participants upload bots over the web (or with ``arena submit``); each upload
is unpacked safely, built and checked in the sandbox as ``arena check`` does,
and a bot that passes becomes a new version on a rolling ladder that plays
duplicate pairs continuously. Everyone sees the live leaderboard, bot pages
and replays; the organiser pauses, freezes, disqualifies and downloads.
One process, one trio nursery: Hypercorn serves the Starlette app while the
ladder plays.

* :mod:`~arena.server.config`: the server's TOML config;
* :mod:`~arena.server.archive`: uploads to bot folders (archives checked entry by entry);
* :mod:`~arena.server.state`: participants, sessions, submissions, versions (SQLite);
* :mod:`~arena.server.service`: the running competition (ladder, checks);
* :mod:`~arena.server.standings`: its standings (the field, the leaderboard, the ratings the ladder pairs by);
* :mod:`~arena.server.versions`: a version of a participant's bot, with its owner and folder;
* :mod:`~arena.server.files`: showing a bot's files to its owner without following links;
* :mod:`~arena.server.web`: the pages and the JSON API;
* :mod:`~arena.server.serve`: Hypercorn and the competition in one nursery;
* :mod:`~arena.server.client`: ``arena submit``;
* :mod:`~arena.server.cli`: the two commands.

The ladder's choice of pairs is :mod:`arena.competition.ladder`.
"""
