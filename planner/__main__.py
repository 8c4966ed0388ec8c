"""``python -m planner``: the `planner` command."""

from planner.cli import main

raise SystemExit(main())
