"""engine/bitsets.py: the Relation operations against their definitions on sets of pairs
(v1.v2), on random relations over a few zones (the fast paths read the rows, not the zones)."""
import random

from adspec.engine.bitsets import Relation, from_zones, zones_of

ZONES = range(6)


def pairs(r: Relation) -> set:
    """(v1, v2): v2 after depends on v1 before (a missing row is the identity)."""
    return {(v1, v2) for v2 in ZONES for v1 in zones_of(r.row(v2))}


def random_relation(rng) -> Relation:
    rows = {}
    for v2 in ZONES:
        if rng.random() < 0.5:   # some rows the identity, some written out as such, some empty
            rows[v2] = from_zones(v1 for v1 in ZONES if rng.random() < 0.3)
        elif rng.random() < 0.2:
            rows[v2] = 1 << v2
    return Relation(rows)


def test_relation_operations_follow_their_definitions():
    rng = random.Random(7)
    for _ in range(400):
        a, b = random_relation(rng), random_relation(rng)
        then, union = a.then(b), a.union(b)
        assert pairs(then) == {(v1, v3) for (v1, v2) in pairs(a) for (w2, v3) in pairs(b) if v2 == w2}
        assert pairs(union) == pairs(a) | pairs(b)
        # equal relations compare equal: no identity row is kept
        assert then == Relation(dict(then.rows)) and hash(then) == hash(Relation(dict(then.rows)))
        assert all(s != 1 << v2 for r in (then, union) for v2, s in r.rows.items())
        s = from_zones(z for z in ZONES if rng.random() < 0.4)
        assert set(zones_of(a.backward(s))) == {v1 for (v1, v2) in pairs(a) if (s >> v2) & 1}
        assert set(zones_of(a.forward(s))) == {v2 for (v1, v2) in pairs(a) if (s >> v1) & 1}
