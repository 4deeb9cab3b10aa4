"""A job's profile (SUBMIT flag 0x2): what every worker of every node did
while the job ran, decoded from the ``profile.*`` items of its statistics
(proto/PROTOCOL.md 14.12, "Profiles").

Each node's text is ``node=ID cluster=C w=W s=START e=END[ t=TRUNC]`` and
then events ``DELTA LETTER N`` (no spaces inside one): ``b`` worker N
starts a record, ``i`` it goes back to idle, ``l``/``w`` steal request N
goes to the node's own cluster / another, ``a`` request N is answered or
withdrawn.  Times are ns since the job started on the node it was
submitted to.  A text that breaks a rule is not used (:class:`ValueError`
from :func:`parse_node`; :meth:`Profile.from_stats` lists it in
``bad``).
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Tuple

_HEAD = re.compile(r"(?:node=(\S+) cluster=(\d+) )?w=(\d+) s=(-?\d+) e=(-?\d+)(?: t=(-?\d+))?")
_EVENT = re.compile(r"(\d+)([bilwa])(\d+)")


@dataclass
class Interval:
    """One span of a worker's (or of a steal request's) time, in ns."""
    start_ns: int
    end_ns: int
    what: str          # "compute", "lan_steal" or "wan_steal"

    @property
    def length_ns(self) -> int:
        return self.end_ns - self.start_ns


@dataclass
class NodeProfile:
    """One node's part of a profile."""
    node: Optional[str]
    cluster: Optional[int]
    workers: int
    start_ns: int
    end_ns: int
    truncated_ns: Optional[int]
    events: List[Tuple[int, str, int]] = field(default_factory=list)  # (t_ns, letter, n)

    def busy(self) -> Dict[int, List[Interval]]:
        """Each worker's computing intervals (``b`` to ``i``; one still
        open ends at the recording's end)."""
        out: Dict[int, List[Interval]] = {w: [] for w in range(self.workers)}
        open_at: Dict[int, int] = {}
        for t, letter, n in self.events:
            if letter == "b":
                open_at[n] = t
            elif letter == "i" and n in open_at:
                out[n].append(Interval(open_at.pop(n), t, "compute"))
        end = self.truncated_ns if self.truncated_ns is not None else self.end_ns
        for w, t in open_at.items():
            out[w].append(Interval(t, end, "compute"))
        return out

    def steals(self) -> List[Interval]:
        """The node's own steal requests, from sent to answered or withdrawn."""
        out, open_at = [], {}
        for t, letter, n in self.events:
            if letter in "lw":
                open_at[n] = (t, "lan_steal" if letter == "l" else "wan_steal")
            elif letter == "a" and n in open_at:
                start, what = open_at.pop(n)
                out.append(Interval(start, t, what))
        return out

    def busy_ns(self) -> int:
        """Computing time summed over the node's workers."""
        return sum(iv.length_ns for ivs in self.busy().values() for iv in ivs)


def parse_node(text: str) -> NodeProfile:
    """One node's profile text (ValueError when it breaks a rule)."""
    m = _HEAD.match(text)
    if not m:
        raise ValueError("profile text does not start with its header")
    node, cluster, w, s, e, t = m.groups()
    p = NodeProfile(node, int(cluster) if cluster is not None else None, int(w), int(s), int(e),
                    int(t) if t is not None else None)
    if not 1 <= p.workers <= 4096:
        raise ValueError("profile: %d workers" % p.workers)
    rest, at = text[m.end():], p.start_ns
    limit = p.truncated_ns if p.truncated_ns is not None else p.end_ns
    for word in rest.split(" ")[1:] if rest else []:
        ev = _EVENT.fullmatch(word)
        if not ev:
            raise ValueError("profile: bad event %r" % word)
        at += int(ev.group(1))
        letter, num = ev.group(2), int(ev.group(3))
        if at > limit:
            raise ValueError("profile: an event after its end")
        if letter in "bi" and num >= p.workers:
            raise ValueError("profile: worker %d of %d" % (num, p.workers))
        p.events.append((at, letter, num))
    if rest and not rest.startswith(" "):
        raise ValueError("profile: text after the header")
    return p


@dataclass
class Profile:
    """A job's profile: ``wall_ns`` (the time axis ends there), each node's
    :class:`NodeProfile`, the ids of members whose profile did not come
    (``missing``) and the slots whose text was bad (``bad``)."""
    wall_ns: int
    nodes: List[NodeProfile]
    missing: List[str]
    bad: List[str]

    @classmethod
    def from_stats(cls, stats: Dict[str, object]) -> "Optional[Profile]":
        """The profile in a job's statistics, or None when it has none."""
        wall = stats.get("profile.wall_ns")
        if not isinstance(wall, int):
            return None
        nodes, bad = [], []
        for key, value in stats.items():
            if key.startswith("profile.") and key[8:].isdigit() and isinstance(value, str):
                try:
                    nodes.append(parse_node(value))
                except ValueError:
                    bad.append(key[8:])
        missing = stats.get("profile.missing")
        return cls(wall, nodes, missing.split(",") if isinstance(missing, str) and missing else [],
                   bad)
