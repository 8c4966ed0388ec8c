"""Bundled examples: paper-shaped workloads (`workloads`) and the demo on bundled data (`demo`).

The data files are in ``planner/data`` (see its NOTICE.md).
"""
