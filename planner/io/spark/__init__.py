"""Spark as an export and planning target: its scheduler's files read as the simulator's run
(`planner.io.spark.conf`), a plan's levers written into them (`planner.io.spark.merge`) and the
target registered as "spark" (`planner.io.spark.target`)."""
