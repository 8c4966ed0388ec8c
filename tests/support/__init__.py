"""Helpers the test modules share: clusters, batches, strategies, invariant checks and small
scheduler subclasses, one module per behaviour (`simulator`, `properties`, `natjam`, `fresh`,
`packing`, `heartbeats`). Test modules import from here, never from one another
(tests/test_suite_layout.py checks it)."""
