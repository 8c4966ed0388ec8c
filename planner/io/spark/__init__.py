"""Spark, as operators run it: its event logs read (`planner.io.spark.events` streams the listener
events, `planner.io.spark.logs` makes them `planner.io.spark.records` and a batch,
`planner.io.spark.fitting` fits task overheads from them), and Spark as an export and planning
target (`planner.io.spark.conf` reads its scheduler's files as the simulator's run,
`planner.io.spark.merge` writes a plan's levers into them, `planner.io.spark.submit` writes the
driver-side submission script, and `planner.io.spark.target` registers the target "spark")."""
