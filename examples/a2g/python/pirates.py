#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""pirates.py: a tiny deterministic game (orbital freight: pirates raid
freighters) whose pirates ask an A2G decision service what to do, and do what
their own AI says whenever the service cannot answer well.

    python3 pirates.py [--url http://127.0.0.1:8787] [--ticks 12] [--seed 7] [--show-reasons]

Every tick: the game sends telemetry, asks for one decision per active pirate
(one batch), validates each answer (epoch, legal action, TTL), executes it (or
the native choice), and reports how the previous tick's decisions worked out.
The world is a line of 5,000 units; freighters fly along it, pirates close in,
fire, run or give up. The same seed and the same answers give the same game.
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import random
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from a2g_client import A2GClient, EntityRequest, Outcome  # noqa: E402

MANIFEST = os.path.join(os.path.dirname(os.path.abspath(__file__)), "orbital-freight.json")
CARGO = ["ore", "medicine", "weapons"]
PROFILES = ["coward", "veteran"]


class Ship:
    def __init__(self, name: str, kind: str, x: float, hp: int, cargo: str = "none",
                 profile: str | None = None):
        self.name, self.kind, self.x, self.hp = name, kind, x, hp
        self.cargo, self.profile = cargo, profile
        self.state = "active"        # pirates: active, fled, surrendered, destroyed

    @property
    def active(self) -> bool:
        return self.state == "active" and self.hp > 0


class Game:
    def __init__(self, seed: int, pirates: int, freighters: int):
        self.rng = random.Random(seed)
        self.tick = 0
        self.epoch = 0
        self.freighters = [Ship(f"freighter-{i + 1}", "freighter", 400.0 * i, 100,
                                cargo=self.rng.choice(CARGO)) for i in range(freighters)]
        self.pirates = [Ship(f"pirate-{i + 1}", "pirate", 1500.0 + 200.0 * i,
                             self.rng.choice([60, 80, 100]), profile=PROFILES[i % 2])
                        for i in range(pirates)]

    def target(self, pirate: Ship) -> Ship | None:
        alive = [f for f in self.freighters if f.hp > 0]
        return min(alive, key=lambda f: (abs(f.x - pirate.x), f.name)) if alive else None

    def observe(self, pirate: Ship) -> tuple[dict, list[str]]:
        target = self.target(pirate)
        distance = min(5000.0, abs(target.x - pirate.x)) if target else 5000.0
        allies = sum(1 for p in self.pirates
                     if p is not pirate and p.active and abs(p.x - pirate.x) <= 1000)
        cornered = pirate.hp < 40 and distance < 300
        observations = {
            "hp": pirate.hp,
            "target_distance": round(distance, 1),
            "allies_near": min(16, allies),
            "cargo_seen": target.cargo if target and distance <= 2000 else "none",
            "cornered": cornered,
        }
        legal = []
        if target and distance <= 2000:
            legal.append("attack")
        if not cornered:
            legal.append("flee")
        if allies == 0 and any(p is not pirate and p.active for p in self.pirates):
            legal.append("call_help")
        if pirate.hp <= 50:
            legal.append("surrender")
        return observations, legal or ["surrender"]

    @staticmethod
    def native_choice(observations: dict, legal: list[str]) -> str:
        """The game's own pirate AI: a small utility rule."""
        if observations["hp"] < 30:
            for action in ("flee", "surrender"):
                if action in legal:
                    return action
        if "attack" in legal and (observations["hp"] >= 50 or observations["allies_near"] > 0):
            return "attack"
        if "call_help" in legal:
            return "call_help"
        return legal[0]

    def execute(self, pirate: Ship, action: str) -> str:
        """Runs one pirate's action; returns its outcome for the report."""
        target = self.target(pirate)
        if action == "attack":
            if target is None:
                return "interrupted"
            gap = target.x - pirate.x
            if abs(gap) > 250:
                pirate.x += max(-600.0, min(600.0, gap))
                return "interrupted"
            hit = self.rng.randint(10, 30)
            target.hp = max(0, target.hp - hit)
            pirate.hp = max(0, pirate.hp - self.rng.randint(0, 15))
            if pirate.hp == 0:
                pirate.state = "destroyed"
                return "failure"
            return "success"
        if action == "flee":
            pirate.x += 700.0 if target is None or pirate.x >= target.x else -700.0
            if target is None or abs(pirate.x - target.x) > 2500:
                pirate.state = "fled"
            return "success"
        if action == "call_help":
            others = [p for p in self.pirates if p is not pirate and p.active]
            if not others:
                return "failure"
            ally = min(others, key=lambda p: (abs(p.x - pirate.x), p.name))
            ally.x += max(-500.0, min(500.0, pirate.x - ally.x))
            return "success"
        pirate.state = "surrendered"
        return "success"

    def advance(self) -> None:
        for freighter in self.freighters:
            if freighter.hp > 0:
                freighter.x += 150.0
        self.tick += 1
        # A freighter lost or a pirate gone changes the world: a new epoch.
        self.epoch = sum(1 for f in self.freighters if f.hp == 0) + \
            sum(1 for p in self.pirates if not p.active)

    def telemetry(self) -> list[dict]:
        return [{"entity": s.name, "type": s.kind, "pos": [round(s.x, 1), 0.0],
                 "faction": "raiders" if s.kind == "pirate" else "haulers", "hp": s.hp}
                for s in self.freighters + self.pirates if s.hp > 0 and s.state == "active"]


def play(url: str, ticks: int, seed: int, pirates: int, freighters: int, tick_ms: int,
         failure_backoff: float, show_reasons: bool, out) -> int:
    with open(MANIFEST, encoding="utf-8") as f:
        manifest = json.load(f)
    game = Game(seed, pirates, freighters)
    client = A2GClient(url, manifest, client_id=f"c_pirates_{seed:08d}",
                       failure_backoff=failure_backoff,
                       log=lambda line: print("  " + line, file=out))
    if client.open_session():
        client.context(scopes=["station", "inner_ring"],
                       profiles={p.name: p.profile for p in game.pirates})
    counts: collections.Counter[str] = collections.Counter()
    pending: list[Outcome] = []

    for _ in range(ticks):
        active = [p for p in game.pirates if p.active]
        if not active:
            break
        if pending:
            client.report(pending)
            pending = []
        client.telemetry(game.tick, game.telemetry())
        asks = []
        for pirate in active:
            observations, legal = game.observe(pirate)
            asks.append((pirate, observations, legal))
        choices = client.decide(game.epoch, [
            EntityRequest(p.name, "pirate", obs, legal, profile=p.profile, deadline_ms=1500)
            for p, obs, legal in asks])
        for (pirate, observations, legal), choice in zip(asks, choices):
            native = game.native_choice(observations, legal)
            action = choice.action_or(native, game.epoch)
            if choice.native is None:
                how = f"a2g {choice.source} {choice.confidence}"
                counts["a2g:" + str(choice.source)] += 1
            else:
                how = f"native ({choice.native})"
                counts["native:" + choice.native] += 1
            outcome = game.execute(pirate, action)
            print(f"tick {game.tick:2d} epoch {game.epoch} {pirate.name}: {action:<9} {how:<22}"
                  f" of [{','.join(legal)}] -> {outcome} (hp {pirate.hp}, {pirate.state})", file=out)
            if show_reasons and choice.reason:
                print(f"    reason: {choice.reason}", file=out)
            if choice.native is None and choice.decision_id:
                pending.append(Outcome(choice.decision_id, pirate.name, outcome,
                                       reward=1.0 if outcome == "success" else -0.5))
        game.advance()
        out.flush()
        if tick_ms > 0:
            time.sleep(tick_ms / 1000.0)
    if pending:
        client.report(pending)
    client.close()

    a2g = sum(n for k, n in counts.items() if k.startswith("a2g:"))
    native = sum(n for k, n in counts.items() if k.startswith("native:"))
    detail = ", ".join(f"{k}={counts[k]}" for k in sorted(counts))
    cargo = sum(1 for f in game.freighters if f.hp == 0)
    print(f"summary: ticks={game.tick} decisions={a2g + native} a2g={a2g} native={native}"
          f" [{detail}] freighters_lost={cargo}"
          f" pirates={','.join(p.state for p in game.pirates)}", file=out)
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Pirates and freighters over A2G.")
    parser.add_argument("--url", default="http://127.0.0.1:8787", help="the decision service")
    parser.add_argument("--ticks", type=int, default=12)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--pirates", type=int, default=4)
    parser.add_argument("--freighters", type=int, default=3)
    parser.add_argument("--tick-ms", type=int, default=0, help="real time per tick (0: run flat out)")
    parser.add_argument("--failure-backoff", type=float, default=1.0,
                        help="seconds of native choices after the service could not be reached")
    parser.add_argument("--show-reasons", action="store_true", help="print the model's reasons")
    args = parser.parse_args(argv)
    return play(args.url, args.ticks, args.seed, args.pirates, args.freighters, args.tick_ms,
                args.failure_backoff, args.show_reasons, sys.stdout)


if __name__ == "__main__":
    sys.exit(main())
