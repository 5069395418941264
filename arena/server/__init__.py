"""The competition server: ``arena serve CONFIG.toml`` and ``arena submit``.

Participants upload bots over the web (or with ``arena submit``); each upload
is unpacked safely, built and checked in the sandbox as ``arena check`` does,
and a bot that passes becomes a new version on a rolling ladder that plays
duplicate pairs continuously. Everyone sees the live leaderboard, bot pages
and replays; the organiser pauses, freezes, disqualifies and downloads.
One process, one trio nursery: Hypercorn serves the Starlette app while the
ladder plays (its matches in a match worker, the standings drawn in a process
of their own: nothing heavy shares the pages' interpreter).

* :mod:`~arena.server.config`: the server's TOML config;
* :mod:`~arena.server.archive`: uploads to bot folders (archives checked entry by entry);
* :mod:`~arena.server.state`: participants, sessions, submissions, versions (SQLite);
* :mod:`~arena.server.service`: the running competition (ladder, checks);
* :mod:`~arena.server.ladder_host`: the service's part that runs the ladder here, in a match worker or on a cluster;
* :mod:`~arena.server.participants`: the service's part for accounts: participants, sessions, login codes,
  invitations, approvals and the organiser's token;
* :mod:`~arena.server.standings`: its standings (the field, the leaderboard, the ratings the ladder pairs by);
  :mod:`~arena.server.drawing`: the process of its own that draws them (no lock shared with the pages);
* :mod:`~arena.server.checkpoints`: the database's checkpoints, in a thread rather than in a commit on the loop;
* :mod:`~arena.server.versions`: a version of a participant's bot, with its owner and folder;
* :mod:`~arena.server.catalogue`: the service's part that reads the bot versions and recorded matches;
* :mod:`~arena.server.submissions`: the service's part that takes uploads, checks them and admits them;
* :mod:`~arena.server._queue`: which upload is checked next, and who runs now;
* :mod:`~arena.server.log_upkeep`: the service's part that keeps the logs:
  their disk against the config's caps (:mod:`~arena.server.disk`) and which
  are kept (:mod:`~arena.server.retention`);
* :mod:`~arena.server.files`: showing a bot's files to its owner without following links;
* :mod:`~arena.server.web`: the web app and its pages; beside it :mod:`~arena.server.api`
  (the JSON API, mounted at ``/api``), :mod:`~arena.server.admin` (the organiser's pages),
  :mod:`~arena.server.bots` (a bot's pages), :mod:`~arena.server.matches` (a recorded match's),
  :mod:`~arena.server.accounts` (logging in, registering, a participant's page and uploads),
  :mod:`~arena.server.live` (matches in play), :mod:`~arena.server.tv` (the TV)
  and :mod:`~arena.server.human` (a person against a bot); :mod:`~arena.server._text`: how their pages write
  numbers (the templates' ``num`` filter, and the rows a page writes in Python);
* :mod:`~arena.server.access`: who may see and do what, as pure functions;
* :mod:`~arena.server._clients`: who a request comes from, for limits by address;
* :mod:`~arena.server.serve` and :mod:`~arena.server._listen`: Hypercorn and
  the competition in one nursery, and the accept loop;
* :mod:`~arena.server.safety`: whether the server may serve strangers here;
* :mod:`~arena.server._memory`: the allocator's freed pages given back after each drawing of the standings;
* :mod:`~arena.server.maintain`: backups and upkeep of the data folder;
* :mod:`~arena.server.client`: ``arena submit``;
* :mod:`~arena.server.cli`: the two commands.

The ladder's choice of pairs is :mod:`arena.competition.ladder`.
"""
