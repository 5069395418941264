# ruff: noqa
# (a record of how a fixture was made, by another checkout's code: run once, not by the suite)
"""How tests/data/server-schema2.sqlite was made, by the arena of main at d75e2af (before schema 3).

A server's data folder with participants, versions, matches and faults.
"""

import random
import sys
from pathlib import Path

sys.path.insert(0, "/work/main")
import arena

assert arena.__file__.startswith("/work/main"), arena.__file__
from arena.competition.store import FaultRow, PlayedMatch
from arena.server.config import load
from arena.server.service import Competition

out = Path(sys.argv[1])
sample = Path("/work/main/sample_bots/rps-poker")
(out / "server.toml").write_text(
    f'name = "Old ladder"\ngame = "rps-poker"\nhouse_bots = ["{sample / "minimal-python"}", "{sample / "random-python"}", "{sample / "simple-py"}"]\n'
    f'[server]\ndata_dir = "{out / "data"}"\nport = 0\n'
)
c = Competition(load(out / "server.toml"))
c.add_house_bots()
for v in c.versions():
    c.store.set_admission(v.id, "admitted")
c.catalogue.forget()
pid, token = c.state.add_participant("alice")
c.state.set_setting("paused", "0")
rng = random.Random(3)
vs = [v for v in c.versions() if v.playing]
for n in range(40):
    a, b = sorted(rng.sample(vs, 2), key=lambda v: v.label)
    deal = f"{a.label}~{b.label}~{n}"
    for leg, (x, y) in enumerate(((a, b), (b, a))):
        faults = (FaultRow("A", x.row.name, "timeout", "slow"),) if rng.random() < 0.1 else ()
        winner = "B" if faults else rng.choice(["A", "B", None])
        c.store.record_match(
            c.tid,
            PlayedMatch(
                key=f"{deal}-{'ab'[leg]}",
                cycle=0,
                deal=deal,
                leg=leg,
                bot_a=x.row.name,
                bot_b=y.row.name,
                seed=rng.getrandbits(40),
                points=(rng.choice([0.0, 2.5, 4.0]), 3.0),
                winner=winner,
                forfeit=("A",) if faults else (),
                faults=faults,
                versions=(x.id, y.id),
            ),
        )
c.close()
print("ok", pid)
