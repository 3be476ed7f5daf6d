"""The simulator: many bot games on every core, reduced to balancing figures, a report and plots."""

from opolyx.sim.runner import SimConfig, format_report, simulate
from opolyx.sim.stats import wilson

__all__ = ["SimConfig", "format_report", "simulate", "wilson"]
