"""A fuzzing bot: answers every request, some with hostile bytes, seeded so a run can be replayed.

Usage: ``fuzz_bot.py SEED RATE [json|gops-text]``. Each request gets one write that ends
in a newline: a legal answer, or (with probability RATE) a mutation of it:
random bytes, bit flips, invalid UTF-8, surrogates, deep nesting, huge
numbers, NaN, a byte-order mark, control bytes, wrong or repeated ids,
answers ahead of their request, odd actions. With ``gops-text`` it speaks the
gops-text protocol (a bare number per bid) and mutates that.
"""

import json
import os
import random
import sys

seed, rate = int(sys.argv[1]), float(sys.argv[2])
text = sys.argv[3:] == ["gops-text"]
rng = random.Random(seed)

SPLIT = {"high": [3, 4, 5], "middle": [1, 2], "low": [0]}
BAD_UTF8 = [
    b"\xff",
    b"\xfe\xff",
    b"\xc0\xaf",
    b"\xed\xa0\x80",
    b"\xed\xbf\xbf",
    b"\xf8\x88\x80\x80",
    b"\x80",
    b"\xe2\x82",
]
SURROGATES = [b"\\ud800", b"\\udfff", b"\\ud800\\u0041", b"\\udc00\\ud800", b"\\ud83d\\ude00", b"\\uDBFF"]
NUMBERS = [
    b"1e999", b"-1e999", b"1e-999", b"NaN", b"-NaN", b"Infinity", b"-Infinity", b"0x10", b"01", b"1.", b".5", b"+1",
    b"9" * 19, b"9" * 20, b"-" + b"9" * 40, b"9" * 4299, b"9" * 4301, b"1" + b"0" * 400 + b".5", b"1E+308", b"-0",
]  # fmt: skip


def legal(message: dict) -> object:
    """A legal action for any game's request (the same in any state, so a desynchronised bot stays legal)."""
    kind = message["type"]
    if kind == "gops_bid":
        return message["prize"]  # the prize's value is always still in hand
    if kind == "poker_set":
        return SPLIT
    if kind == "badugi_act":
        return "check" if "check" in message["legal"] else "call"
    if kind == "badugi_draw":
        return []
    return 0  # an index: draft_pick, main_play, jitsu_play


def any_json(depth: int = 0) -> object:
    """A random JSON value: what a confused bot might send as its action."""
    pick = rng.randrange(9 if depth < 4 else 6)
    if pick == 0:
        return rng.choice([0, 1, -1, 7, 2**31, 2**63, -(2**64), 10**30])
    if pick == 1:
        return rng.choice([0.5, -1e300, 1e-300, 3.0, 1e16])
    if pick == 2:
        return "".join(chr(rng.choice([0x41, 0x22, 0x5C, 0x0, 0x1B, 0xE9, 0x202E, 0xFFFD, 0x1F600])) for _ in range(5))
    if pick == 3:
        return rng.choice([True, False, None])
    if pick == 4:
        return rng.choice(["fold", "call", "R3", "", "x" * 5000])
    if pick == 5:
        return rng.choice([[0, 1, 2], [0, 0], [-1], [None], []])
    if pick == 6:
        return [any_json(depth + 1) for _ in range(rng.randrange(4))]
    if pick == 7:
        keys = ["high", "middle", "low", "id", "action", "\u0000", "x"]
        return {rng.choice(keys): any_json(depth + 1) for _ in range(rng.randrange(4))}
    return {"high": [5, 4, 3], "middle": [2, 1], "low": [rng.choice([0, 6, -1, "0", 0.0, True])]}


def flip_bits(line: bytes) -> bytes:
    data = bytearray(line)
    for _ in range(rng.randrange(1, 5)):
        if data:
            data[rng.randrange(len(data))] ^= 1 << rng.randrange(8)
    return bytes(data)


def insert(line: bytes, piece: bytes) -> bytes:
    at = rng.randrange(len(line) + 1)
    return line[:at] + piece + line[at:]


def nested(depth: int) -> bytes:
    opening, closing = (b"[", b"]") if rng.random() < 0.5 else (b'{"a":', b"}")
    inner = opening * depth + b"0" + closing * depth
    return inner if rng.random() < 0.8 else inner[: rng.randrange(len(inner))]


def mutate_json(rid: int, action: object) -> bytes:
    """One hostile write for the request ``rid`` (a line or several, ending in a newline)."""
    good = json.dumps({"id": rid, "action": action}).encode()
    head = b'{"id":%d,"action":' % rid
    kind = rng.randrange(16)
    if kind == 0:
        return bytes(rng.choice([b for b in range(256) if b != 10]) for _ in range(rng.randrange(200)))
    if kind == 1:
        return flip_bits(good)
    if kind == 2:
        return head + b'"' + rng.choice(BAD_UTF8) + b'"}'
    if kind == 3:
        return head + b'"' + rng.choice(SURROGATES) + b'"}'
    if kind == 4:
        depth = rng.choice([30, 31, 32, 33, 40, 100, 1000, 3000])
        return head + nested(depth) + b"}" if rng.random() < 0.7 else nested(depth)
    if kind == 5:
        number = rng.choice(NUMBERS)
        return head + number + b"}" if rng.random() < 0.6 else b'{"id":' + number + b',"action":0}'
    if kind == 6:
        return b"\xef\xbb\xbf" + good
    if kind == 7:
        return insert(good, bytes([rng.choice([*range(0, 10), *range(11, 32), 127])]))
    if kind == 8:  # a wrong id, or the right one as the wrong type
        wrong = rng.choice([rid - 1, rid + 1, 0, -1, 2**70, f'"{rid}"', f"{rid}.0", "true", "null"])
        return b'{"id":%s,"action":%s}' % (str(wrong).encode(), json.dumps(action).encode())
    if kind == 9:  # twice, or the next request's answer too (ahead of it)
        extra = good if rng.random() < 0.5 else json.dumps({"id": rid + 1, "action": action}).encode()
        return good + b"\n" + extra
    if kind == 10:
        return json.dumps({"id": rid, "action": any_json()}).encode()
    if kind == 11:
        return rng.choice([b"", b" ", b"\r", b"\t", b"null", b"[]", b"{}", b'"id"', b"\\", b'{"id":'])
    if kind == 12:  # extra keys of any kind (ignored by the arena, but logged)
        return json.dumps({"id": rid, "action": action, "note": any_json()}).encode()
    if kind == 13:
        return good + b"\r" if rng.random() < 0.5 else good + b" trailing"
    if kind == 14:  # a line split in two writes' worth, or a junk line then the answer
        return b"junk\n" + good if rng.random() < 0.5 else good[:5] + b"\n" + good[5:]
    return json.dumps({"id": rid, "action": any_json()}, ensure_ascii=False).encode()


def mutate_text(bid: int) -> bytes:
    good = str(bid).encode()
    kind = rng.randrange(9)
    if kind == 0:
        return bytes(rng.choice([b for b in range(256) if b != 10]) for _ in range(rng.randrange(100)))
    if kind == 1:
        return flip_bits(good)
    if kind == 2:
        return rng.choice(BAD_UTF8) + good if rng.random() < 0.5 else good + rng.choice(BAD_UTF8)
    if kind == 3:
        return nested(rng.choice([33, 1000, 3000]))
    if kind == 4:
        return rng.choice(NUMBERS)
    if kind == 5:
        return b"\xef\xbb\xbf" + good
    if kind == 6:
        return good + b"\n" + good  # twice: the second line is taken as the next bid, or judged unasked
    if kind == 7:
        return insert(good, bytes([rng.choice([*range(0, 10), *range(11, 32)])]))
    return rng.choice([b"", b"bid", b"-" + good, b"+" + good, b"\x00" + good, b"0" * 30 + good])


for line in sys.stdin.buffer:
    if text:
        if not line.startswith(b"Competition card:"):
            continue
        bid = int(line.split(b":")[1])
        out = mutate_text(bid) if rng.random() < rate else str(bid).encode()
    else:
        message = json.loads(line)
        if message.get("type") == "quit":
            break
        if "id" not in message:
            continue
        rid, action = message["id"], legal(message)
        out = mutate_json(rid, action) if rng.random() < rate else json.dumps({"id": rid, "action": action}).encode()
    os.write(1, out + b"\n")
