"""engine/digraph.py: the graph and the four algorithms the flow graphs and the call graph use,
on graphs whose answers are worked out by hand."""
from adspec.engine.digraph import (DiGraph, components_bottom_up, descendants, dfs_postorder,
                                   immediate_dominators)


def graph(*edges) -> DiGraph:
    g = DiGraph()
    for u, v in edges:
        g.add_edge(u, v)
    return g


# 0 -> 1 -> 2 -> 4, 0 -> 3 -> 2, 2 -> 1 (a loop), 5 unreachable -> 4
DIAMOND = graph((0, 1), (1, 2), (2, 4), (0, 3), (3, 2), (2, 1), (5, 4))


def test_edges_keep_first_order_and_last_attributes():
    g = DiGraph()
    g.add_edge("a", "b", label="true")
    g.add_edge("a", "c", label="false")
    g.add_edge("a", "b", label="false")
    assert list(g.edges(data=True)) == [("a", "b", {"label": "false"}), ("a", "c", {"label": "false"})]
    assert g.edges["a", "c"]["label"] == "false" and g.has_edge("a", "b") and not g.has_edge("b", "a")
    assert list(g.predecessors("b")) == ["a"] and list(g.reverse(copy=False).successors("b")) == ["a"]
    assert list(g.reverse().edges()) == [("b", "a"), ("c", "a")]


def test_depth_first_post_order_follows_edge_order():
    assert dfs_postorder(DIAMOND, 0) == [4, 2, 1, 3, 0]


def test_immediate_dominators():
    assert immediate_dominators(DIAMOND, 0) == {1: 0, 2: 0, 3: 0, 4: 2}
    # post-dominators: the reversed graph from the exit 4 (5 reaches 4 but is not reached back)
    assert immediate_dominators(DIAMOND.reverse(copy=False), 4) == {2: 4, 1: 2, 3: 2, 0: 2, 5: 4}


def test_descendants_leave_the_source_out_even_on_a_cycle():
    assert descendants(DIAMOND, 1) == {2, 4}   # 2 -> 1 leads back to the source
    assert descendants(DIAMOND, 4) == set()


def test_components_callees_first_ties_by_key():
    # main calls a and b; a <-> b recursive; b calls leaf; c alone, called by nobody
    g = graph(("main", "a"), ("a", "b"), ("b", "a"), ("b", "leaf"))
    g.add_node("c")
    order = {name: i for i, name in enumerate(["main", "c", "b", "a", "leaf"])}
    assert components_bottom_up(g, order.__getitem__) == [["leaf"], ["b", "a"], ["c"], ["main"]]
