"""Planning problems turned into solutions (slot configuration, ordering, packing).

Imports `models` only, never `planner`.
"""
