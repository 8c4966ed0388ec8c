"""Particle swarm minimization: a thin wrapper over pyswarms' GlobalBestPSO.

The caller gives a vectorized cost over a swarm (an array of shape
(particles, dimensions) in, one cost per particle out) and box bounds; the
caller decodes positions into its integer decisions inside the cost (e.g. by
rounding or random keys) and adds penalties for violated constraints, or
repairs, so that the best position always decodes to a feasible solution.
"""

from __future__ import annotations

import logging
import math
import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from models.checks import as_array, as_callable, as_float, as_instance, as_int
from models.errors import InvalidInput
from solvers.base import Stopwatch

#: NumPy's global seed is a 32-bit unsigned integer.
MAX_NUMPY_SEED = 2**32 - 1
#: Particles of a swarm: 66 times the Packing paper's 1,500. pyswarms holds a few arrays of
#: particles x dimensions floats (positions, velocities, personal bests); a billion particles
#: would exhaust memory before the first iteration.
MAX_PSO_PARTICLES = 100_000
#: Iterations of a swarm: 500 times the Packing paper's 200 (pyswarms keeps every iteration's
#: positions and velocities, so the history grows with iterations x particles x dimensions).
MAX_PSO_ITERATIONS = 100_000
#: pyswarms keeps every iteration's positions and velocities (8 bytes each, per particle and
#: dimension): a swarm whose history would pass this many bytes is refused before it starts, as a
#: simulation past `planner.limits.MAX_SIMULATION_BYTES` is. The Packing paper's swarm (1,500
#: particles, 200 iterations) keeps 4.8 MB a dimension: up to 894 dimensions.
MAX_PSO_HISTORY_BYTES = 4 * 2**30
#: Bytes of history per particle, iteration and dimension (a position and a velocity).
HISTORY_BYTES_PER_ENTRY = 16


@dataclass(frozen=True)
class PsoOptions:
    """Swarm size and coefficients. Defaults: the Packing paper's 1500 particles and 200
    iterations; c1 (cognitive), c2 (social) and w (inertia) as in pyswarms' examples."""

    particles: int = 1500
    iterations: int = 200
    c1: float = 0.5
    c2: float = 0.3
    w: float = 0.9

    def __post_init__(self) -> None:
        object.__setattr__(self, "particles", as_int(self.particles, "particles", minimum=1,
                                                     maximum=MAX_PSO_PARTICLES))
        object.__setattr__(self, "iterations", as_int(self.iterations, "iterations", minimum=1,
                                                      maximum=MAX_PSO_ITERATIONS))
        for name in ("c1", "c2", "w"):
            object.__setattr__(self, name, as_float(getattr(self, name), name, minimum=0.0))


@dataclass(frozen=True)
class PsoOutcome:
    """The best ``position`` the swarm found and its ``cost`` (a number, inf when no particle's
    cost was finite), after ``iterations`` iterations and ``seconds`` of wall time."""

    position: np.ndarray
    cost: float
    seconds: float
    iterations: int

    def __post_init__(self) -> None:
        put = object.__setattr__
        put(self, "position", as_array(self.position, "position"))
        cost = self.cost
        put(self, "cost", math.inf if cost == math.inf else as_float(cost, "cost"))
        put(self, "seconds", as_float(self.seconds, "seconds", minimum=0.0))
        put(self, "iterations", as_int(self.iterations, "iterations", minimum=0))


def integers(positions: np.ndarray, lower: np.ndarray, upper: np.ndarray) -> np.ndarray:
    """Decode continuous positions into integers in [lower, upper] (rounding, then clipping).

    Give the swarm the box [lower - 0.5, upper + 0.5] so that every integer has
    an equally wide basin.
    """
    return np.clip(np.rint(positions), lower, upper).astype(np.int64)


def random_keys(positions: np.ndarray) -> np.ndarray:
    """Decode positions into permutations: each row's order is the stable argsort of its keys."""
    return np.argsort(positions, axis=-1, kind="stable")


def penalized(objective: np.ndarray, violation: np.ndarray, weight: float) -> np.ndarray:
    """objective + weight * violation, where violation >= 0 measures how far each particle's
    decoded decision breaks the constraints (0 when it is feasible)."""
    return objective + weight * np.maximum(violation, 0.0)


@contextmanager
def _numpy_global_seed(seed: int):
    """pyswarms draws from NumPy's global generator and takes no generator of its own.

    Seeding it is the only way to make a swarm reproducible, so do it for the
    duration of the run and put the caller's state back afterwards (the swarm
    never changes anybody else's random stream). Not safe to interleave with
    other users of the global generator in other threads.
    """
    saved = np.random.get_state()  # noqa: NPY002
    np.random.seed(seed)  # noqa: NPY002
    try:
        yield
    finally:
        np.random.set_state(saved)  # noqa: NPY002


#: pyswarms' logging set-up, read from the file its ``LOG_CFG`` names: change nothing. Without it,
#: each pyswarms reporter (made as pyswarms is imported, and as each swarm is made) configures the
#: root logger with a handler that writes ``report.log`` in the current folder.
PYSWARMS_LOGGING = Path(__file__).with_name("pyswarms_logging.json")


@contextmanager
def _pyswarms_logging_untouched() -> Iterator[None]:
    """While pyswarms is imported and used: its reporters leave logging (and the folder) alone."""
    before = os.environ.get("LOG_CFG")
    os.environ["LOG_CFG"] = str(PYSWARMS_LOGGING)
    try:
        yield
    finally:
        if before is None:
            os.environ.pop("LOG_CFG", None)
        else:
            os.environ["LOG_CFG"] = before


def minimize(
    cost: Callable[[np.ndarray], np.ndarray],
    lower: np.ndarray,
    upper: np.ndarray,
    *,
    options: PsoOptions | None = None,
    seed: int = 0,
) -> PsoOutcome:
    """The best position found by a global-best swarm within [lower, upper]."""
    with _pyswarms_logging_untouched():
        import pyswarms

    as_callable(cost, "cost")
    options = PsoOptions() if options is None else as_instance(options, PsoOptions, "options")
    seed = as_int(seed, "seed", minimum=0, maximum=MAX_NUMPY_SEED)
    lower = as_array(lower, "lower")
    upper = as_array(upper, "upper")
    if lower.size == 0 or lower.shape != upper.shape:
        raise InvalidInput("upper", f"lower and upper must be of the same non-zero length, got {lower.size} and "
                                    f"{upper.size}")
    if np.any(upper <= lower):
        raise InvalidInput("upper", "every upper bound must exceed its lower bound")
    history = HISTORY_BYTES_PER_ENTRY * options.particles * options.iterations * lower.size
    if history > MAX_PSO_HISTORY_BYTES:
        raise InvalidInput("options", f"a swarm of {options.particles:,} particles x {options.iterations:,} iterations "
                                      f"in {lower.size:,} dimensions keeps {history / 2**30:.1f} GiB of history; at "
                                      f"most {MAX_PSO_HISTORY_BYTES / 2**30:.0f} GiB (MAX_PSO_HISTORY_BYTES)")
    clock = Stopwatch()
    logging.getLogger("pyswarms").setLevel(logging.WARNING)
    with _numpy_global_seed(seed), _pyswarms_logging_untouched():
        optimizer = pyswarms.single.GlobalBestPSO(
            n_particles=options.particles,
            dimensions=lower.size,
            options={"c1": options.c1, "c2": options.c2, "w": options.w},
            bounds=(lower, upper),
        )
        best_cost, best_position = optimizer.optimize(cost, iters=options.iterations, verbose=False)
    return PsoOutcome(np.asarray(best_position, dtype=np.float64), float(best_cost), clock.seconds, options.iterations)
